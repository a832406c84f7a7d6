"""Search support (balout.search over src/_core/search.c): information sets,
the determinization sampler, the double-dummy solver and ``balout solve``.

References used here, independent of the code under test:
* hand-built positions whose inferences are worked out by hand;
* brute-force enumeration of the deals of the unseen cards, each checked by
  replaying the whole hand from a deck that deals it (so the engine's own
  legality decides which deals are consistent with the public history);
* ``_core.bruteforce_value``: plain minimax without pruning or tables;
* ``benchmarks/reference/plain_dd.c``: a plain alpha-beta with its own
  legality, trick winner and points, sharing no code with the extension, for
  whole deals (too long for brute force).
"""
from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from balout import CardSet, State, _core
from balout.cards import Card, card_name
from balout.errors import BaloutError, OptionError
from balout.rules import resolve
from balout.search import InformationSet, Sampler, Solver, information_set, solve
from helpers import deck_for, mean_over_worlds, play, played_out_double_dummy, state_for

VARIANTS = ("balout", "belote", "baloot")
CONTRACTS = (("balout", None), ("belote", None), ("baloot", "hokm"), ("baloot", "sun"))


# ------------------------------------------------------------------ helpers

def cs(text: str) -> CardSet:
    return CardSet(text)


def m(text: str) -> int:
    return int(CardSet(text))


def suit_mask(suit: str) -> int:
    return 0xFF << (8 * "SHDC".index(suit))


def popcount(x: int) -> int:
    return bin(int(x)).count("1")


def cards_in_hands(s: State) -> int:
    return sum(popcount(h) for h in s.hand_masks)


def total_of(s: State) -> int:
    return 130 if s.trump_id < 0 else 162


def take_bids(taker: int) -> list:
    """balout/belote bids (dealer 0) so that ``taker`` takes in round 1."""
    return ["pass"] * ((taker - 1) % 4) + ["take"]


def bid_randomly(s: State, rng: random.Random, kind=None) -> None:
    """Random auction/doubling; ``kind`` 'sun' or 'hokm' steers baloot."""
    while s.phase in ("auction", "doubling") and not s.is_terminal():
        acts = s.legal_action_strings()
        if kind == "sun" and s.phase == "auction":
            pick = [a for a in acts if a in ("sun", "ashkal")] or acts
        elif kind == "hokm" and s.phase == "auction":
            pick = [a for a in acts if a.startswith("hokm")] or [a for a in acts if a == "pass"]
        elif s.phase == "auction" and s.variant != "baloot":
            pick = [a for a in acts if a.startswith("take")] if rng.random() < 0.5 else acts
            pick = pick or acts
        else:
            pick = acts
        s.apply_action(rng.choice(pick))


def position(variant: str, seed: int, cards_left: int, kind=None, options=None):
    """A random position with ``cards_left`` cards in the hands, or None."""
    rng = random.Random(seed * 7919 + cards_left)
    s = State(variant, seed=seed, options=options)
    bid_randomly(s, rng, kind)
    if s.is_terminal() or s.phase == "auction":
        return None
    if kind == "sun" and s.trump_id >= 0 or kind == "hokm" and s.trump_id < 0:
        return None
    while cards_in_hands(s) > cards_left:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def positions(variant, count, lo, hi, kind=None, options=None, seed0=0):
    out, seed = [], seed0
    rng = random.Random(seed0 + 17)
    while len(out) < count:
        s = position(variant, seed, rng.randint(lo, hi), kind, options)
        seed += 1
        if s is not None and s.phase in ("play", "declare"):
            out.append(s)
    return out


def child_value_for_parent(parent: State, card: int) -> int:
    """Brute-force value of ``card`` for the team to act at ``parent``."""
    t = parent.clone()
    team = parent.to_act & 1
    t.apply_action(card)
    if t.is_terminal():
        return t.card_points[team]
    v = _core.bruteforce_value(t)
    return v if (t.to_act & 1) == team else total_of(parent) - v


def enumerate_infoset(info: InformationSet):
    """All deals (4 masks) of the unseen cards allowed by the information set."""
    seat = info.seat
    others = [s for s in range(4) if s != seat]
    unseen = [int(c) for c in info.unseen]
    own = int(info.own)
    known = [int(k) for k in info.known]
    forb = [int(f) for f in info.forbidden]
    out = []
    c0, c1 = info.count[others[0]], info.count[others[1]]
    for a in itertools.combinations(unseen, c0):
        ma = sum(1 << c for c in a)
        rest = [c for c in unseen if not ma >> c & 1]
        for b in itertools.combinations(rest, c1):
            mb = sum(1 << c for c in b)
            mc = sum(1 << c for c in rest) & ~mb
            hands = [0] * 4
            hands[seat] = own
            for s, h in zip(others, (ma, mb, mc)):
                hands[s] = h
            if all(known[s] & ~hands[s] == 0 and forb[s] & hands[s] == 0 for s in others):
                out.append(tuple(hands))
    return out


def played_by(s: State) -> list:
    out = [0, 0, 0, 0]
    for phase, seat, a in s.history():
        if phase == "play" and a < 32:
            out[seat] |= 1 << a
    return out


def replay_consistent(s: State, seat: int, hands) -> bool:
    """Is the deal ``hands`` (current hands) consistent with everything
    ``seat`` saw? Replays the whole hand from a deck that deals it."""
    plays = played_by(s)
    if not (hands[s.receiver] | plays[s.receiver]) >> s.offer_id & 1:
        return False                        # the offer went to a known seat
    dealt = [CardSet.from_mask(hands[p] | plays[p]) for p in range(4)]
    try:
        t = State(s.variant, deck=deck_for(dealt, card_name(s.offer_id), s.receiver, s.dealer),
                  dealer=s.dealer, options=s.options)
        for a in s.action_history:
            t.apply_action(a)
    except BaloutError:
        return False
    assert tuple(t.hand_masks) == tuple(hands)
    # shown declarations (after the first trick) must be the same, and a seat
    # that declared nothing must declare nothing (the replay makes the same
    # choices, so with declaring by choice a seat that declined declines)
    if s.tricks_played >= 1:
        for p in range(4):
            if p != seat and (s.declared_seats >> p & 1) != (t.declared_seats >> p & 1):
                return False
            if p != seat and (s.declared_seats >> p & 1):
                if t.declaration_cards[p] != s.declaration_cards[p]:
                    return False
    # belote is announced with the first of K/Q of trump its holder plays:
    # every seat's announcement (made or not) must be the same in the deal
    if s.trump_id >= 0:
        kq = (1 << (s.trump_id * 8 + 5)) | (1 << (s.trump_id * 8 + 6))
        for p in range(4):
            if p != seat and plays[p] & kq:
                if (s.belote_seat == p) != (t.belote_seat == p):
                    return False
    return True


def chi2_sf(x: float, df: int) -> float:
    """Survival function of the chi-square distribution (regularized upper
    incomplete gamma Q(df/2, x/2); Numerical Recipes' series / fraction)."""
    a, x = df / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, total, delta = a, 1.0 / a, 1.0 / a
        for _ in range(100000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    b = x + 1 - a
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def test_chi2_sf_reference_values():
    # scipy.stats.chi2.sf reference values
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(124.34211340400407, 100) == pytest.approx(0.05, rel=1e-8)
    assert chi2_sf(50.0, 100) == pytest.approx(0.9999911, rel=1e-5)
    assert chi2_sf(300.0, 100) < 1e-20


# ------------------------------------------------- information sets: by hand
#
# balout, dealer 0, offer 7H taken by seat 1 (trump H), seat 2 leads.

VOID_HANDS = ["KH QH 9D TD 7C 8C 9C AC",    # 0
              "7H 8H 9H TH JH 7S 8S 9S",    # 1 (taker, holds the offer 7H)
              "AS KS QS JS TS AH 7D 8D",    # 2
              "JD QD KD AD TC JC QC KC"]    # 3: no spade, no trump

CUT_HANDS = ["8H JD QD KD AD TC JC QC",     # 0: no spade, only trump 8H
             "7H 9H JH KH 7S 8S KC AC",     # 1
             "9S TS JS QS KS AS QH AH",     # 2
             "TH 7D 8D 9D TD 7C 8C 9C"]     # 3: no spade, only trump TH

PARTNER_HANDS = ["7D 8D 9D TD 7C 8C 9C TC",  # 0: no spade, no trump
                 "7H 8H 9H TH JH AH 8S JC",  # 1
                 "9S TS JS QS KS AS QH JD",  # 2
                 "KH 7S QC KC AC QD KD AD"]  # 3

DECL_HANDS = ["7S 9S JS 7D 9D TC JC KC",    # 0: no declaration
              "7H 9H JH KH 8S TS 8D TD",    # 1: no declaration
              "8H TH QH AH QS AS QD AD",    # 2: no declaration
              "7C 8C 9C QC AC KS KD JD"]    # 3: 7C 8C 9C


def deal(hands, variant="balout", taker=1, offer="7H", **options):
    return state_for(hands, offer, taker, 0, variant, take_bids(taker),
                     options=options or None)


def unseen_of(s, seat):
    return sum(s.hand_masks[p] for p in range(4) if p != seat)


def test_hand_built_decks_deal_as_intended():
    for hands in (VOID_HANDS, CUT_HANDS, PARTNER_HANDS, DECL_HANDS):
        s = deal(hands)
        assert s.phase == "play" and s.trump == "H" and s.to_act == 2
        assert [m(h) for h in hands] == list(s.hand_masks)


def test_failing_to_follow_shows_a_void_and_no_trump():
    s = play(deal(VOID_HANDS, declarations="off"), "AS JD")
    for obs in (0, 1, 2):
        info = information_set(s, obs)
        u = unseen_of(s, obs)
        # seat 3 showed no spade and, an opponent winning, no trump
        assert int(info.forbidden[3]) == u & (suit_mask("S") | suit_mask("H")), obs
        assert int(info.forbidden[2]) == 0           # the leader shows nothing
        assert info.allows(1, "7S")              # seat 1 holds it: allowed
        assert not info.allows(3, "KS") and not info.allows(3, "9H")
    # the observer's own plays never produce inferences about itself
    own = information_set(s, 3)
    assert int(own.forbidden[3]) == 0 and int(own.known[3]) == 0


def test_discarding_under_an_opponent_trump_lead_of_plain_suit():
    """Same duty, checked on the second card of a later trick: void + no trump."""
    s = play(deal(VOID_HANDS, declarations="off"), "AS JD 9D 7S")   # seat 2 wins
    assert s.to_act == 2
    play(s, "KS AD")   # seat 3 discards again
    info = information_set(s, 0)
    assert int(info.forbidden[3]) == unseen_of(s, 0) & (suit_mask("S") | suit_mask("H"))


def test_under_trumping_shows_no_higher_trump():
    s = play(deal(CUT_HANDS, declarations="off"), "AS TH 8H")
    info = information_set(s, 1)
    u = unseen_of(s, 1)
    spades = u & suit_mask("S")
    assert int(info.forbidden[3]) == spades                     # void in spades, trumped: fine
    assert int(info.forbidden[0]) == spades | (u & m("JH 9H AH"))  # nothing above TH
    assert info.forbidden[0] == cs("9S TS JS QS KS AH")
    assert not info.allows(0, "AH") and info.allows(2, "AH") and info.allows(3, "KD")
    # seen from seat 3, seat 0 still has no trump above TH (9H and JH are seat 1's)
    info3 = information_set(s, 3)
    assert int(info3.forbidden[0]) == unseen_of(s, 3) & (suit_mask("S") | m("JH 9H AH"))


def test_under_trumping_without_the_overtrump_duty_shows_nothing_of_trumps():
    s = play(deal(CUT_HANDS, declarations="off", overtrump_when_cutting=False), "AS TH 8H")
    info = information_set(s, 1)
    assert int(info.forbidden[0]) == unseen_of(s, 1) & suit_mask("S")


def test_discard_without_undertrump_duty_shows_no_higher_trump_only():
    s = play(deal(CUT_HANDS, declarations="off", undertrump=False), "AS TH JD")
    info = information_set(s, 1)
    u = unseen_of(s, 1)
    assert int(info.forbidden[0]) == u & (suit_mask("S") | m("JH 9H AH"))
    assert Card("8H") not in info.forbidden[0]    # a lower trump may be held


def test_partner_winning_frees_means_no_trump_inference():
    s = play(deal(PARTNER_HANDS, declarations="off"), "AS 7S 7D")
    info = information_set(s, 1)
    assert int(info.forbidden[0]) == unseen_of(s, 1) & suit_mask("S")
    assert int(info.forbidden[3]) == 0      # followed suit under the ace: nothing


def test_partner_winning_does_not_free_when_the_option_is_off():
    s = play(deal(PARTNER_HANDS, declarations="off", partner_winning_frees=False), "AS 7S 7D")
    info = information_set(s, 1)
    assert int(info.forbidden[0]) == unseen_of(s, 1) & (suit_mask("S") | suit_mask("H"))


def test_trump_lead_not_beaten_shows_no_higher_trump():
    s = play(deal(DECL_HANDS, declarations="off"), "TH")   # seat 2 leads TH
    play(s, "7C 7D")        # seats 3, 0: no trump (void in the led trump suit)
    info = information_set(s, 1)
    u = unseen_of(s, 1)
    assert int(info.forbidden[3]) == u & suit_mask("H")
    assert int(info.forbidden[0]) == u & suit_mask("H")
    play(s, "JH")           # seat 1 beats: no inference about him from seat 2's view
    info2 = information_set(s, 2)
    assert int(info2.forbidden[1]) == 0


def test_offer_receiver_is_known_to_hold_the_offer_until_played():
    s = deal(DECL_HANDS, declarations="off")
    for obs in (0, 2, 3):
        assert information_set(s, obs).known[1] == cs("7H")
        assert all(int(k) == 0 for i, k in enumerate(information_set(s, obs).known) if i != 1)
    assert all(int(k) == 0 for k in information_set(s, 1).known)
    play(s, "8H 7C 7D 9H")          # seat 1 wins trick 1 and leads
    assert information_set(s, 0).known[1] == cs("7H")
    play(s, "7H")                   # ... the offer
    for obs in range(4):
        assert int(information_set(s, obs).known[1]) == 0


def test_ashkal_offer_goes_to_the_partner_and_is_known():
    for seed in range(200):
        s = State("baloot", seed=seed)
        if Card(s.offer_id).rank == "J":
            continue
        for b in ("pass", "pass", "ashkal"):
            s.apply_action(b)
        break
    assert s.phase == "play" and s.receiver == 1 and s.trump is None
    offer = CardSet.from_mask(1 << s.offer_id)
    assert s.hand_masks[1] >> s.offer_id & 1
    for obs in (0, 2, 3):
        info = information_set(s, obs)
        assert info.known[1] == offer and int(info.known[3]) == 0
    assert int(information_set(s, 1).known[1]) == 0


def test_declarations_are_known_once_the_first_trick_is_over():
    s = deal(DECL_HANDS)                          # declarations auto
    assert s.declared_seats == 1 << 3
    assert s.declaration_cards[3] == m("7C 8C 9C")
    play(s, "AS KS 7S")
    for obs in (0, 1, 2):                          # not shown during trick 1
        assert int(information_set(s, obs).known[3]) == 0
    play(s, "8S")                                   # trick 1 over, seat 2 leads
    for obs in (0, 1, 2):
        info = information_set(s, obs)
        assert info.known[3] == cs("7C 8C 9C"), obs
        assert info.allows(3, "8C")
        for p in range(4):
            if p not in (3, obs):
                assert not info.allows(p, "8C")
    assert int(information_set(s, 3).known[3]) == 0
    play(s, "QS 8C")                                 # one declared card is played
    assert information_set(s, 0).known[3] == cs("7C 9C")


def test_belote_holder_shows_the_other_half():
    hands = ["7S 9S JS 7D 9D TC JC KC",
             "7H 9H JH QS 8S TS 8D TD",
             "8H TH QH AH KH AS QD AD",             # K and Q of trump
             "7C 8C 9C QC AC KS KD JD"]
    s = deal(hands, declarations="off")
    assert s.belote_seat == 2
    for obs in (0, 1, 3):
        assert Card("QH") not in information_set(s, obs).known[2]
    play(s, "KH")
    for obs in (0, 1, 3):
        info = information_set(s, obs)
        assert info.known[2] == cs("QH"), obs
        assert info.allows(2, "QH")
        for p in range(4):
            if p not in (2, obs):
                assert not info.allows(p, "QH"), (obs, p)
    assert int(information_set(s, 2).known[2]) == 0
    play(s, "7C 7D JH 8S AS KS 7S")                # seat 2 wins trick 2 and leads
    assert information_set(s, 0).known[2] == cs("QH")
    play(s, "QH")
    assert int(information_set(s, 0).known[2]) == 0   # QH played: nothing left to know


def test_queen_first_shows_the_king():
    hands = ["7S 9S JS 7D 9D TC JC KC",
             "7H 9H JH QS 8S TS 8D TD",
             "8H TH QH AH KH AS QD AD",
             "7C 8C 9C QC AC KS KD JD"]
    s = play(deal(hands, declarations="off"), "QH")
    assert information_set(s, 3).known[2] == cs("KH")


def test_trump_king_played_without_belote_shows_no_queen():
    """Seat 1 plays the K of trump and no belote is announced (the engine
    announces it automatically, and seat 0's view shows none): seat 1 cannot
    hold the Q of trump, which is unseen to seat 0."""
    s = deal(DECL_HANDS, declarations="off")        # KH: seat 1, QH: seat 2
    assert s.belote_seat == -1
    play(s, "8H 7C 7D KH")                           # seat 1 must beat 8H: plays KH
    assert s.view(0).belote_seat is None
    info = information_set(s, 0)
    assert Card("QH") in info.forbidden[1]
    assert not info.allows(1, "QH")


def test_information_set_basics_and_soundness_on_random_positions():
    """own, unseen, counts exact; known/forbidden true of the real deal."""
    opts = [None, {"overtrump_when_cutting": False}, {"undertrump": False},
            {"partner_winning_frees": False}, {"declarations": "choice"}]
    n = 0
    for variant in VARIANTS:
        for k, o in enumerate(opts):
            for s in positions(variant, 12, 4, 30, options=o, seed0=1000 * k):
                hands = s.hand_masks
                for seat in range(4):
                    info = information_set(s, seat)
                    assert isinstance(info, InformationSet) and info.seat == seat
                    assert int(info.own) == hands[seat]
                    assert int(info.unseen) == unseen_of(s, seat)
                    assert int(info.own) & int(info.unseen) == 0
                    assert info.count == tuple(popcount(h) for h in hands)
                    assert int(info.known[seat]) == 0 and int(info.forbidden[seat]) == 0
                    for p in range(4):
                        assert int(info.known[p]) & ~hands[p] == 0, (s.to_record(), seat, p)
                        assert int(info.forbidden[p]) & hands[p] == 0, (s.to_record(), seat, p)
                        assert int(info.known[p]) & int(info.forbidden[p]) == 0
                    n += 1
    assert n == 3 * len(opts) * 12 * 4


def test_bad_seat_for_information_set_and_sampler():
    s = position("balout", 3, 20)
    for bad in (-1, 4, "1", 1.0, None, True):
        with pytest.raises(BaloutError):
            information_set(s, bad)
        with pytest.raises(BaloutError):
            Sampler(s, bad)
    with pytest.raises(ValueError):
        _core.information_set(s, 4)
    with pytest.raises(ValueError):
        _core.WorldSampler(s, -1)


# ------------------------------------------------------------------ sampler

def check_worlds(s: State, seat: int, hands: np.ndarray) -> None:
    info = information_set(s, seat)
    assert hands.dtype == np.uint32 and hands.shape[1] == 4
    h = hands.astype(np.int64)
    assert (h[:, seat] == int(info.own)).all()
    union = h[:, 0] | h[:, 1] | h[:, 2] | h[:, 3]
    assert (union == int(info.own) | int(info.unseen)).all()
    for p in range(4):
        for q in range(p + 1, 4):
            assert not (h[:, p] & h[:, q]).any()
        counts = np.array([popcount(x) for x in h[:, p]])
        assert (counts == info.count[p]).all()
        assert ((h[:, p] & int(info.known[p])) == int(info.known[p])).all()
        assert not (h[:, p] & int(info.forbidden[p])).any()


def test_every_world_is_consistent():
    for variant in VARIANTS:
        for s in positions(variant, 6, 4, 30, seed0=50):
            for seat in range(4):
                sp = Sampler(s, seat)
                assert sp.count >= 1
                hands = sp.hands(300, seed=seat + 1)
                assert hands.shape == (300, 4)
                check_worlds(s, seat, hands)
            worlds = Sampler(s, s.to_act).worlds(5, seed=9)
            rows = Sampler(s, s.to_act).hands(5, seed=9)
            for w, row in zip(worlds, rows):
                assert isinstance(w, State)
                assert tuple(w.hand_masks) == tuple(int(x) for x in row)
                assert w.to_act == s.to_act and list(w.trick_ids) == list(s.trick_ids)
                assert w.legal_actions() == sorted(w.legal_actions())
                assert w.card_points == s.card_points and w.phase == s.phase


def test_sampler_is_deterministic_per_seed():
    s = position("belote", 11, 20)
    sp = Sampler(s, 0)
    a, b, c = sp.hands(200, 5), sp.hands(200, 5), sp.hands(200, 6)
    assert (a == b).all() and not (a == c).all()
    assert sp.hands(0, 1).shape == (0, 4)


def test_count_matches_enumeration_of_the_information_set():
    done = 0
    for variant in VARIANTS:
        for s in positions(variant, 8, 8, 12, seed0=300):
            for seat in range(4):
                info = information_set(s, seat)
                if len(info.unseen) > 10:
                    continue
                deals = enumerate_infoset(info)
                assert Sampler(s, seat).count == len(deals), (s.to_record(), seat)
                assert tuple(s.hand_masks) in deals
                done += 1
    assert done >= 40


def _replay_positions(variant, count, seed0, kind=None):
    """Late positions (6-9 unseen cards from the to-act seat), declarations off."""
    out = []
    for s in positions(variant, count, 8, 11, kind=kind, options={"declarations": "off"}, seed0=seed0):
        out.append(s)
    return out


def test_count_matches_deals_consistent_with_the_replayed_history():
    """The exact set of deals consistent with the public history (checked by
    replaying the hand from a deck that deals each one) is the sampler's."""
    checked = constrained = 0
    cases = [("balout", None), ("belote", None), ("baloot", "hokm"), ("baloot", "sun")]
    for variant, kind in cases:
        for s in _replay_positions(variant, 6, 700, kind):
            for seat in (s.to_act, (s.to_act + 1) % 4):
                info = information_set(s, seat)
                if len(info.unseen) > 9:
                    continue
                # every deal of the unseen cards with the right counts
                allowed = enumerate_infoset(InformationSet(
                    seat, info.own, info.unseen, info.count, (CardSet(),) * 4, (CardSet(),) * 4))
                consistent = {d for d in allowed if replay_consistent(s, seat, d)}
                got = set(enumerate_infoset(info))
                assert got == consistent, (s.to_record(), seat, len(got), len(consistent))
                assert Sampler(s, seat).count == len(consistent)
                checked += 1
                constrained += len(consistent) < len(allowed)
    assert checked >= 30 and constrained >= 8


def _uniformity(s: State, seat: int, n: int, seed: int):
    info = information_set(s, seat)
    deals = [d for d in enumerate_infoset(info) if replay_consistent(s, seat, d)]
    index = {d: i for i, d in enumerate(deals)}
    hands = Sampler(s, seat).hands(n, seed)
    counts = np.zeros(len(deals))
    for row in hands.tolist():
        i = index.get(tuple(row))
        assert i is not None, "an inconsistent world was drawn"
        counts[i] += 1
    expected = n / len(deals)
    stat = float(((counts - expected) ** 2 / expected).sum())
    return len(deals), stat, chi2_sf(stat, len(deals) - 1)


def test_uniform_over_consistent_deals_chi_square():
    cases = []
    for variant, kind in CONTRACTS:          # up to 3 constrained cases per contract
        found = 0
        for st in positions(variant, 10, 9, 12, kind=kind, seed0=900):
            for seat in range(4):
                info = information_set(st, seat)
                if len(info.unseen) <= 9 and any(int(f) for f in info.forbidden):
                    cases.append((st, seat))
                    found += 1
                    break
            if found == 3:
                break
    cases.append((positions("baloot", 1, 11, 11, kind="sun", seed0=5)[0], 0))
    tested = 0
    for k, (st, seat) in enumerate(cases):
        info = information_set(st, seat)
        if len(info.unseen) > 10:
            continue
        count = int(Sampler(st, seat).count)
        if count < 2:
            continue
        n = max(20000, 60 * count)
        size, stat, p = _uniformity(st, seat, n, seed=1000 + k)
        assert size <= count       # the declaration check may exclude deals
        if size < 2:
            continue
        assert p > 1e-4, (st.to_record(), seat, size, stat, p)
        tested += 1
    assert tested >= 10


def _declaration_cases(count, seed0):
    """Late positions with declarations shown, where the declaration check
    excludes some of the deals the known and forbidden cards allow."""
    cases = []
    for variant, kind in CONTRACTS:
        for st in positions(variant, 40, 8, 11, kind=kind, seed0=seed0):
            for seat in range(4):
                info = information_set(st, seat)
                if len(info.unseen) > 9 or st.tricks_played < 1:
                    continue
                allowed = enumerate_infoset(info)
                consistent = [d for d in allowed if replay_consistent(st, seat, d)]
                if 2 <= len(consistent) < len(allowed):
                    cases.append((st, seat, consistent))
                    break
            if sum(1 for c in cases if c[0].variant == variant) >= count:
                break
    return cases


def test_shown_declarations_exclude_hands_that_would_declare_otherwise():
    """Every sampled world declares exactly what the seats showed, and the
    draws are uniform over the deals consistent with the replayed history."""
    cases = _declaration_cases(3, seed0=4000)
    assert len(cases) >= 6
    for k, (st, seat, consistent) in enumerate(cases):
        info = information_set(st, seat)
        assert all(info.declarations[p] is not None for p in range(4) if p != seat)
        n = max(20000, 60 * len(consistent))
        rows = [tuple(r) for r in Sampler(st, seat).hands(n, 77 + k).tolist()]
        assert set(rows) == set(consistent), (st.to_record(), seat)
        index = {d: i for i, d in enumerate(consistent)}
        counts = np.bincount([index[r] for r in rows], minlength=len(consistent))
        expected = n / len(consistent)
        stat = float(((counts - expected) ** 2 / expected).sum())
        assert chi2_sf(stat, len(consistent) - 1) > 1e-4, (st.to_record(), seat, stat)


def test_a_seat_that_declared_nothing_holds_no_declaration():
    s = play(deal(DECL_HANDS), "AS KS 7S 8S")          # trick 1 over, seat 2 leads
    info = information_set(s, 1)
    assert info.declarations[0] == CardSet() and info.declarations[2] == CardSet()
    assert info.declarations[3] == cs("7C 8C 9C") and info.declarations[1] is None
    rules = resolve("balout", None)[2]
    plays = played_by(s)
    for row in Sampler(s, 1).hands(3000, 5):
        for p in (0, 2):                                  # no run of 3, no carre
            cards = int(row[p]) | plays[p]
            assert _core.declarations_of(cards, rules, s.kind_id, s.trump_id)[0] == 0
        # 7C 8C 9C and no more: TC (seat 0's) would make it a run of 4
        assert not int(row[3]) >> int(Card("TC")) & 1
    # during the first trick nothing is shown yet
    t = play(deal(DECL_HANDS), "AS KS")
    assert information_set(t, 1).declarations == (None,) * 4


def test_view_shows_the_public_history_and_only_the_seats_hand():
    s = play(deal(DECL_HANDS, declarations="choice"), "AS")
    s.apply_action("declare")                               # seat 3 announces its run
    play(s, "KS")
    v = s.view(1)
    assert v.seat == 1 and v.hand == s.hand(1) and v.offer == Card("7H") and v.offer_receiver == 1
    assert v.bids == ((1, "take"),) and v.declaring == ((3, "declare"),)
    assert v.plays == ((2, Card("AS")), (3, Card("KS"))) and v.trick == tuple(s.trick)
    assert v.to_act == 0 and v.legal_actions == ()           # seat 0 acts, not seat 1
    assert v.declarations == {} and v.belote_seat is None     # shown after the first trick
    assert s.view(0).legal_actions == tuple(s.legal_actions())
    assert s.view(3).declarations == {3: cs("7C 8C 9C")}      # its own, at once
    play(s, "7S 8S")
    assert s.view(1).declarations == {3: cs("7C 8C 9C")}
    assert s.information_state_string(1) == (
        "balout seat 1 | dealer 0 | hand TS 7H 9H JH KH 8D TD | offer 7H to 1 | bids 1:take | declaring 3:declare"
        " | plays 2:AS 3:KS 0:7S 1:8S | shown 3:7C 8C 9C | match 0-0 pot 0 | play, 2 to act")
    assert s.observation_string(1) == (
        "balout seat 1 | dealer 0 | hand TS 7H 9H JH KH 8D TD | offer 7H to 1 | contract trump H by 1 x1"
        " | played 0:7S 1:8S 2:AS 3:KS | trick - | points 15-0 tricks 1-0 | shown 3:7C 8C 9C | match 0-0 pot 0"
        " | play, 2 to act")
    mask = s.legal_actions_mask(2)
    assert mask.dtype == np.uint8 and mask.shape == (50,) and list(np.flatnonzero(mask)) == s.legal_actions()
    assert not s.legal_actions_mask(1).any() and np.array_equal(s.legal_actions_mask(), mask)
    # nothing of another hand: the same view whatever the others hold
    other = s.resample(1, 3)
    assert other.hand_masks != s.hand_masks and other.view(1) == s.view(1)


def test_declaring_by_choice_shows_who_holds_a_declaration():
    """With declaring by choice, a seat holding a declaration is asked to
    decide at its first turn: a seat that was not asked holds none, and one
    that was asked holds one, shown only if it declared it."""
    rules = resolve("balout", {"declarations": "choice"})[2]
    for decision, shown in (("declare", cs("7C 8C 9C")), ("pass", None)):
        s = play(deal(DECL_HANDS, declarations="choice"), "AS")
        assert s.phase == "declare" and s.to_act == 3      # seat 3 alone has one
        # asked now: whatever it decides, every world gives it a declaration
        for row in Sampler(s, 1).hands(500, 2):
            assert _core.declarations_of(int(row[3]), rules, s.kind_id, s.trump_id)[0] > 0
        s.apply_action(decision)
        play(s, "KS 7S 8S")
        info = information_set(s, 1)
        assert info.declarations == (CardSet(), None, CardSet(), shown), decision
        plays = played_by(s)
        rows = Sampler(s, 1).hands(2000, 3)
        for row in rows:
            assert [_core.declarations_of(int(row[p]) | plays[p], rules, s.kind_id, s.trump_id)[0] > 0
                    for p in (0, 2, 3)] == [False, False, True]
        if decision == "pass":   # seat 3 may hold a longer run than the one it kept quiet
            assert any(int(r[3]) >> int(Card("TC")) & 1 for r in rows)


def _random_positions(rng, count):
    """Positions of every variant (declarations by choice too), from the
    first bid to the end of the hand."""
    configs = [("balout", None), ("belote", None), ("baloot", None), ("baloot", {"declarations": "choice"}),
               ("belote", {"declarations": "choice"})]
    out = []
    while len(out) < count:
        variant, options = rng.choice(configs)
        s = State(variant, seed=rng.randrange(1 << 30), options=options, dealer=rng.randrange(4))
        stop = rng.randrange(0, 45)
        while not s.is_terminal() and len(s.action_history) < stop:
            s.apply_action(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def test_resample_shows_the_seat_what_it_saw_and_nothing_of_the_real_deal():
    rng = random.Random(2)
    changed = moved = 0
    for s in _random_positions(rng, 400):
        seat = rng.randrange(4)
        r = s.resample(seat, rng.randrange(1 << 64))
        assert isinstance(r, State) and r.view(seat) == s.view(seat), (s.to_record(), seat)
        assert r.action_history == s.action_history
        if seat == s.to_act:
            assert r.legal_actions() == s.legal_actions()
        assert State.from_record(r.to_record()) == r         # its own deck deals it
        assert r.deck[20] == s.deck[20]                      # the offer stays where it was
        mine = s.hand_masks[seat] | played_by(s)[seat]
        for i, c in enumerate(s.deck):                       # and so do the seat's cards
            if mine >> int(Card(c)) & 1 and s.bidder >= 0:
                assert r.deck[i] == c
        changed += r.hand_masks != s.hand_masks
        moved += r.deck != s.deck
    assert changed > 250 and moved > 350
    s = State("belote", seed=3)
    assert s.resample(1, 5) == s.resample(1, 5) and s.resample(1, 5) != s.resample(1, 6)
    for bad in (-1, 4, "1", None):
        with pytest.raises(OptionError, match="seat"):
            s.resample(bad, 1)
    with pytest.raises(OptionError, match="seed"):
        s.resample(1, -5)


def test_resample_is_uniform_over_the_deals_consistent_with_the_history():
    """The hidden hands of resampled states, counted against the deals that
    replay the public history (enumerated by brute force): chi-square."""
    tested = 0
    for variant, kind in CONTRACTS:
        for st in positions(variant, 6, 8, 11, kind=kind, seed0=6100):
            seat = st.to_act
            info = information_set(st, seat)
            if len(info.unseen) > 9:
                continue
            deals = [d for d in enumerate_infoset(info) if replay_consistent(st, seat, d)]
            if not 2 <= len(deals) <= 60:
                continue
            index = {d: i for i, d in enumerate(deals)}
            n = 60 * len(deals)
            counts = np.zeros(len(deals))
            for k in range(n):
                counts[index[tuple(st.resample(seat, k).hand_masks)]] += 1
            stat = float(((counts - n / len(deals)) ** 2 / (n / len(deals))).sum())
            assert chi2_sf(stat, len(deals) - 1) > 1e-4, (st.to_record(), seat, stat)
            tested += 1
    assert tested >= 8


def test_resample_deals_each_hand_in_a_random_order():
    """Where the hidden hands are known (one deal left), which five of
    another seat's cards it was dealt first (its bidding hand) is uniform
    over the 56 choices: a resampled deck hides the order too."""
    s = positions("belote", 1, 4, 4, seed0=12)[0]
    seat = s.to_act
    assert Sampler(s, seat).count == 1
    other = next(p for p in range(4) if p not in (seat, s.receiver))
    n = 5600
    counts = {}
    for k in range(n):
        first_five = s.resample(seat, k).initial_state().hand_masks[other]
        counts[first_five] = counts.get(first_five, 0) + 1
    assert len(counts) == 56
    expected = n / 56
    stat = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2_sf(stat, 55) > 1e-4


def test_resample_with_declarations_by_choice_keeps_who_decides():
    """Seat 3 alone holds a declaration, so it alone is asked whether to
    declare: every state resampled for seat 1 gives seat 3 one too (the
    sampler's information set does not know this; the replay does)."""
    s = play(deal(DECL_HANDS, declarations="choice"), "AS")
    assert s.phase == "declare" and s.to_act == 3
    rules = resolve("balout", {"declarations": "choice"})[2]
    for k in range(40):
        r = s.resample(1, k)
        assert r.phase == "declare" and r.to_act == 3 and r.view(1) == s.view(1)
        assert _core.declarations_of(r.hand_masks[3] | played_by(r)[3], rules, r.kind_id, r.trump_id)[0] > 0


def test_worlds_are_states_of_their_own():
    """Sampler.worlds: the hands of Sampler.hands, each dealt from a deck of
    its own: records that replay, nothing of the real deck."""
    for variant in VARIANTS:
        for s in positions(variant, 3, 6, 28, seed0=70):
            seat = (s.to_act + 1) % 4
            worlds = Sampler(s, seat).worlds(20, seed=4)
            rows = Sampler(s, seat).hands(20, seed=4)
            assert [tuple(w.hand_masks) for w in worlds] == [tuple(int(x) for x in r) for r in rows]
            for w in worlds:
                assert w.view(seat) == s.view(seat) and State.from_record(w.to_record()) == w
            assert sum(w.deck != s.deck for w in worlds) >= 19


def test_worlds_replay_the_history_with_declarations_by_choice():
    """With declaring by choice every sampled deal replays the public
    history: who was asked to decide, and what they chose."""
    rng = random.Random(8)
    checked = 0
    for variant in VARIANTS:
        for st in positions(variant, 12, 20, 30, options={"declarations": "choice"}, seed0=8800):
            for seat in range(4):
                if seat == st.to_act and st.phase == "declare":
                    continue
                rows = Sampler(st, seat).hands(60, rng.randrange(1 << 32))
                assert all(replay_consistent(st, seat, tuple(int(x) for x in r)) for r in rows), \
                    (st.to_record(), seat)
                checked += 1
    assert checked >= 100


def test_chi_square_catches_a_biased_sampler():
    """The uniformity check can fail: drop one deal's share onto another."""
    s = positions("balout", 1, 10, 10, seed0=41)[0]
    deals = enumerate_infoset(information_set(s, s.to_act))
    assert len(deals) > 10
    counts = np.full(len(deals), 100.0)
    counts[0], counts[1] = 160, 40
    stat = float(((counts - 100.0) ** 2 / 100.0).sum())
    assert chi2_sf(stat, len(deals) - 1) < 1e-4


def test_pimc_sums_equal_solver_values_over_the_sampled_worlds():
    for variant, kind in CONTRACTS:
        s = positions(variant, 1, 14, 18, kind=kind, seed0=77)[0]
        legal, sums, n = _core.DoubleDummy().pimc(s, 25, 123)
        assert n == 25
        assert legal == s.legal_mask() & 0xFFFFFFFF
        solver = Solver()
        expect = np.zeros(32)
        for row in Sampler(s, s.to_act).hands(25, 123):
            w = s.with_hands(row)
            for c, v in solver.moves(w).items():
                expect[c] += v
        assert (sums == expect).all(), (variant, kind)


def test_pimc_means_are_the_solver_values_averaged_over_the_sampled_worlds():
    s = positions("belote", 1, 14, 18, seed0=91)[0]
    solver = Solver()
    rows = Sampler(s, s.to_act).hands(6, 44)
    expect = {}
    for row in rows:
        for c, v in solver.moves(s.with_hands(row)).items():
            expect[card_name(c)] = expect.get(card_name(c), 0) + v / len(rows)
    got = Solver().pimc(s, 6, 44)
    assert got["seat"] == s.to_act and got["worlds"] == 6
    assert got["moves"].keys() == expect.keys()
    assert all(math.isclose(got["moves"][c], expect[c]) for c in expect)


def last_card_positions(variant, kind, count, seed0):
    """Hands played at random to their last card, some with a litige pot or a
    match score, so every way of scoring a hand comes up."""
    out, seed = [], seed0
    while len(out) < count:
        rng = random.Random(seed)
        s = State(variant, seed=seed, litige_pot=rng.choice((0, 0, 81, 162)) if variant == "balout" else 0,
                  match_score=(rng.randrange(120), rng.randrange(120)) if variant == "baloot" else (0, 0))
        seed += 1
        bid_randomly(s, rng, kind)
        if s.is_terminal() or (kind == "sun") != (s.trump_id < 0):
            continue
        while cards_in_hands(s) > 1:
            s.apply_action(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def score_if_played(s: State, card: int) -> float:
    """The acting team's hand score minus the other's once ``card`` is played
    and the hand ends, plus 1/1024 of its card points (PIMC's by-score value)."""
    team = s.to_act & 1
    t = played_out_double_dummy(s, card)
    hs = t.hand_score
    return hs[team] - hs[team ^ 1] + t.card_points[team] / 1024


def test_pimc_by_score_at_the_last_card_is_what_the_hand_scores():
    """At the last card every world is the real deal: the by-score value is
    the hand's own score, made, failed, litige, capot and doubled alike."""
    outcomes = set()
    for variant, kind in CONTRACTS:
        for s in last_card_positions(variant, kind, 150 if variant == "balout" else 60, seed0=1000):
            got = Solver().pimc(s, 1, 7, objective="score")["moves"]
            (card,) = s.legal_actions()
            assert got == {card_name(card): score_if_played(s, card)}, (variant, kind, s.to_record())
            t = s.clone()
            t.apply_action(card)
            outcomes |= {(variant, t.outcome), (variant, "x%d" % s.contract.multiplier)}
            if t.summary()["capot"] is not None:
                outcomes.add((variant, "capot"))
    assert {(v, o) for v in VARIANTS for o in ("made", "failed", "capot")} <= outcomes
    assert {("balout", "litige"), ("baloot", "x2"), ("baloot", "x3"), ("baloot", "x4")} <= outcomes


def test_pimc_by_score_values_each_world_by_its_double_dummy_line():
    """Mid-hand, a world's by-score value of a card is the score of the hand
    played out double-dummy after it (the declarations public, no capot in
    reach at these positions)."""
    for variant, kind in CONTRACTS:
        s = positions(variant, 1, 9, 11, kind=kind, seed0=501)[0]
        expect = mean_over_worlds(s, Sampler(s, s.to_act).hands(3, 21), score_if_played)
        got = Solver().pimc(s, 3, 21, objective="score")["moves"]
        assert got.keys() == expect.keys()
        assert all(math.isclose(got[c], expect[c]) for c in expect), (variant, kind, got, expect)
        points = Solver().pimc(s, 3, 21)["moves"]
        assert got != points


def test_pimc_objective_is_points_or_score():
    s = position("balout", 3, 20)
    before = s.to_record()
    for bad in ("Score", "hand", None, 1):
        with pytest.raises(OptionError, match="objective must be one of points, score"):
            Solver().pimc(s, 2, 1, objective=bad)
    assert s.to_record() == before


def test_pimc_stopped_by_the_clock_searched_the_first_deals_of_the_seed():
    s = positions("balout", 1, 20, 24, seed0=5)[0]
    timed = Solver().pimc(s, worlds=None, seed=9, time_budget=0.02)
    n = timed["worlds"]
    assert n >= 1
    assert Solver().pimc(s, worlds=n, seed=9) == timed
    # a world budget stops a search whose time budget is far away
    capped = Solver().pimc(s, worlds=3, seed=9, time_budget=30.0)
    assert capped == Solver().pimc(s, worlds=3, seed=9)
    legal, sums, done = _core.DoubleDummy().pimc(s, None, 9, 1.0, 0.02)
    assert done >= 1 and legal == s.legal_mask() & 0xFFFFFFFF


def test_pimc_rejects_bad_budgets_and_leaves_the_state_alone():
    s = position("balout", 3, 20)
    before = s.to_record()
    solver = Solver()
    for kwargs, word in ((dict(worlds=None), "time budget"), (dict(worlds=0), "worlds"),
                         (dict(worlds=2.0), "worlds"), (dict(worlds=True), "worlds"),
                         (dict(time_budget=0), "time_budget"), (dict(time_budget=-1.0), "time_budget"),
                         (dict(time_budget=float("nan")), "time_budget"),
                         (dict(time_budget=float("inf")), "time_budget"),
                         (dict(time_budget="0.1"), "time_budget"), (dict(time_budget=True), "time_budget"),
                         (dict(bid_weight=1.5), "bid_weight")):
        with pytest.raises(BaloutError, match=word):
            solver.pimc(s, **kwargs)
    native = _core.DoubleDummy()
    with pytest.raises(ValueError, match="time budget"):
        native.pimc(s, None, 1)
    with pytest.raises(ValueError, match="time_budget"):
        native.pimc(s, 3, 1, 1.0, -0.5)
    with pytest.raises(TypeError, match="worlds"):
        native.pimc(s, "3", 1)
    assert s.to_record() == before


def test_sampler_and_pimc_refuse_bad_seeds():
    """Seeds are integers from 0 to 2**64-1, as for a State (None: fresh entropy)."""
    s = position("balout", 3, 20)
    sampler, solver = Sampler(s, s.to_act), Solver()
    for bad, word in ((-1, "from 0 to"), (1 << 64, "from 0 to"), ("1", "not str"), (1.5, "not float"),
                      (True, "not a bool")):
        with pytest.raises(OptionError, match=word):
            sampler.hands(2, bad)
        with pytest.raises(OptionError, match=word):
            solver.pimc(s, 2, bad)
    top = (1 << 64) - 1
    assert np.array_equal(sampler.hands(3, top), sampler.hands(3, np.uint64(top)))
    assert sampler.hands(2, None).shape == (2, 4)


def test_sampler_refuses_more_worlds_than_memory_allows():
    """A count a few zeros too long is a clear error, not a machine out of
    memory: Sampler.hands stops at 8 GiB of rows (2**29 worlds), as
    simulate does, and Sampler.worlds, a State each, at 2**24."""
    s = position("balout", 3, 20)
    sampler = Sampler(s, s.to_act)
    for call, most in ((sampler.hands, 1 << 29), (sampler.worlds, 1 << 24)):
        with pytest.raises(OptionError, match=f"at most {most:,} at once"):
            call(most + 1, 5)
        with pytest.raises(OptionError, match="GiB"):
            call(10 ** 12, 5)
        with pytest.raises(OptionError, match="n must be"):
            call(-1, 5)
    assert sampler.hands(0, 5).shape == (0, 4) and sampler.worlds(0, 5) == []


def test_search_entry_points_refuse_what_is_not_a_state():
    for bad in (None, "JH", 3):
        for call in (lambda: information_set(bad, 0), lambda: Sampler(bad, 0), lambda: Solver().value(bad),
                     lambda: Solver().moves(bad), lambda: Solver().reaches(bad, 0, 80),
                     lambda: Solver().pimc(bad, 3), lambda: Solver().solve(bad), lambda: solve(bad)):
            with pytest.raises(BaloutError, match="expected a balout State, not"):
                call()


def test_flat_monte_carlo_budgets():
    for s in (State("belote", seed=8), positions("baloot", 1, 20, 24, seed0=3)[0]):
        # a clock already past after the first world stops there: exactly one world
        assert _core.mc_evaluate(s, None, GREEDY, 5, 1.0, 1e-9) == _core.mc_evaluate(s, 1, GREEDY, 5)
        # a distant clock leaves the world budget in charge
        assert _core.mc_evaluate(s, 4, GREEDY, 5, 1.0, 30.0) == _core.mc_evaluate(s, 4, GREEDY, 5)
        assert _core.mc_evaluate(s, 4, GREEDY, 5) != _core.mc_evaluate(s, 1, GREEDY, 5)
    for worlds, budget, word in ((None, None, "time budget"), (0, None, "worlds"), (3, -1.0, "time_budget"),
                                 (None, float("nan"), "time_budget")):
        with pytest.raises(ValueError, match=word):
            _core.mc_evaluate(s, worlds, GREEDY, 5, 1.0, budget)


def test_a_solver_searching_in_one_thread_refuses_a_second_thread():
    import threading
    import time
    s = positions("balout", 1, 24, 28, seed0=12)[0]
    solver = Solver()
    out, started = {}, threading.Event()

    def search():
        started.set()
        out["r"] = solver.pimc(s, worlds=None, time_budget=1.5)

    busy = threading.Thread(target=search)
    busy.start()
    started.wait()
    time.sleep(0.3)   # well inside the 1.5 s search
    with pytest.raises(RuntimeError, match="another thread"):
        solver.value(s)
    busy.join()
    assert out["r"]["worlds"] >= 1
    assert solver.value(s) == Solver().value(s)   # free again once the search is over
    # solve() keeps one solver per thread: concurrent calls agree with a lone call
    results = []
    threads = [threading.Thread(target=lambda: results.append(solve(s))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [solve(s)] * 3


# ------------------------------------------- the auction: stock and inference

GREEDY = 1


def auction_deck(hands5, offer: int, dealer: int) -> list:
    """A deck dealing the 5-card hands ``hands5`` (masks) and the offer."""
    cards = [[c for c in range(32) if m >> c & 1] for m in hands5]
    order = [(dealer + i) % 4 for i in range(1, 5)]
    deck = [c for s in order for c in cards[s][:3]] + [c for s in order for c in cards[s][3:5]]
    deck.append(offer)
    deck += [c for c in range(32) if c not in deck]
    return deck


def passes_to(seat_to_act: int, seed0: int = 0) -> State:
    """A balout auction (dealer 0, offer not a J) where every seat before
    ``seat_to_act`` passed."""
    for seed in range(seed0, seed0 + 50):
        s = State("balout", seed=seed)
        if Card(s.offer_id).rank != "J":
            break
    while s.to_act != seat_to_act:
        s.apply_action("pass")
    return s


def test_the_auction_information_set_hides_the_stock():
    """Before the deal is complete a seat has seen its five cards and the
    offer: the other 26 are anywhere, 15 in hands and 11 in the stock."""
    s = passes_to(3, seed0=10)
    info = information_set(s, 3)
    own = s.hand_masks[3]
    assert int(info.own) == own
    assert int(info.unseen) == 0xFFFFFFFF & ~own & ~(1 << s.offer_id)
    assert info.stock == 11 and info.count == (5, 5, 5, 5)
    sp = Sampler(s, 3)
    assert sp.count == math.comb(26, 5) * math.comb(21, 5) * math.comb(16, 5)
    rows = sp.hands(20000, 4).astype(np.int64)
    dealt = sum(s.hand_masks[p] for p in range(3))
    stock = int(info.unseen) & ~dealt
    assert all(popcount(int(r[p])) == 5 for r in rows[:200] for p in range(4))
    assert (rows[:, 3] == own).all()
    assert ((rows[:, 0] | rows[:, 1] | rows[:, 2]) & ~int(info.unseen) == 0).all()
    # the real split leaks nowhere: stock cards reach the hands as often as dealt ones
    for p in range(3):
        freq = [float(((rows[:, p] >> c) & 1).mean()) for c in range(32) if int(info.unseen) >> c & 1]
        assert max(abs(f - 5 / 26) for f in freq) < 0.02, p
    in_stock = [float(((rows[:, 0] >> c) & 1).mean()) for c in range(32) if stock >> c & 1]
    assert len(in_stock) == 11 and min(in_stock) > 0.15


def test_bid_weight_one_is_the_uniform_sampler():
    s = position("belote", 5, 20)
    sp = Sampler(s, s.to_act)
    assert (sp.hands(300, 8) == sp.hands(300, 8, 1.0)).all()
    assert (sp.hands(300, 8, 0.5) != sp.hands(300, 8)).any()
    check_worlds(s, s.to_act, sp.hands(300, 8, 0.0))


def greedy_explains(s: State, observer: int, row) -> bool:
    """Would the greedy bidder have made every bid of s's auction, other
    than the observer's, holding the world ``row`` (5-card hands)?"""
    world = State(s.variant, deck=auction_deck(row, s.offer_id, s.dealer), dealer=s.dealer)
    for phase, seat, a in s.history():
        if phase != "auction":
            break
        if seat != observer and _core.policy_action(world, GREEDY, 0) != a:
            return False
        world.apply_action(a)
    return True


def test_bid_weight_zero_keeps_only_worlds_that_explain_the_bids():
    s = passes_to(3, seed0=20)                     # seats 1 and 2 passed
    sp = Sampler(s, 3)
    weighted = sp.hands(300, 2, 0.0)
    assert all(greedy_explains(s, 3, r) for r in weighted)
    uniform = sp.hands(300, 2)
    assert not all(greedy_explains(s, 3, r) for r in uniform)   # the check can fail


def greedy_bids_like(s: State, seat: int, five: int) -> bool:
    """Would the greedy bidder holding the five cards ``five`` have made
    every bid of ``seat`` in s's auction? (The other seats' cards do not
    matter: the greedy bidder reads only its own and the public auction.)"""
    rest = iter(c for c in range(32) if not five >> c & 1 and c != s.offer_id)
    hands5 = [five if p == seat else sum(1 << next(rest) for _ in range(5)) for p in range(4)]
    world = State(s.variant, deck=auction_deck(hands5, s.offer_id, s.dealer), dealer=s.dealer)
    for phase, p, a in s.history():
        if phase != "auction":
            break
        if p == seat and _core.policy_action(world, GREEDY, 0) != a:
            return False
        world.apply_action(a)
    return True


def test_bid_weight_zero_after_the_deal_explains_the_bids():
    """Once the deal is complete a seat bid on five of its eight cards (not
    the offer it received): in every world weighted with bid_weight 0, each
    other seat holds five with which the greedy bidder bids as it did."""

    def explained(s, observer, row, played) -> bool:
        for p in {p for phase, p, _ in s.history() if phase == "auction" and p != observer}:
            eight = int(row[p]) | played[p]
            if p == s.receiver:
                eight &= ~(1 << s.offer_id)
            cards = [c for c in range(32) if eight >> c & 1]
            if not any(greedy_bids_like(s, p, sum(1 << c for c in five))
                       for five in itertools.combinations(cards, 5)):
                return False
        return True

    uniform_failed = 0
    for seed in range(6):
        s = State("balout", seed=seed)
        while s.phase != "play":
            s.apply_action(_core.policy_action(s, GREEDY, 0))
        for _ in range(5):                 # a trick and the next lead
            s.apply_action(_core.policy_action(s, GREEDY, 0))
        observer = s.to_act
        played = [0] * 4
        for phase, p, a in s.history():
            if phase == "play":
                played[p] |= 1 << a
        sp = Sampler(s, observer)
        for row in sp.hands(20, seed, 0.0).astype(np.int64):
            assert explained(s, observer, row, played), seed
        uniform = sp.hands(20, seed).astype(np.int64)
        uniform_failed += not all(explained(s, observer, r, played) for r in uniform)
    assert uniform_failed > 0               # the check can fail


def _world_deck(s, row):
    """A deck that deals the world `row` (current hands) as the engine deals:
    five cards a seat in chunks of 3 and 2, the offer, then the rest (the
    receiver's two besides the offer)."""
    dealt = [int(row[p]) | (int(s.dealt_masks[p]) & ~int(s.hand_masks[p])) for p in range(4)]
    order = [(s.dealer + i) % 4 for i in range(1, 5)]
    cards = [[c for c in range(32) if dealt[p] >> c & 1 and not (p == s.receiver and c == s.offer_id)]
             for p in range(4)]
    deck = []
    for first, n in ((0, 3), (3, 2)):
        for p in order:
            deck += cards[p][first:first + n]
    deck.append(s.offer_id)
    for p in order:
        deck += cards[p][5:]
    return deck


def _plays_explained(s, observer, row) -> bool:
    """Replays the hand on the world's deal: does the greedy player make
    every play of the observer's opponents?"""
    t = State(s.variant, deck=_world_deck(s, row), dealer=s.dealer, options=s.options)
    for a in s.action_history:
        if t.phase == "play" and (t.to_act - observer) % 2 == 1 and _core.policy_action(t, GREEDY, 0) != a:
            return False
        t.apply_action(a)
    assert [int(m) for m in t.hand_masks] == [int(m) for m in row]     # the world, replayed
    return True


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_play_weight_zero_keeps_worlds_where_the_opponents_played_greedily(variant):
    """Opponents that play like the greedy player: with play_weight 0 every
    world explains each of their cards; uniform worlds often do not."""
    uniform_failed = checked = 0
    for seed in range(12):
        s = State(variant, seed=seed)
        while not s.is_terminal() and not (s.phase == "play" and s.tricks_played >= 2):
            s.apply_action(_core.policy_action(s, GREEDY, 0))
        if s.is_terminal():
            continue
        observer = s.to_act
        sp = Sampler(s, observer)
        for row in sp.hands(12, seed, play_weight=0.0).astype(np.int64):
            assert _plays_explained(s, observer, row), (variant, seed)
        uniform_failed += sum(not _plays_explained(s, observer, r) for r in sp.hands(12, seed).astype(np.int64))
        checked += 1
    assert checked >= 8 and uniform_failed > 0               # the check can fail


def test_play_weight_stops_reading_plays_that_no_world_explains():
    """Opponents that play at random: no world explains their plays; after
    the first world (256 draws) the others are drawn without reading them,
    and every world is still a deal of the information set."""
    s = State("balout", seed=5)
    rng = np.random.default_rng(5)
    while not (s.phase == "play" and s.tricks_played >= 4):
        legal = s.legal_actions()
        s.apply_action(int(rng.choice(legal)) if s.phase == "play" else _core.policy_action(s, GREEDY, 0))
    observer = s.to_act
    read = Sampler(s, observer).hands(40, 9, play_weight=0.0).astype(np.int64)
    assert len(read) == 40 and not any(_plays_explained(s, observer, r) for r in read)
    info = information_set(s, observer)      # still deals of the information set
    for r in read:
        assert int(r[observer]) == int(info.own)
        for p in range(4):
            assert int(r[p]) & int(info.forbidden[p]) == 0 and int(r[p]) & int(info.known[p]) == int(info.known[p])
            assert bin(int(r[p])).count("1") == info.count[p]


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_worlds_after_random_bids_stay_deals_of_the_information_set(variant):
    """Random bids and plays, which the greedy model seldom explains (then
    the worlds after the first stop reading the plays and keep the best of
    fewer draws): every world read with bid_weight and play_weight 0 is
    still a deal of the information set, the draws repeat under the seed,
    and the first worlds do not depend on how many are drawn."""
    rng = random.Random(variant)
    for seed in range(8):
        s = State(variant, seed=300 + seed)
        while not s.is_terminal() and not (s.phase == "play" and s.tricks_played >= 1):
            s.apply_action(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        for seat in (s.to_act, s.to_act ^ 1):
            sp = Sampler(s, seat)
            read = sp.hands(30, seed, 0.0, 0.0)
            check_worlds(s, seat, read)
            assert (read == sp.hands(30, seed, 0.0, 0.0)).all()
            assert (read[:3] == sp.hands(3, seed, 0.0, 0.0)).all()


def test_a_voluntary_take_draws_the_trump_honours_to_the_taker():
    """After a round-1 take that was not forced, the taker holds the J or 9
    of trump in far more of the weighted worlds than of the uniform ones."""
    seen = 0
    for seed in range(200):
        s = State("balout", seed=seed)
        if Card(s.offer_id).rank == "J":
            continue
        while s.phase == "auction":
            s.apply_action(_core.policy_action(s, GREEDY, 0))
        if s.bidder < 0 or s.trump_id != Card(s.offer_id).suit_index:
            continue
        while s.phase != "play":
            s.apply_action(s.legal_actions()[0])
        observer = s.bidder ^ 1
        honours = sum(1 << int(Card(r + s.trump)) for r in "J9") & ~s.hand_masks[observer] & ~(1 << s.offer_id)
        if not honours:
            continue
        sp = Sampler(s, observer)
        share = [float(((sp.hands(2000, 3, w)[:, s.bidder].astype(np.int64) & honours) != 0).mean())
                 for w in (1.0, 0.0)]
        assert share[1] > share[0] + 0.15, (seed, share)
        seen += 1
        if seen == 5:
            break
    assert seen == 5


def test_bad_bid_weight():
    s = position("balout", 3, 20)
    for bad in (-0.1, 1.5, float("nan"), "0.5", None, True):
        with pytest.raises(BaloutError, match="bid_weight"):
            Sampler(s, 0).hands(5, 1, bad)
        with pytest.raises(BaloutError, match="play_weight"):
            Sampler(s, 0).hands(5, 1, play_weight=bad)
        with pytest.raises(BaloutError, match="play_weight"):
            Solver().pimc(s, 3, play_weight=bad)
    for bad in (-0.1, 1.01, float("nan")):
        with pytest.raises(ValueError, match="play_weight"):
            _core.mc_evaluate(s, 5, GREEDY, 1, play_weight=bad)
        with pytest.raises(ValueError, match="play_weight"):
            _core.DoubleDummy().pimc(s, 3, 1, play_weight=bad)
    for bad in (-0.1, 1.01, float("nan")):
        with pytest.raises(ValueError, match="bid_weight"):
            _core.mc_evaluate(s, 5, GREEDY, 1, bad)
        with pytest.raises(ValueError, match="bid_weight"):
            _core.DoubleDummy().pimc(s, 3, 1, bad)
    with pytest.raises(ValueError, match="worlds"):
        _core.DoubleDummy().pimc(s, 0, 1)


# ------------------------------------------------------------------- solver

def _endings():
    """Random endings (12-16 cards left, some mid-trick) for every contract."""
    out = []
    for k, (variant, kind) in enumerate(CONTRACTS):
        out += positions(variant, 150, 12, 16, kind=kind, seed0=10_000 * (k + 1))
    return out


@pytest.fixture(scope="module")
def endings():
    return _endings()


@pytest.fixture(scope="module")
def brute(endings):
    return [_core.bruteforce_value(s) for s in endings]


def test_endings_cover_the_cases(endings):
    assert len(endings) == 600
    assert any(s.trump_id < 0 for s in endings) and any(s.trump_id >= 0 for s in endings)
    assert sum(1 for s in endings if len(s.trick_ids) > 0) >= 40     # mid-trick
    assert {s.variant for s in endings} == set(VARIANTS)
    assert {cards_in_hands(s) for s in endings} == set(range(12, 17))


def test_value_equals_bruteforce(endings, brute):
    solver = Solver()
    for s, b in zip(endings, brute):
        assert Solver().value(s) == b, s.to_record()
        assert solver.value(s) == b, s.to_record()     # one solver, table reused
        assert 0 <= b <= total_of(s)


def strongest_trump_side(s: State) -> int:
    """The side (0 or 1) holding the strongest trump left in the hands."""
    for rank in "J9ATKQ87":
        c = int(Card(rank + "SHDC"[s.trump_id]))
        for seat, h in enumerate(s.hand_masks):
            if h >> c & 1:
                return seat & 1
    return -1


def test_sure_trumps_of_the_side_not_on_lead_keep_values_exact(endings, brute):
    """Trick starts where the side not on lead holds the strongest trump
    left, whose run of top trumps bounds the leading side's points: the
    value and both thresholds around it against brute force."""
    n = 0
    solver = Solver()
    for s, b in zip(endings, brute):
        if s.trump_id < 0 or s.trick_ids or strongest_trump_side(s) != (s.to_act & 1) ^ 1:
            continue
        team = s.to_act & 1
        assert solver.value(s) == b, s.to_record()
        assert Solver().reaches(s, team, b) and not Solver().reaches(s, team, b + 1), s.to_record()
        assert Solver().reaches(s, team ^ 1, total_of(s) - b), s.to_record()
        assert not Solver().reaches(s, team ^ 1, total_of(s) - b + 1), s.to_record()
        n += 1
    assert n >= 50


SUN_CARDS = {suit: [int(Card(rank + suit)) for rank in "ATKQJ987"] for suit in "SHDC"}   # strongest first


def suit_cards(suit: str) -> list:
    return SUN_CARDS[suit]


def masters_of(hands, seat: int, suit: str) -> int:
    """How many of the strongest cards left of a suit the seat holds in a row."""
    k = 0
    for c in suit_cards(suit):
        if hands[seat] >> c & 1:
            k += 1
        elif any(h >> c & 1 for h in hands):
            break
    return k


def partner_holds_an_entry(s: State) -> bool:
    """In Sun, does the partner of the seat to act hold the strongest card
    left of a suit the seat to act holds?"""
    hands, me = s.hand_masks, s.to_act
    return any(masters_of(hands, (me + 2) & 3, suit) and any(hands[me] >> c & 1 for c in suit_cards(suit))
               for suit in "SHDC")


def runs_a_long_suit(s: State) -> bool:
    """In Sun, does the seat to act or its partner hold k masters of a suit,
    more cards of it than k, and no other hand more than k of it?"""
    hands = s.hand_masks
    for seat in (s.to_act, (s.to_act + 2) & 3):
        for suit in "SHDC":
            lengths = [sum(h >> c & 1 for c in suit_cards(suit)) for h in hands]
            k = masters_of(hands, seat, suit)
            if 0 < k < lengths[seat] and all(lengths[o] <= k for o in range(4) if o != seat):
                return True
    return False


def small_solver() -> Solver:
    """A fresh solver whose table is cheap to make."""
    return Solver(table_bits=12)


def assert_value_and_thresholds_exact(solver: Solver, s: State) -> None:
    """The value (from a solver whose table is kept) against brute force, and
    reaches() on both sides of it for both teams (each from a fresh table)."""
    b, team = _core.bruteforce_value(s), s.to_act & 1
    assert solver.value(s) == b, s.to_record()
    assert small_solver().reaches(s, team, b) and not small_solver().reaches(s, team, b + 1), s.to_record()
    assert small_solver().reaches(s, team ^ 1, total_of(s) - b), s.to_record()
    assert not small_solver().reaches(s, team ^ 1, total_of(s) - b + 1), s.to_record()


def test_quick_tricks_in_sun_keep_values_exact():
    """Sun trick starts where the quick-trick bound counts more than the
    leader's masters: the partner holds the master of a suit the leader holds
    (an entry to the partner's masters), or a hand of the leading side runs a
    suit once the other hands are out of it. The value and both thresholds
    around it, for both teams, against brute force."""
    entries = runs = 0
    solver = Solver()
    for cards in (12, 16):
        for s in positions("baloot", 1500, cards, cards, kind="sun", seed0=90_000 + cards):
            entry, run = partner_holds_an_entry(s), runs_a_long_suit(s)
            if s.trick_ids or not (entry or run):
                continue
            assert_value_and_thresholds_exact(solver, s)
            entries += entry
            runs += run
    assert entries >= 800 and runs >= 400


# Sun trick starts (16 cards left) where the partner's masters, two or more
# in a suit, bring the quick-trick bound within a point of the value: found
# by a search of random positions against a build that overcounted them.
TIGHT_PARTNER_BOUNDS = [
    ("7C QC 9H TH QS KC JS TC KD 7D TD QD AC 8H 9S TS KH 9C KS 8D AS QH 8C 7S JD AD 8S 7H JH AH JC 9D",
     "AC KC TC JC QC QS 9C TD 7C TS JH 8D QH TH KH AH"),
    ("AH TH 8S 8D 7D TC 7C AC KS KD 8C JH QS 9H 9D QC 7H AS JC 9S TD KH JS KC AD 8H 9C TS QH QD JD 7S",
     "TH 8H QH JH TD 9D KS JD QS AD TS 9S 9C 8C AH KC"),
    ("KS QC 7D 8S AD JC 7C TS 9C 7H JD TH AH 9S JS 7S KH 9D AC KC TC KD TD QH QS JH 8C AS 9H 8H 8D QD",
     "TC JC 8C KC TD AD 9D QD QH 9H 7H AH KD JH 7C JD"),
]


def test_partners_quick_tricks_where_the_bound_is_tight():
    """The positions above: the value and both thresholds against brute force
    (a bound a point or two too high changes a threshold)."""
    for deck, plays in TIGHT_PARTNER_BOUNDS:
        s = State.from_record({"variant": "baloot", "options": {}, "dealer": 0, "deck": deck.split(),
                               "bids": ["sun"], "doubling": [], "plays": plays.split()})
        assert s.trump_id < 0 and not s.trick_ids and partner_holds_an_entry(s)
        assert_value_and_thresholds_exact(Solver(), s)


def only_the_partner_holds_trumps(s: State) -> bool:
    """In a trump contract, are the seat to act and the opponents out of trumps?"""
    hands, me = s.hand_masks, s.to_act
    return (hands[me] | hands[(me + 1) & 3] | hands[(me + 3) & 3]) & suit_mask("SHDC"[s.trump_id]) == 0


def test_partners_quick_tricks_in_trump_contracts_keep_values_exact():
    """Trump contracts, trick starts where no hand but the leader's partner
    holds a trump and the partner holds the master of a suit the leader holds
    (an entry to the partner's masters, trumps included, which the
    quick-trick bound counts): the value and both thresholds around it, for
    both teams, against brute force."""
    n = 0
    solver = Solver()
    for k, (variant, kind) in enumerate(CONTRACTS[:3]):
        for cards in (12, 16):
            for s in positions(variant, 1500, cards, cards, kind=kind, seed0=91_000 + 10 * k + cards):
                if s.trick_ids or not only_the_partner_holds_trumps(s) or not partner_holds_an_entry(s):
                    continue
                assert_value_and_thresholds_exact(solver, s)
                n += 1
    assert n >= 300


def test_value_of_a_full_deal_is_its_best_cards_value():
    """From the first lead, value() (the first card valued exactly, the
    others tested against it) and moves() (every card valued exactly) are
    two searches: the value is the best card's, in every contract."""
    spread = 0
    for k, (variant, kind) in enumerate(CONTRACTS):
        for s in positions(variant, 6, 32, 32, kind=kind, seed0=40_000 + 100 * k):
            assert cards_in_hands(s) == 32 and not s.trick_ids
            moves = Solver().moves(s)
            assert Solver().value(s) == max(moves.values()), s.to_record()
            spread += len(set(moves.values())) > 2
    assert spread >= 12     # most deals: the cards' values differ


@pytest.fixture(scope="module")
def plain_solver(tmp_path_factory):
    """benchmarks/reference/plain_dd.c built and loaded (the project's build
    needs a C compiler, so it is there wherever balout was built)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "reference"))
    import reference
    lib = reference.build("plain_dd", str(tmp_path_factory.mktemp("plain_dd")))
    solver = reference.PlainSolver(lib, table_bits=18)
    yield solver
    solver.close()


@pytest.mark.parametrize("variant,kind", CONTRACTS)
def test_whole_deals_agree_with_an_independent_plain_solver(plain_solver, variant, kind):
    """The value from the first lead, and from the trick starts with 24 and
    16 cards left after random play, against the plain alpha-beta of the
    benchmarks (its own rules code, no pruning beyond alpha-beta): the card
    points already taken plus what it finds for the rest."""
    solver, n = Solver(), 0
    for seed in range(50_000 + 1000 * len(variant) + (kind == "sun"), 10**6):
        for cards in (32, 24, 16):
            s = position(variant, seed, cards, kind)
            if s is None or s.phase != "play":
                break
            assert not s.trick_ids and cards_in_hands(s) == cards
            rest, nodes = plain_solver.rest(s)
            assert nodes > 0
            assert solver.value(s) == s.card_points[s.to_act & 1] + rest, s.to_record()
            n += cards == 32
        if n == 6:
            break


RULE_OPTIONS = [None, {"overtrump_when_cutting": False}, {"undertrump": False},
                {"partner_winning_frees": False}, {"declarations": "choice"}]


def test_short_endings_under_every_rule_option():
    """1-11 cards left (the forced last trick included), every contract and
    the legality options: value and each card's value against brute force."""
    solver = Solver()
    n = 0
    for k, (variant, kind) in enumerate(CONTRACTS):
        for j, opts in enumerate(RULE_OPTIONS):
            for s in positions(variant, 12, 1, 11, kind=kind, options=opts, seed0=20_000 + 100 * (5 * k + j)):
                b = _core.bruteforce_value(s)
                assert solver.value(s) == b, s.to_record()
                for c, v in solver.moves(s).items():
                    assert v == child_value_for_parent(s, int(c)), (s.to_record(), card_name(c))
                n += 1
    assert n == 4 * 5 * 12


def test_twin_cards_and_shapes_keep_values_exact_under_every_rule_option():
    """3-4 tricks left, where the search skips a card whose twin (same suit
    and hand, no present card between them) already bounds it, and a trick
    start that a searched position of the same shape bounds: the value and
    each card's value against brute force, for every contract and legality
    option."""
    solver = Solver()
    n = 0
    for k, (variant, kind) in enumerate(CONTRACTS):
        for j, opts in enumerate(RULE_OPTIONS):
            for s in positions(variant, 3, 12, 16, kind=kind, options=opts, seed0=30_000 + 100 * (5 * k + j)):
                assert solver.value(s) == _core.bruteforce_value(s), s.to_record()
                for c, v in solver.moves(s).items():
                    assert v == child_value_for_parent(s, int(c)), (s.to_record(), card_name(c))
                n += 1
    assert n == 4 * 5 * 3


def test_small_table_forces_replacements_without_changing_values(endings, brute):
    solver = Solver(table_bits=10)
    for s, b in zip(endings, brute):
        assert solver.value(s) == b, s.to_record()


def test_moves_match_bruteforce_of_each_child(endings, brute):
    solver = Solver()
    for s, b in list(zip(endings, brute))[::2]:
        moves = solver.moves(s)
        assert set(moves) == {Card(c) for c in s.legal_actions()}
        assert all(isinstance(c, Card) for c in moves)
        for c, v in moves.items():
            assert v == child_value_for_parent(s, int(c)), (s.to_record(), card_name(c))
        assert max(moves.values()) == b


def test_reaches_is_a_threshold_at_the_value(endings, brute):
    solver = Solver()
    for i, (s, b) in enumerate(zip(endings, brute)):
        total = total_of(s)
        me = s.to_act & 1
        values = {me: b, 1 - me: total - b}
        targets = range(-1, total + 2) if i % 50 == 0 else \
            sorted({-1, 0, 1, total, total + 1, *range(b - 3, b + 4), *range(total - b - 3, total - b + 4)})
        for team in (0, 1):
            for t in targets:
                assert solver.reaches(s, team, t) == (t <= values[team]), \
                    (s.to_record(), team, t, values[team])


def test_values_from_each_side_add_up_to_the_total(endings, brute):
    """Each team's exact value found by bisection on reaches(), and the value
    of the team to act one card later from the other side, add up."""
    solver = Solver()
    for s, b in list(zip(endings, brute))[::4]:
        total = total_of(s)
        team_values = []
        for team in (0, 1):
            lo, hi = 0, total
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if solver.reaches(s, team, mid):
                    lo = mid
                else:
                    hi = mid - 1
            team_values.append(lo)
        assert sum(team_values) == total
        assert team_values[s.to_act & 1] == b
        # value of the best card, seen by the side to act next
        moves = solver.moves(s)
        best = max(moves, key=moves.get)
        t = s.clone()
        t.apply_action(int(best))
        if not t.is_terminal():
            v = solver.value(t)
            mine = v if (t.to_act & 1) == (s.to_act & 1) else total - v
            assert mine == b


def test_solve_result_shape_and_module_function(endings, brute):
    for s, b in list(zip(endings, brute))[::10]:
        r = solve(s)
        assert r["seat"] == s.to_act and r["value"] == b
        assert set(r["moves"]) == set(s.legal_action_strings())
        assert list(r["moves"]) == sorted(r["moves"], key=lambda n: int(Card(n)))
        assert r["value"] == max(r["moves"].values())
        assert Solver().solve(s) == r
    with pytest.raises(BaloutError):
        solve("not a state")


def test_full_deal_solve_is_the_max_of_moves():
    done = 0
    for variant, kind in CONTRACTS[:1] + CONTRACTS[2:]:
        s = positions(variant, 1, 32, 32, kind=kind, seed0=4242)[0]
        assert cards_in_hands(s) == 32 and len(s.trick_ids) == 0
        r = Solver().solve(s)
        assert r["value"] == max(r["moves"].values()) == Solver().value(s)
        assert Solver().reaches(s, s.to_act & 1, r["value"])
        assert not Solver().reaches(s, s.to_act & 1, r["value"] + 1)
        done += 1
    assert done == 3


def test_table_reuse_across_positions_and_contracts():
    """Interleave calls on positions of different contracts in one solver; the
    answers are those of fresh solvers (and of brute force when small)."""
    states = []
    for k, (variant, kind) in enumerate(CONTRACTS):
        states += positions(variant, 3, 16, 24, kind=kind, seed0=555 + 31 * k)
    rng = random.Random(3)
    fresh = {}
    for i, s in enumerate(states):
        fresh[i] = (Solver().value(s), Solver().moves(s))
    shared = Solver()
    order = list(range(len(states))) * 2
    rng.shuffle(order)
    for i in order:
        s = states[i]
        if rng.random() < 0.5:
            assert shared.value(s) == fresh[i][0], (i, s.to_record())
        else:
            assert shared.moves(s) == fresh[i][1], (i, s.to_record())
        assert shared.reaches(s, s.to_act & 1, fresh[i][0])
        assert not shared.reaches(s, s.to_act & 1, fresh[i][0] + 1)
    for i, s in enumerate(states):
        if cards_in_hands(s) <= 16:
            assert fresh[i][0] == _core.bruteforce_value(s)


def test_same_deal_under_different_contracts_in_one_solver():
    """One deck, several contracts: the table must not carry values across."""
    shared = Solver()
    results = []
    for bids in (["hokm"], ["sun"], ["pass"] * 4 + ["hokm:H"], ["pass"] * 4 + ["hokm:D"]):
        for seed in range(20):
            s = State("baloot", seed=seed)
            try:
                for b in bids:
                    s.apply_action(b)
                while s.phase in ("auction", "doubling"):
                    s.apply_action("pass")
            except BaloutError:
                continue
            if s.phase != "play":
                continue
            rng = random.Random(seed)
            while cards_in_hands(s) > 16:
                s.apply_action(rng.choice(s.legal_actions()))
            results.append(s)
            break
    assert len(results) >= 3
    for _ in range(2):
        for s in results:
            assert shared.value(s) == _core.bruteforce_value(s), s.to_record()


def test_same_position_under_different_rule_options_in_one_solver():
    """A position replayed under looser legality (no over-/under-trump duty):
    one solver alternating between the two must answer as brute force."""
    pairs, differ = [], 0
    for k, (variant, kind) in enumerate(CONTRACTS):
        if kind == "sun":
            continue
        for s in positions(variant, 150, 12, 16, kind=kind, seed0=31_000 + 1000 * k):
            rec = s.to_record()
            loose = dict(rec, options={**rec.get("options", {}), "undertrump": False,
                                       "overtrump_when_cutting": False})
            t = State.from_record(loose)
            assert tuple(t.hand_masks) == tuple(s.hand_masks)
            if Solver().value(s) != Solver().value(t) or len(pairs) < 10:
                bs, bt = _core.bruteforce_value(s), _core.bruteforce_value(t)
                pairs.append((s, bs, t, bt))
                differ += bs != bt
    assert differ >= 3          # the options do change some values
    shared = Solver()
    for _ in range(2):
        for s, bs, t, bt in pairs:
            assert shared.value(s) == bs, s.to_record()
            assert shared.value(t) == bt, t.to_record()


def test_declare_phase_is_solved_as_play():
    s = None
    for seed in range(50):
        t = State("baloot", seed=seed, options={"declarations": "choice"})
        bid_randomly(t, random.Random(seed), "hokm")
        if t.phase != "play":
            continue
        rng = random.Random(seed)
        while t.phase == "play" and not t.is_terminal() and t.tricks_played == 0:
            t.apply_action(rng.choice(t.legal_actions()))
        if t.phase == "declare":
            s = t
            break
    assert s is not None
    v = Solver().value(s)
    assert 0 <= v <= total_of(s)
    assert v == max(Solver().moves(s).values())


# ------------------------------------------------------------- bad input

def test_solver_rejects_positions_outside_the_play():
    s = State("balout", seed=1)
    assert s.phase == "auction"
    solver = Solver()
    for call in (lambda: solver.value(s), lambda: solver.moves(s), lambda: solver.solve(s),
                 lambda: solver.reaches(s, 0, 10), lambda: solve(s), lambda: _core.bruteforce_value(s),
                 lambda: _core.DoubleDummy().pimc(s, 3, 1)):
        with pytest.raises(BaloutError):
            call()
    done = position("balout", 2, 32)
    rng = random.Random(0)
    while not done.is_terminal():
        done.apply_action(rng.choice(done.legal_actions()))
    with pytest.raises(BaloutError):
        solver.value(done)


def test_bad_table_bits_team_and_target():
    for bad in (9, 27, -1, "18", 18.0, None, True):
        with pytest.raises(BaloutError):
            Solver(table_bits=bad)
    Solver(table_bits=10)
    s = position("belote", 4, 12)
    for bad in (2, -1, "0", None):
        with pytest.raises(BaloutError):
            Solver().reaches(s, bad, 10)
    with pytest.raises(BaloutError):
        Solver().reaches(s, 0, 1001)
    with pytest.raises(ValueError):
        _core.DoubleDummy(9)


# ------------------------------------------------------------------ the CLI

def run_cli(*args):
    p = subprocess.run([sys.executable, "-m", "balout", *map(str, args)], capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_cli_solve_json(tmp_path):
    states = [positions(v, 1, 12, 15, kind=k, seed0=88)[0] for v, k in CONTRACTS]
    path = tmp_path / "pos.jsonl"
    path.write_text("".join(json.dumps(s.to_record()) + "\n" for s in states))
    rc, out, err = run_cli("solve", path, "--json")
    assert rc == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == len(states)
    for s, obj in zip(states, lines):
        assert set(obj) == {"seat", "value", "moves"}
        assert obj["seat"] == s.to_act
        moves = Solver().moves(s)
        assert obj["moves"] == {card_name(c): v for c, v in moves.items()}
        assert obj["value"] == max(moves.values()) == _core.bruteforce_value(s)
    rc, text, err = run_cli("solve", path)
    assert rc == 0 and len(text.splitlines()) == len(states)
    assert f"value {lines[0]['value']}" in text.splitlines()[0]


def test_cli_solve_error_entry_and_exit_status(tmp_path):
    good = positions("balout", 1, 12, 12, seed0=5)[0]
    auction = State("balout", seed=9).to_record()
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(good.to_record()) + "\n" + json.dumps(auction) + "\n")
    rc, out, err = run_cli("solve", path, "--json")
    assert rc != 0
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 2
    assert lines[0]["value"] == Solver().value(good)
    assert lines[1]["record"] == 1 and "play phase" in lines[1]["error"]
    assert "value" not in lines[1]


def test_positions_equal_up_to_played_zero_point_cards_share_a_table_entry():
    """Leading 7C or 8C into the same trick leaves positions that differ only
    by which of the two the leader still holds: the same game (relative
    ranks), one transposition entry, the same values card for card."""
    hands = ["AC TC AS TS KH 9S 9D JD", "KC QC 7S 8S AH TH 7D 8D",
             "JC 9C JS QH JH 9H AD TD", "7C 8C QS KS 7H 8H QD KD"]
    after = []
    for lead in ("7C", "8C"):
        s = state_for(hands, offer="QH", receiver=2, dealer=3, bids=["pass", "pass", "take"])
        assert s.to_act == 3 and s.trump == "H"
        after.append(play(s, [lead, "AC", "KC", "9C"]))
    first, second = after
    assert first.card_points == second.card_points == (15, 0)
    shared = Solver(table_bits=20)
    v = shared.value(first)
    n0 = shared.nodes
    assert shared.value(second) == v == Solver().value(second)
    reuse = shared.nodes - n0
    assert reuse <= 2  # answered by the first search's root entry
    fresh = Solver()
    fresh.value(second)
    assert fresh.nodes > 25 * reuse
    m1, m2 = Solver().moves(first), Solver().moves(second)
    rename = {Card("8C"): Card("7C")}
    assert {rename.get(c, c): x for c, x in m1.items()} == m2


def test_a_cleared_solver_searches_as_a_fresh_one():
    """clear() forgets the table and the leads it remembers (the killers,
    and the last lead that cut for the leading side's cards): after other
    deals' searches, the same value in the same number of nodes as a fresh
    solver."""
    for variant, kind in (("balout", None), ("baloot", "sun"), ("baloot", "hokm")):
        used = _core.DoubleDummy(12)
        for s in positions(variant, 3, 24, 28, kind, seed0=40):
            used.value(s)
        for s in positions(variant, 3, 24, 28, kind, seed0=50):
            used.clear()
            n0 = used.nodes
            value = used.value(s)
            fresh = _core.DoubleDummy(12)
            assert (value, used.nodes - n0) == (fresh.value(s), fresh.nodes)


def test_positions_of_one_shape_bound_each_other_by_their_points():
    """The second player follows with KC or QC: the positions after the
    trick have one shape (the same hands hold the k-th club of each rank
    order) but not the same points. The table entry of one bounds the other,
    widened by the points: the answer comes in a few nodes, and it is the
    fresh solver's, although the two futures differ by the KC's extra point."""
    hands = ["AC TC AS TS KH 9S 9D JD", "KC QC 7S 8S AH JH 7D AD",
             "JC 9C JS QH TH 9H 8D TD", "7C 8C QS KS 7H 8H QD KD"]
    after = []
    for second in ("KC", "QC"):
        s = state_for(hands, offer="QH", receiver=2, dealer=3, bids=["pass", "pass", "take"])
        after.append(play(s, ["7C", "AC", second, "9C"]))
    with_q, with_k = after  # seat 1 still holds QC, or KC
    assert with_q.card_points == (15, 0) and with_k.card_points == (14, 0)
    shared = Solver()
    v = shared.value(with_q)
    n0 = shared.nodes
    fresh = Solver()
    assert shared.value(with_k) == fresh.value(with_k) == v == 120
    assert shared.nodes - n0 < fresh.nodes / 10
    assert shared.moves(with_k) == Solver().moves(with_k)


@pytest.mark.parametrize("variant,options", [("balout", None), ("belote", {"declarations": "choice"}),
                                             ("baloot", None)])
def test_review_costs_add_up_to_the_points_each_team_made(variant, options):
    """Solver.review: along any play, a team's final card points are its
    double-dummy value at the first card, minus its own cards' costs, plus
    the other team's; every cost is a real gap between a card and the best."""
    from balout.bots import make_bot
    rng = random.Random(f"review-{variant}")
    solver = Solver()
    checked = 0
    for seed in range(12):
        s = State(variant, seed=seed, options=options)
        players = [make_bot(rng.choice(["random", "easy"]), seed) for _ in range(4)]
        while not s.is_terminal():
            s.apply_action(players[s.to_act].act(s))
        plays = solver.review(s)
        if not s.tricks_played:
            assert plays == []                                       # thrown in: no card to value
            continue
        assert [p["card"] for p in plays] == [card_name(c) for _, c in s._split_history()[3]]
        total = 130 if s.kind_id == 2 else 162
        first = plays[0]
        v0 = first["best"] if first["seat"] % 2 == 0 else total - first["best"]
        cost = [sum(p["cost"] for p in plays if p["seat"] % 2 == t) for t in (0, 1)]
        assert s.card_points[0] == v0 - cost[0] + cost[1]
        for p in plays:
            assert p["cost"] == p["best"] - p["value"] >= 0 and (p["cost"] == 0) == (p["card"] in p["best_cards"])
        assert plays[-1]["cost"] == 0 and plays[-1]["trick"] == 8                # the last card is forced
        checked += 1
    assert checked >= 8


def test_review_of_double_dummy_play_costs_nothing():
    from balout.bots import make_bot
    s = State("belote", seed=21)
    cheat = make_bot("cheat", 1)
    while not s.is_terminal():
        s.apply_action(cheat.act(s))
    plays = Solver().review(s)
    assert len(plays) == 32 and all(p["cost"] == 0 for p in plays)
    assert plays[0]["best"] == Solver().value(State.from_record({**s.to_record(), "plays": []}))
    with pytest.raises(BaloutError, match="expected a balout State"):
        Solver().review(s.to_record())
