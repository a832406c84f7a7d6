"""Property tests (hypothesis) over random legal play in all three variants.

Every hand is driven by hypothesis: the seed (deck), the dealer, the rule
options and, at every step, the index of the legal action to take. The
properties restate RULES.md (sections 1, 2, 5, 8) independently of the core
wherever that is cheap: the deal order, trick winners, card points, the
legality of cards and the Baloot game points are recomputed here.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, event, note, settings
from hypothesis import strategies as st
from hypothesis import given

import balout
from balout import State
from balout import _core
from balout.records import replay
from balout.state import OBSERVATION_TENSOR_SIZE, TENSOR_SIZE

FULL = 0xFFFFFFFF
SUIT_BITS = 0xFF

# ----------------------------------------------------------------- configs

# (variant, options) pairs: defaults, declarations='choice', the trumping
# duties switched off, first lead switched, and the Baloot auction/doubling
# switches.
CONFIGS = []
for _v in ("balout", "belote", "baloot"):
    _other_lead = "after_dealer" if _v == "balout" else "after_taker"
    CONFIGS += [
        (_v, {}),
        (_v, {"declarations": "choice"}),
        (_v, {"overtrump_when_cutting": False, "undertrump": False, "partner_winning_frees": False}),
        (_v, {"overtrump_when_cutting": False}),
        (_v, {"undertrump": False}),
        (_v, {"partner_winning_frees": False}),
        (_v, {"first_lead": _other_lead}),
    ]
CONFIGS += [
    ("baloot", {"doubling": False}),
    ("baloot", {"sun_overcall": False}),
    ("balout", {"forced_take_on_jack": False, "capot": "250_all_tricks"}),
    ("belote", {"capot": "plus100_zero_points", "declaration_order": "length_first"}),
]

configs = st.sampled_from(CONFIGS)
seeds = st.integers(0, 2 ** 64 - 1)
dealers = st.integers(0, 3)

# no "explain" phase: it re-runs failing cases hundreds of times (slow, and
# the notes below already give the reproducer)
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
FAST = settings(max_examples=200, deadline=None, phases=PHASES,
                suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=40, deadline=None, phases=PHASES,
                suppress_health_check=[HealthCheck.too_slow])


def new_state(cfg, seed, dealer) -> State:
    variant, options = cfg
    return State(variant, seed=seed, dealer=dealer, options=dict(options))


@st.composite
def fresh_states(draw):
    return new_state(draw(configs), draw(seeds), draw(dealers))


SUN_CALLS = (43, 44)   # sun, ashkal


def pick(data, legal):
    """One legal action, chosen by hypothesis (shrinks towards the first).

    In the Baloot auction a Sun/Ashkal call is kept only one time in four
    (they end the auction at once), so that Hokm contracts and the doubling
    are reached often too."""
    assert legal, "no legal action in a live state"
    if SUN_CALLS[0] in legal and data.draw(st.integers(0, 3), label="allow sun") != 3:
        legal = [a for a in legal if a not in SUN_CALLS]
    return legal[data.draw(st.integers(0, len(legal) - 1), label="choice")]


def note_state(s: State) -> None:
    note(f"variant={s.variant} options={dict(s.options)} dealer={s.dealer} "
         f"actions={[balout.actions.action_name(a) for a in s.action_history]}")
    note(f"record={s.to_record()}")


def play_some(s: State, data, most: int, label: str = "steps") -> None:
    """Up to ``most`` actions chosen by hypothesis (fewer if the hand ends)."""
    for _ in range(data.draw(st.integers(0, most), label=label)):
        if s.is_terminal():
            break
        s.apply_action(pick(data, s.legal_actions()))


def play_out(s: State, data, max_steps: int = 200) -> State:
    for _ in range(max_steps):
        if s.is_terminal():
            return s
        s.apply_action(pick(data, s.legal_actions()))
    raise AssertionError(f"hand not over after {max_steps} actions: {s!r}")


def play_out_rng(s: State, rng: random.Random, max_steps: int = 200) -> State:
    for _ in range(max_steps):
        if s.is_terminal():
            return s
        s.apply_action(rng.choice(s.legal_actions()))
    raise AssertionError(f"hand not over after {max_steps} actions: {s!r}")


# ------------------------------------------------- reference rules (RULES.md)

# ranks in sequence order 7 8 9 T J Q K A = 0..7
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP_ORDER = (4, 2, 7, 3, 6, 5, 1, 0)   # J 9 A T K Q 8 7, strongest first
PLAIN_ORDER = (7, 3, 6, 5, 4, 2, 1, 0)   # A T K Q J 9 8 7
TRUMP_POWER = {r: 8 - i for i, r in enumerate(TRUMP_ORDER)}
PLAIN_POWER = {r: 8 - i for i, r in enumerate(PLAIN_ORDER)}


def bits(mask: int) -> list:
    return [c for c in range(32) if mask >> c & 1]


def suit_mask(suit: int) -> int:
    return SUIT_BITS << (8 * suit)


def popcount(m: int) -> int:
    return bin(m).count("1")


def ref_power(card: int, led: int, trump) -> int:
    s, r = divmod(card, 8)
    if trump is not None and s == trump:
        return 100 + TRUMP_POWER[r]
    if s == led:
        return 10 + PLAIN_POWER[r]
    return 0


def ref_winner_index(cards, trump) -> int:
    led = cards[0] // 8
    powers = [ref_power(c, led, trump) for c in cards]
    return powers.index(max(powers))


def ref_points(card: int, trump) -> int:
    s, r = divmod(card, 8)
    return TRUMP_POINTS[r] if trump is not None and s == trump else PLAIN_POINTS[r]


def ref_trump(s: State):
    return None if s.contract.kind == "sun" else s.trump_id


def ref_legal_cards(s: State) -> int:
    """Legal cards of the seat to act by RULES.md section 3 (and Sun, section 5)."""
    seat = s.to_act
    hand = s.hand_masks[seat]
    trick = list(s.trick_ids)
    if not trick:
        return hand
    led = trick[0] // 8
    follow = hand & suit_mask(led)
    trump = ref_trump(s)
    if trump is None:
        return follow or hand
    opts = s.options
    trumps = hand & suit_mask(trump)
    wi = ref_winner_index(trick, trump)
    win_seat = (s.leader + wi) & 3
    best = trick[wi]
    best_is_trump = best // 8 == trump
    higher = 0
    if best_is_trump:
        higher = sum(1 << c for c in bits(trumps)
                     if TRUMP_POWER[c % 8] > TRUMP_POWER[best % 8])
    if led == trump:                       # rule 1, trump led
        if not follow:
            return hand                    # rule 4
        return higher or follow
    if follow:                             # rule 1
        return follow
    partner_winning = win_seat == (seat + 2) & 3
    if partner_winning and opts["partner_winning_frees"]:   # rule 2
        return hand
    if not trumps:                         # rule 4
        return hand
    opponent_trump_winning = best_is_trump and not partner_winning
    if not opponent_trump_winning:         # rule 3: must trump (any trump)
        return trumps
    if higher:
        return higher if opts["overtrump_when_cutting"] else trumps
    return trumps if opts["undertrump"] else hand


def ref_deal(deck: bytes, dealer: int, receiver=None, offer_to=None):
    """Hands after the first (5-card) deal, or after the full deal (section 2)."""
    hands = [0, 0, 0, 0]
    pos = 0
    for n in (3, 2):
        for i in range(1, 5):
            seat = (dealer + i) & 3
            for _ in range(n):
                hands[seat] |= 1 << deck[pos]
                pos += 1
    offer = deck[20]
    if receiver is None:
        return hands, offer
    pos = 21
    for i in range(1, 5):
        seat = (dealer + i) & 3
        n = 3
        if seat == receiver:
            hands[seat] |= 1 << offer
            n = 2
        for _ in range(n):
            hands[seat] |= 1 << deck[pos]
            pos += 1
    assert pos == 32
    return hands, offer


def ref_game_points(raw: int, sun: bool) -> int:
    q, m = divmod(raw, 10)
    if sun:
        return 2 * q + (0 if m < 5 else 1 if m == 5 else 2)
    return q + (1 if m > 5 else 0)


def card_plays(s: State) -> list:
    """(seat, card) of every card played, in order."""
    return [(seat, a) for phase, seat, a in s.history() if phase == "play"]


# ==================================================================== deal

@FAST
@given(fresh_states(), st.data())
def test_every_card_dealt_exactly_once(s, data):
    # first deal: 5 cards each, disjoint, the offer in nobody's hand
    masks = s.hand_masks
    assert [popcount(m) for m in masks] == [5, 5, 5, 5]
    union = 0
    for m in masks:
        assert union & m == 0, "a card dealt twice"
        union |= m
    assert not union >> s.offer_id & 1, "the offer is also in a hand"
    assert list(s.dealt_masks) == [0, 0, 0, 0]
    assert sorted(s.deck) == list(range(32))
    first, offer = ref_deal(s.deck, s.dealer)
    assert list(masks) == first and s.offer_id == offer
    assert s.to_act == (s.dealer + 1) & 3, "the auction starts with seat d+1"

    # play the auction (and any doubling) until the deal is complete
    while s.bidder < 0 and not s.is_terminal():
        s.apply_action(pick(data, s.legal_actions()))
    if s.bidder < 0:
        assert s.summary()["outcome"] == "cancelled"
        event("cancelled")
        return
    note_state(s)
    dealt = s.dealt_masks
    assert [popcount(m) for m in dealt] == [8] * 4
    union = 0
    for m in dealt:
        assert union & m == 0, "a card dealt twice"
        union |= m
    assert union == FULL, "the dealt hands do not hold the 32 cards"
    assert s.hand_masks == dealt, "nothing is played yet"
    assert dealt[s.receiver] >> s.offer_id & 1, "the receiver holds the offer"
    full, _ = ref_deal(s.deck, s.dealer, receiver=s.receiver)
    assert list(dealt) == full, "deal differs from RULES.md section 2"
    if s.variant != "baloot" or s.kind_id != 2:
        assert s.receiver == s.bidder
    # the dealt hands never change during the play
    play_out(s, data)
    assert s.dealt_masks == dealt


# ============================================================ complete hand

@FAST
@given(fresh_states(), st.data())
def test_complete_hand_invariants(s, data):
    play_out(s, data)
    note_state(s)
    summ = s.summary()
    if s.bidder < 0:
        event("cancelled")
        assert summ["outcome"] == "cancelled"
        assert s.played_mask == 0 and summ["hand_score"] == [0, 0]
        return
    event(f"{s.variant} {s.contract.kind} {summ['outcome']}")
    plays = card_plays(s)
    cards = [c for _, c in plays]
    # every card played exactly once
    assert s.played_mask == FULL
    assert len(cards) == 32 and sorted(cards) == list(range(32))
    assert sum(1 for a in s.action_history if a < 32) == 32
    assert s.hand_masks == (0, 0, 0, 0)
    # each seat played exactly its dealt cards
    for seat in range(4):
        assert sum(1 << c for p, c in plays if p == seat) == s.dealt_masks[seat]
    # card points: 162 with a trump, 130 in Sun; 8 trick winners
    total = 130 if s.contract.kind == "sun" else 162
    assert sum(s.card_points) == total
    assert summ["card_points"] == list(s.card_points)
    assert len(summ["trick_winners"]) == 8
    assert sum(s.tricks_won) == 8
    # tricks and points recomputed from the plays (sections 1, 3, 4, 5)
    trump = ref_trump(s)
    if s.options["first_lead"] == "after_taker":
        leader = (s.bidder + 1) & 3
    else:
        leader = (s.dealer + 1) & 3
    points = [0, 0]
    winners = []
    for t in range(8):
        trick = plays[4 * t:4 * t + 4]
        assert [p for p, _ in trick] == [(leader + i) & 3 for i in range(4)], f"trick {t} order"
        tc = [c for _, c in trick]
        w = (leader + ref_winner_index(tc, trump)) & 3
        winners.append(w)
        points[w & 1] += sum(ref_points(c, trump) for c in tc) + (10 if t == 7 else 0)
        leader = w
    assert summ["trick_winners"] == winners
    assert list(s.card_points) == points
    assert list(s.tricks_won) == [sum(1 for w in winners if w & 1 == t) for t in (0, 1)]
    assert summ["match_score"] == [a + b for a, b in zip(s.match_before, summ["hand_score"])]
    assert summ["next"] is None and s.legal_actions() == []


@SLOW
@given(st.sampled_from(("balout", "belote", "baloot")), seeds, st.data())
def test_declarations_off_option(variant, seed, data):
    """RULES.md section 7: declarations='off' is a valid value (no declarations score)."""
    s = State(variant, seed=seed, options={"declarations": "off"})
    assert s.options["declarations"] == "off"
    play_out(s, data)
    note_state(s)
    summ = s.summary()
    assert summ["declarations"] is None
    assert s.declaration_values == (0, 0, 0, 0)


# ============================================================== baloot points

@settings(max_examples=300, deadline=None, phases=PHASES)
@given(st.integers(0, 162), st.booleans())
def test_game_points_formula(raw, sun):
    assume(raw <= 130 or not sun)
    assert _core.game_points(raw, sun) == ref_game_points(raw, sun)


def test_game_points_worked_examples():
    assert _core.game_points(95, True) == 19 and 26 - _core.game_points(95, True) == 7
    assert _core.game_points(54, True) == 10                      # failed: 10 < 16
    assert _core.game_points(60, True) + 10 == 22                 # 60 raw + fifty: 22 - 14
    assert _core.game_points(45, False) == 4


BALOOT_CONFIGS = [c for c in CONFIGS if c[0] == "baloot"]


@settings(max_examples=250, deadline=None, phases=PHASES)
@given(st.sampled_from(BALOOT_CONFIGS), seeds, dealers, st.data())
def test_baloot_game_points_sum(cfg, seed, dealer, data):
    s = play_out(new_state(cfg, seed, dealer), data)
    assume(s.bidder >= 0)
    note_state(s)
    summ = s.summary()
    sun = s.contract.kind == "sun"
    full = 26 if sun else 16
    by, df = s.bidder & 1, (s.bidder & 1) ^ 1
    raw = s.card_points[by]
    gp_by = _core.game_points(raw, sun)
    gp_df = full - gp_by
    assert gp_by == ref_game_points(raw, sun)
    assert 0 <= gp_by <= full
    # the defence's own rounding differs from the rest by at most one point
    assert abs(ref_game_points(s.card_points[df], sun) - gp_df) <= 1
    assume(summ["capot"] is None)          # kaboot has its own formula
    decl = summ["declarations"]["value"] if summ["declarations"] else 0
    bal = 2 if summ["belote"] is not None else 0
    hs = summ["hand_score"]
    tot = [0, 0]
    for t in (by, df):
        gp = gp_by if t == by else gp_df
        tot[t] = gp + (decl if summ["declarations"] and summ["declarations"]["team"] == t else 0) \
            + (2 if summ["belote"] == t else 0)
    if s.multiplier == 1 and not s.gahwa:
        if tot[by] >= tot[df]:
            event(f"baloot {s.contract.kind} made undoubled")
            assert summ["outcome"] == "made"
            assert hs[by] == tot[by] and hs[df] == tot[df]
            assert sum(hs) == full + decl + bal
            if not decl and not bal:
                # the bare game points: buyers by the formula, defence the rest
                assert hs[by] == gp_by and hs[df] == gp_df
                assert sum(hs) == full
        else:
            event(f"baloot {s.contract.kind} failed undoubled")
            assert summ["outcome"] == "failed"
            assert hs[by] == 0 and hs[df] == full + decl + bal
        return
    # doubled: the winner takes (26|16 + projects) x multiplier + baloot;
    # an exact tie is lost by the team that made the last raise
    made = tot[by] > tot[df] or (tot[by] == tot[df] and s.last_raiser == df)
    w = by if made else df
    event(f"baloot {s.contract.kind} x{s.multiplier}{' gahwa' if s.gahwa else ''} "
          f"{'made' if made else 'failed'}")
    assert summ["outcome"] == ("made" if made else "failed")
    assert hs[w ^ 1] == 0
    if s.gahwa:
        assert hs[w] == s.options["target"] and s.match_winner == w
    else:
        assert hs[w] == (full + decl) * s.multiplier + bal


# =============================================================== legality

@FAST
@given(fresh_states(), st.data())
def test_legal_set_nonempty_and_in_hand(s, data):
    try:
        _check_legal_sets(s, data)
    finally:
        note_state(s)


def _check_legal_sets(s, data):
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        mask = s.legal_mask()
        assert legal, f"empty legal set in phase {s.phase}"
        assert legal == sorted(set(legal))
        assert sum(1 << a for a in legal) == mask
        assert all(0 <= a < 50 for a in legal)
        if s.phase == "play":
            hand = s.hand_masks[s.to_act]
            assert mask & ~hand == 0, "a legal card is not in the hand of the seat to act"
            assert all(a < 32 for a in legal)
            assert sorted(int(c) for c in s.legal_cards()) == legal
            assert mask == ref_legal_cards(s), (
                f"legal cards {bits(mask)} != RULES.md {bits(ref_legal_cards(s))}; "
                f"trick {list(s.trick_ids)} hand {bits(hand)}")
        else:
            assert all(a >= 32 for a in legal), f"a card is legal in phase {s.phase}"
            assert len(s.legal_cards()) == 0
        s.apply_action(pick(data, legal))
        steps += 1
        assert steps <= 200
    assert s.legal_actions() == [] and s.legal_mask() == 0


TRUMP_DUTY_CONFIGS = [c for c in CONFIGS if c[0] != "baloot" or c[1]] + [
    (v, {"overtrump_when_cutting": o, "undertrump": u, "partner_winning_frees": p})
    for v in ("balout", "belote", "baloot")
    for o in (False, True) for u in (False, True) for p in (False, True)]


@settings(max_examples=200, deadline=None, phases=PHASES)
@given(st.sampled_from(TRUMP_DUTY_CONFIGS), seeds, st.integers(0, 2 ** 32 - 1))
def test_legal_cards_follow_rules_many_hands(cfg, seed, play_seed):
    """The legal cards equal RULES.md section 3 at every step of 8 random
    hands per example (cheap random play, so rarer trick situations occur)."""
    variant, options = cfg
    rng = random.Random(play_seed)
    deck_rng = random.Random(seed)
    for _ in range(8):
        s = State(variant, seed=deck_rng.getrandbits(64), dealer=rng.randrange(4), options=dict(options))
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal
            if s.phase == "play":
                mask = s.legal_mask()
                ref = ref_legal_cards(s)
                if mask != ref:
                    note_state(s)
                assert mask == ref, (
                    f"legal cards {bits(mask)} != RULES.md {bits(ref)}; seat {s.to_act} "
                    f"trick {list(s.trick_ids)} led by {s.leader} hand {bits(s.hand_masks[s.to_act])}")
            s.apply_action(rng.choice(legal))


# ==================================================================== undo

def observe(s: State):
    return (s.summary(), s.legal_actions(), s.phase, s.to_act, s.hand_masks, s.action_history,
            s.played_mask, s.card_points)


@FAST
@given(fresh_states(), st.data())
def test_undo_restores_exact_state(s, data):
    try:
        _undo_restores_exact_state(s, data)
    finally:
        note_state(s)


def _undo_restores_exact_state(s, data):
    initial = s.clone()
    phases = {s.phase}
    while not s.is_terminal():
        before = s.clone()
        obs = observe(s)
        a = pick(data, s.legal_actions())
        s.apply_action(a)
        after = s.clone()
        phases.add(s.phase)
        s.undo()
        assert s == before, f"undo of {a} in phase {before.phase} did not restore the state"
        assert observe(s) == obs
        s.apply_action(a)
        assert s == after, "re-applying after undo differs"
    note_state(s)
    event("phases: " + " ".join(sorted(phases)))
    # undo everything, across all phases, back to the deal
    n = len(s.action_history)
    for _ in range(n):
        s.undo()
    assert s == initial
    assert observe(s) == observe(initial)
    with pytest.raises(balout.BaloutError):
        s.undo()
    assert s == initial


@FAST
@given(fresh_states(), st.data())
def test_undo_across_auction_to_play(s, data):
    """Undo the action that ends the auction (and the doubling/declare steps)."""
    try:
        _undo_across_auction_to_play(s, data)
    finally:
        note_state(s)


def _undo_across_auction_to_play(s, data):
    while s.phase == "auction":
        before = s.clone()
        obs = observe(s)
        a = pick(data, s.legal_actions())
        s.apply_action(a)
        if s.phase != "auction":
            note_state(s)
            event(f"auction -> {s.phase}")
            s.undo()
            assert s == before and observe(s) == obs
            assert s.phase == "auction" and s.bidder == -1 and s.dealt_masks == (0, 0, 0, 0)
            assert [popcount(m) for m in s.hand_masks] == [5] * 4
            s.apply_action(a)
    # a few more steps through doubling / declare into the play, each undone
    while not s.is_terminal() and s.tricks_played == 0:
        before = s.clone()
        a = pick(data, s.legal_actions())
        s.apply_action(a)
        ph = s.phase
        s.undo()
        assert s == before
        s.apply_action(a)
        assert s.phase == ph


# =================================================================== clone

@FAST
@given(fresh_states(), st.data())
def test_clone_is_independent(s, data):
    try:
        _clone_is_independent(s, data)
    finally:
        note_state(s)


def _clone_is_independent(s, data):
    play_some(s, data, 40, "steps before clone")
    note_state(s)
    snap = observe(s)
    rec = s.to_record()
    c = s.clone()
    assert c == s and c is not s and type(c) is type(s)
    assert observe(c) == snap
    # mutate the clone: play it out, undo some of it
    play_out(c, data)
    if c.action_history:
        c.undo()
    assert observe(s) == snap and s.to_record() == rec
    # mutate the original: the clone taken now stays as it was
    c2 = s.clone()
    snap2 = observe(c2)
    play_out(s, data)
    while len(s.action_history) > 0:
        s.undo()
    assert observe(c2) == snap2


# ================================================================= records

@FAST
@given(fresh_states(), st.data())
def test_record_round_trip(s, data):
    try:
        _record_round_trip(s, data)
    finally:
        note_state(s)


def _record_round_trip(s, data):
    play_some(s, data, 60, "steps")
    note_state(s)
    rec = s.to_record()
    t = State.from_record(rec)
    assert t == s
    assert t.summary() == s.summary()
    assert t.to_record() == rec
    assert t.legal_actions() == s.legal_actions()
    # through JSON too
    import json
    t2 = State.from_record(json.loads(json.dumps(rec)))
    assert t2 == s
    # a complete hand replays to the same section-8 output
    if s.is_terminal():
        assert replay([rec]) == [s.summary()]


@FAST
@given(fresh_states(), st.data())
def test_resample_is_indistinguishable_for_its_seat(s, data):
    """A resampled state shows its seat exactly what the real one does,
    holds the same cards in all, and is a hand of its own (its record
    replays to it)."""
    play_some(s, data, 60, "steps")
    note_state(s)
    seat = data.draw(st.integers(0, 3), label="seat")
    r = s.resample(seat, data.draw(seeds, label="resample seed"))
    assert r.view(seat) == s.view(seat)
    assert r.information_state_string(seat) == s.information_state_string(seat)
    assert r.observation_string(seat) == s.observation_string(seat)
    assert np.array_equal(r.information_state_tensor(seat), s.information_state_tensor(seat))
    assert np.array_equal(r.observation_tensor(seat), s.observation_tensor(seat))
    assert r.hand_masks[seat] == s.hand_masks[seat] and sorted(r.deck) == sorted(s.deck)
    assert r.card_points == s.card_points and r.is_terminal() == s.is_terminal()
    assert State.from_record(r.to_record()) == r


def _decode_information_state(t, seat: int, target: int) -> dict:
    """Read back what a tensor holds, by the layout of balout.state."""
    from balout.actions import ACTION_NAMES
    from balout.cards import Card, CardSet
    from balout import state as S

    def ones(lo, n):
        return [i for i in range(n) if t[lo + i] == 1]

    def one(lo, n):
        got = ones(lo, n)
        assert len(got) <= 1
        return (got[0] + seat) % 4 if got else None

    decisions, plays = [], []
    for k in range(S.DECISION_SLOTS):
        base = S._I_DECISIONS + k * (4 + S._NUM_DECISIONS)
        if one(base, 4) is not None:
            decisions.append((one(base, 4), ACTION_NAMES[32 + ones(base + 4, S._NUM_DECISIONS)[0]]))
    for k in range(32):
        base = S._I_PLAYS + k * 36
        if one(base, 4) is not None:
            plays.append((one(base, 4), Card(ones(base + 4, 32)[0])))
    shown = {(r + seat) % 4: CardSet(ones(S._I_SHOWN + 32 * r, 32)) for r in range(4)}
    return {"hand": CardSet(ones(S._I_HAND, 32)), "offer": Card(ones(S._I_OFFER, 32)[0]),
            "receiver": one(S._I_RECEIVER, 4), "dealer": one(S._I_DEALER, 4), "to_act": one(S._I_TO_ACT, 4),
            "decisions": decisions, "plays": plays, "shown": {k: v for k, v in shown.items() if v},
            "belote": one(S._I_BELOTE, 4), "match": [round(float(x) * target) for x in t[S._I_MATCH:S._I_MATCH + 3]]}


@FAST
@given(fresh_states(), st.data())
def test_information_state_tensor_has_perfect_recall(s, data):
    """Everything in the seat's view can be read back from its tensor (so
    two different views never share one), and nothing else is in it."""
    from balout.state import TENSOR_SIZE

    play_some(s, data, 60)
    note_state(s)
    seat = data.draw(st.integers(0, 3), label="seat")
    t = s.information_state_tensor(seat)
    assert t.shape == (TENSOR_SIZE,) and t.dtype == np.float32
    v = s.view(seat)
    got = _decode_information_state(t, seat, s.options["target"])
    team = seat & 1
    assert got == {"hand": v.hand, "offer": v.offer, "receiver": v.offer_receiver, "dealer": v.dealer,
                   "to_act": v.to_act if v.to_act >= 0 else None,
                   "decisions": list(v.bids + v.doubling + v.declaring), "plays": list(v.plays),
                   "shown": {k: c for k, c in v.declarations.items() if c}, "belote": v.belote_seat,
                   "match": [v.match_score[team], v.match_score[team ^ 1], v.litige_pot]}
    assert int(t.sum() - t[-3:].sum()) == (len(v.hand) + 1 + (v.offer_receiver is not None) + 1 + (v.to_act >= 0)
                                           + 1 + 2 * len(got["decisions"]) + 2 * len(v.plays)
                                           + sum(len(c) for c in got["shown"].values())
                                           + (v.belote_seat is not None))


def _reference_shown(s, seat: int):
    """What the rules show ``seat`` (RULES.md): declarations once the first
    trick is over (its own at once), the belote once its holder has played
    the king or queen of trump (its own at once); from the public history."""
    plays = s._split_history()[3]
    shown = {p: s.declaration_cards[p] for p in range(4)
             if s.declared_seats >> p & 1 and (s.tricks_played >= 1 or p == seat)}
    b, kq = s.belote_seat, {s.trump_id * 8 + 5, s.trump_id * 8 + 6}
    belote = b if b >= 0 and (b == seat or any(c in kq for p, c in plays if p == b)) else None
    return shown, belote


def _reference_observation_tensor(s, seat: int) -> np.ndarray:
    """observation_tensor by its documented layout, from the public history."""
    t = np.zeros(345, np.float32)
    rel = lambda p: (p - seat) & 3  # noqa: E731
    t[[c for c in range(32) if s.hand_masks[seat] >> c & 1]] = 1
    t[32 + s.offer_id] = 1
    for p, c in s._split_history()[3]:
        t[64 + 32 * rel(p) + c] = 1
    for p, c in s.trick:
        t[192 + 32 * rel(p) + int(c)] = 1
    t[320 + rel(s.dealer)] = 1
    if s.bidder >= 0:
        t[324 + rel(s.bidder)] = 1
    t[328 + s.kind_id] = 1
    if s.trump_id >= 0:
        t[331 + s.trump_id] = 1
    t[335 + s.phase_id] = 1
    t[340 + min(s.multiplier, 4) - 1] = 1
    t[344] = float(s.gahwa)
    return t


@FAST
@given(fresh_states(), st.data())
def test_native_view_and_tensors_match_their_references(s, data):
    """The core's view of a seat (declarations and belote shown) and its
    observation tensor agree with references written from the rules and the
    documented layout; both tensors write into a given row as they return."""
    play_some(s, data, 60)
    note_state(s)
    seat = data.draw(st.integers(0, 3), label="seat")
    v = s.view(seat)
    shown, belote = _reference_shown(s, seat)
    assert {p: int(c) for p, c in v.declarations.items()} == shown and v.belote_seat == belote
    obs = s.observation_tensor(seat)
    assert np.array_equal(obs, _reference_observation_tensor(s, seat))
    batch = np.full((3, TENSOR_SIZE), 7, np.float32)
    row = batch[1]
    assert s.information_state_tensor(seat, out=row) is row
    assert np.array_equal(batch[1], s.information_state_tensor(seat)) and (batch[[0, 2]] == 7).all()
    rows = np.full((2, OBSERVATION_TENSOR_SIZE), 7, np.float32)
    s.observation_tensor(seat, out=rows[0])
    assert np.array_equal(rows[0], obs) and (rows[1] == 7).all()


@SLOW
@given(fresh_states(), st.data())
def test_information_state_string_is_one_to_one_with_the_view(s, data):
    """Along a hand, two states give a seat the same information state
    string exactly when they give it the same view (and so the same
    perfect-recall tensor): the states compared are each state, every
    state one action after it (every action is public), the state
    resampled for the seat, and the state with another match score (where
    the same actions are legal with it). The
    legal actions mask marks the legal actions of the seat to act only."""
    seen = {}
    seed = data.draw(seeds, label="resample seed")
    rng = random.Random(data.draw(st.integers(0, 2 ** 32), label="play seed"))
    match_score = (rng.randrange(s.options["target"]), rng.randrange(s.options["target"]))
    while True:
        note_state(s)
        others = [s.clone() for _ in s.legal_actions()]
        for child, a in zip(others, s.legal_actions()):
            child.apply_action(a)
        try:       # the match score can change the rules of the hand (baloot's doubling)
            others.append(State.from_record(s.to_record(), match_score=match_score))
        except balout.errors.IllegalActionError:
            pass
        for seat in range(4):
            for x in [s, s.resample(seat, seed)] + others:
                key, view = x.information_state_string(seat), repr(x.view(seat))
                assert seen.setdefault((seat, key), view) == view
                assert seen.setdefault((seat, view), key) == key
                t = x.information_state_tensor(seat).tobytes()
                assert seen.setdefault((seat, key, "tensor"), t) == t
            mask = s.legal_actions_mask(seat)
            assert list(np.flatnonzero(mask)) == (s.legal_actions() if seat == s.to_act else [])
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))


@SLOW
@given(fresh_states(), st.data())
def test_pickle_round_trip(s, data):
    """State defines __reduce__, so a pickled state must come back equal."""
    import pickle
    play_some(s, data, 40, "steps")
    note_state(s)
    t = pickle.loads(pickle.dumps(s))
    assert t == s and t.summary() == s.summary()


# =================================================================== match

def play_match(variant, options, seed, rng, max_hands=400):
    m = balout.Match(variant, seed=seed, options=dict(options))
    outputs = []
    dealers = []
    for _ in range(max_hands):
        if m.is_over:
            break
        s = m.new_hand()
        dealers.append(s.dealer)
        play_out_rng(s, rng)
        outputs.append(m.add_hand(s))
    return m, outputs, dealers


MATCH_CONFIGS = [("balout", {}), ("belote", {}), ("baloot", {}), ("baloot", {"target": 52}),
                 ("balout", {"declarations": "choice"}), ("baloot", {"declarations": "choice"}),
                 ("belote", {"target": 500}), ("baloot", {"doubling": False})]


@settings(max_examples=60, deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MATCH_CONFIGS), seeds, st.integers(0, 2 ** 32 - 1))
def test_random_match_terminates_and_replays(cfg, seed, play_seed):
    variant, options = cfg
    m, outputs, dealers = play_match(variant, options, seed, random.Random(play_seed))
    note(f"Match({variant!r}, seed={seed}, options={options}), play seed {play_seed}")
    assert m.is_over, f"no winner after {len(outputs)} hands: {m!r}"
    event(f"{variant}: {'<10' if len(outputs) < 10 else '10-29' if len(outputs) < 30 else '30+'} hands")
    if any(o["outcome"] == "litige" for o in outputs):
        event("litige pot used")
    w = m.winner
    assert w in (0, 1)
    assert m.score[w] >= m.target, f"winner {w} has {m.score} < target {m.target}"
    assert m.score[w] > m.score[w ^ 1]
    # before the last hand nobody had won
    last = outputs[-1]
    before = [a - b for a, b in zip(last["match_score"], last["hand_score"])]
    assert not (max(before) >= m.target and before[0] != before[1]) or last["contract"]["gahwa"]
    # scores are the sums of the hand scores; the dealer passes on
    assert [sum(o["hand_score"][t] for o in outputs) for t in (0, 1)] == m.score
    assert dealers == [i % 4 for i in range(len(dealers))]
    for prev, o in zip([None] + outputs, outputs):
        base = prev["match_score"] if prev else [0, 0]
        assert o["match_score"] == [a + b for a, b in zip(base, o["hand_score"])]
    with pytest.raises(balout.MatchOverError):
        m.new_hand()
    # the match's records replay to the same outputs
    recs = m.records()
    assert len(recs) == len(outputs)
    assert replay(recs) == outputs
