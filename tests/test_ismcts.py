"""Information-set MCTS (balout._core.ISMCTS).

Checks: the chosen action is legal (play and declare phases, all variants);
a seeded search with an iteration budget is deterministic; the search never
reads hidden cards (states that look the same to the seat to act give the
same search, whatever the other hands hold, including a different belote
holder); it finds an obvious capot; where every card is known by inference
(exactly one consistent deal) it agrees with the double-dummy best move;
time budgets, small trees and threads work; bad arguments raise errors.
"""
from __future__ import annotations

import math
import random
import threading
import time

import pytest

import balout
from balout import _core
from balout.cards import card_name
from balout.errors import BaloutError
from helpers import deck_for, play, state_for

VARIANTS = ("balout", "belote", "baloot")


def random_position(variant, seed, tricks=3, cards_in_trick=None, options=None):
    """A random state in the play phase after `tricks` tricks (and some cards
    of the next), reached by uniform random play; None if the hand ended."""
    rng = random.Random(seed)
    s = balout.State(variant, seed=seed, options=options)
    k = rng.randrange(4) if cards_in_trick is None else cards_in_trick
    while not s.is_terminal():
        if s.phase == "play" and s.tricks_played == tricks and len(s.trick_ids) == k:
            return s
        s.apply_action(rng.choice(s.legal_actions()))
    return None


def positions(variant, n, tricks=3, options=None, start=0):
    out, seed = [], start
    while len(out) < n:
        s = random_position(variant, seed, tricks, options=options)
        if s is not None:
            out.append(s)
        seed += 1
    return out


# ------------------------------------------------------------------ basic contract

@pytest.mark.parametrize("variant", VARIANTS)
def test_chosen_action_is_legal(variant):
    m = _core.ISMCTS(iterations=300)
    for tricks in (0, 2, 5, 7):
        for s in positions(variant, 6, tricks=tricks, start=100 * tricks):
            r = m.search(s, 3)
            legal = s.legal_actions()
            assert r["action"] in legal
            assert sorted(r["visits"]) == legal and sorted(r["value"]) == legal
            assert r["iterations"] == 300
            # every root visit is counted once; the chosen action is the most visited
            assert sum(r["visits"].values()) == 300
            assert r["visits"][r["action"]] == max(r["visits"].values())
            assert all(-3.0 <= v <= 3.0 for v in r["value"].values())
            s.apply_action(r["action"])


@pytest.mark.parametrize("variant", VARIANTS)
def test_plays_whole_hands(variant):
    """ISMCTS for every seat from the first card to the end of several hands."""
    m = _core.ISMCTS(iterations=200, playout="random")
    for seed in range(3):
        s = random_position(variant, seed, tricks=0, cards_in_trick=0)
        if s is None:
            continue
        while not s.is_terminal():
            a = m.search(s, seed)["action"]
            assert a in s.legal_actions()
            s.apply_action(a)


@pytest.mark.parametrize("variant", VARIANTS)
def test_declare_phase(variant):
    """With declarations by choice, the declare decision is searched too."""
    found = 0
    m = _core.ISMCTS(iterations=500)
    for seed in range(200):
        rng = random.Random(seed)
        s = balout.State(variant, seed=seed, options={"declarations": "choice"})
        while not s.is_terminal() and s.phase != "declare":
            s.apply_action(rng.choice(s.legal_actions()))
        if s.phase != "declare":
            continue
        r = m.search(s, seed)
        legal = s.legal_actions()
        assert len(legal) == 2 and r["action"] in legal
        assert sum(r["visits"].values()) == 500 and min(r["visits"].values()) > 0
        # and through the rest of the hand, declare decisions of the others included
        while not s.is_terminal():
            s.apply_action(m.search(s, seed)["action"])
        found += 1
        if found == 3:
            break
    assert found == 3


def test_single_legal_action():
    # seat 3 holds one diamond and must follow the lead of 7D with it
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 9D TD JD QD KD AD AC", "7C 8C 9C TC JC QC KC 8D"]
    s = state_for(hands, offer="AS", receiver=1, dealer=0, bids=["take"])
    play(s, "7D")
    assert s.to_act == 3 and s.legal_action_strings() == ["8D"]
    r = _core.ISMCTS(iterations=50).search(s, 0)
    assert r["action"] == s.legal_actions()[0] and r["visits"] == {r["action"]: 50}


# ------------------------------------------------------------------ determinism

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("playout", ["greedy", "random"])
def test_deterministic_under_seed(variant, playout):
    for s in positions(variant, 4, tricks=2):
        a = _core.ISMCTS(iterations=2000, playout=playout).search(s, 42)
        b = _core.ISMCTS(iterations=2000, playout=playout).search(s.clone(), 42)
        m = _core.ISMCTS(iterations=2000, playout=playout)
        m.search(s, 7)  # reusing a searcher leaves nothing behind
        c = m.search(s, 42)
        assert a == b == c


def test_seed_changes_the_search():
    s = positions("balout", 1, tricks=1)[0]
    m = _core.ISMCTS(iterations=3000, playout="random")
    runs = [m.search(s, seed)["visits"] for seed in range(4)]
    assert any(r != runs[0] for r in runs[1:]) or len(s.legal_actions()) == 1


def test_bid_weight_changes_the_worlds_not_the_determinism():
    """Worlds weighted by the auction: still deterministic under a seed,
    and a different search than with uniform worlds; 1 is the default."""
    assert _core.ISMCTS(iterations=10).bid_weight == 1.0
    changed = 0
    for s in positions("balout", 4, tricks=1):
        uniform = _core.ISMCTS(iterations=2000).search(s, 3)
        assert _core.ISMCTS(iterations=2000, bid_weight=1.0).search(s, 3) == uniform
        m = _core.ISMCTS(iterations=2000, bid_weight=0.0)
        a, b = m.search(s, 3), m.search(s.clone(), 3)
        assert a == b and a["action"] in s.legal_actions()
        changed += a["visits"] != uniform["visits"]
    assert changed >= 1


# ------------------------------------------------------------------ hidden cards

@pytest.mark.parametrize("variant", VARIANTS)
def test_never_reads_hidden_cards(variant):
    """Other hands scrambled into a different consistent deal: same search."""
    m = _core.ISMCTS(iterations=3000, bid_weight=0.3)    # the auction inference reads nothing hidden either
    checked = 0
    for tricks in (0, 1, 3, 5):
        for s in positions(variant, 3, tricks=tricks, start=1000 + 10 * tricks):
            seat = s.to_act
            worlds = _core.WorldSampler(s, seat).draw(4, 99)
            base = m.search(s, 5)
            for w in worlds:
                other = s.with_hands([int(x) for x in w])
                assert other.hand_masks[seat] == s.hand_masks[seat]
                assert _core.information_set(other, seat) == _core.information_set(s, seat)
                if other.hand_masks != s.hand_masks:
                    checked += 1
                assert m.search(other, 5) == base
    assert checked > 10


def _played_by(state):
    """Cards played so far by each seat (public), by replaying the history."""
    t = state.initial_state()
    out = [[] for _ in range(4)]
    for a in state.action_history:
        if t.phase == "play" and a < 32:
            out[t.to_act].append(a)
        t.apply_action(a)
    return out


def _same_history_other_deal(state, hands_now):
    """A genuinely different hand (other deck) with the same actions, whose
    current hands are hands_now; None if the history is illegal there."""
    played = _played_by(state)
    full = []
    for s in range(4):
        cards = [card_name(c) for c in range(32) if hands_now[s] >> c & 1]
        full.append(" ".join(cards + [card_name(c) for c in played[s]]))
    receiver = state.receiver
    try:
        deck = deck_for(full, card_name(state.offer_id), receiver, state.dealer)
        other = balout.State(state.variant, deck=deck, dealer=state.dealer, options=dict(state.options))
        for a in state.action_history:
            other.apply_action(a)
    except (BaloutError, AssertionError):
        return None
    return other


def _belote_team(state):
    return state.belote_seat & 1 if state.belote_seat >= 0 else -1


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("options", [None, {"declarations": "off"}])
def test_other_real_deal_with_the_same_view(variant, options):
    """Two real deals (other decks) with the same actions, that look the same
    to the seat to act but differ in the other hands, in their declarations or
    in who holds an unannounced belote: same search."""
    m = _core.ISMCTS(iterations=2000)
    pairs = belote_pairs = 0
    for seed in range(600):
        s = random_position(variant, seed, tricks=seed % 5, options=options)
        if s is None:
            continue
        seat = s.to_act
        view = _core.information_set(s, seat)
        for w in _core.WorldSampler(s, seat).draw(30, seed):
            other = _same_history_other_deal(s, [int(x) for x in w])
            if other is None or other.hand_masks == s.hand_masks:
                continue
            if _core.information_set(other, seat) != view:
                continue  # e.g. other declarations shown after trick 1: not the same view
            belote = _belote_team(other) != _belote_team(s)
            if belote_pairs >= 3 and not belote and pairs >= 6:
                continue
            assert other.action_history == s.action_history
            assert other.hand_masks[seat] == s.hand_masks[seat]
            assert m.search(other, 11) == m.search(s, 11)
            pairs += 1
            belote_pairs += belote
            break
        if pairs >= 6 and belote_pairs >= 3:
            break
    assert pairs >= 6 and belote_pairs >= 3


# ------------------------------------------------------------------ strength

# balout, dealer 3, seat 0 takes hearts and leads trick 1; no declarations.
# After 6 tricks all won by seat 0, it holds JH (the last trump but one)
# and TC; 7H is with seat 1. JH draws it and TC makes the capot (+100); TC
# first loses trick 7 to 7H in the real deal (and wherever the opponent
# holding 7H has no club).
CAPOT_HANDS = ["JH AS 9H AH AC AD TC TD",
               "QS 7H 8H JS QC QH 9D KD",
               "KS JC KH JD 7C 7D QD KC",
               "8D 9S 9C 8C 7S TH 8S TS"]
CAPOT_PLAY = "AS JS KS 9S AD 9D 7D 8D AC QC KC 9C 9H QH KH TH TD KD QD 8C AH 8H JC 8S"
CAPOT_OPTIONS = {"first_lead": "after_dealer", "declarations": "off"}


def capot_position():
    s = state_for(CAPOT_HANDS, "9H", 0, dealer=3, options=CAPOT_OPTIONS, bids=["take"])
    return play(s, CAPOT_PLAY)


def test_obvious_capot_position_is_as_described():
    s = capot_position()
    assert s.to_act == 0 and s.tricks_played == 6 and s.trick_winners == (0,) * 6
    jh, tc = 12, 27  # card ids: suit * 8 + rank
    assert s.legal_actions() == [jh, tc]
    dd = _core.DoubleDummy()
    # in every deal consistent with seat 0's view, JH takes everything
    for w in _core.WorldSampler(s, 0).draw(200, 3):
        assert dd.moves(s.with_hands([int(x) for x in w]))[jh] == 162
    assert dd.moves(s) == {jh: 162, tc: 142}
    for card, score in ((jh, (262, 0)), (tc, (142, 20))):
        t = s.clone()
        t.apply_action(card)
        while not t.is_terminal():
            t.apply_action(max(dd.moves(t).items(), key=lambda kv: kv[1])[0])
        assert t._result()[7] == score


@pytest.mark.parametrize("playout", ["greedy", "random"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_obvious_capot(playout, seed):
    s = capot_position()
    r = _core.ISMCTS(iterations=3000, playout=playout).search(s, seed)
    assert r["action"] == 12
    # JH is worth the capot: 262 points ahead, 262 / 250 in reward units
    assert r["value"][12] == pytest.approx(262 / 250)
    assert r["value"][12] - r["value"][27] > 0.1


def _score_minimax(state, memo=None):
    """Exact best hand-score difference (team to act minus the other) with
    every card visible: plain minimax over the rest of the hand."""
    if state.is_terminal():
        return None
    team = state.to_act & 1
    best = {}
    for a in state.legal_actions():
        t = state.clone()
        t.apply_action(a)
        if t.is_terminal():
            hs = t._result()[7]
            v = hs[team] - hs[1 - team]
        else:
            sub = _score_minimax(t)
            v = max(sub.values()) * (1 if (t.to_act & 1) == team else -1)
        best[a] = v
    return best


def known_positions(variant, n, seed0=0):
    """Late positions (2-3 tricks left) where the seat to act knows every
    card (exactly one consistent deal), has a choice, and the double-dummy
    best moves (card points) are exactly the best moves by hand score."""
    out = []
    for seed in range(seed0, seed0 + 5000):
        rng = random.Random(seed)
        s = balout.State(variant, seed=seed)
        while not s.is_terminal():
            if (s.phase == "play" and s.tricks_played >= 5 and len(s.legal_actions()) >= 2
                    and _core.WorldSampler(s, s.to_act).count == 1):
                dd = _core.DoubleDummy().moves(s)
                sc = _score_minimax(s)
                dd_best = {a for a, v in dd.items() if v == max(dd.values())}
                sc_best = {a for a, v in sc.items() if v == max(sc.values())}
                if len(set(sc.values())) > 1 and dd_best == sc_best:
                    out.append((s, dd_best))
                    break
            s.apply_action(rng.choice(s.legal_actions()))
        if len(out) == n:
            break
    assert len(out) == n
    return out


# Greedy play-outs are deterministic: a move whose worth needs a precise
# follow-up by two seats of the same team (say, the partner discarding the
# right card, then the mover cashing the right winner) scores badly on its
# first visits and UCB with c = 0.7 may not come back to it within any
# reasonable budget. Random play-outs (or more exploration) find it.
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("playout, exploration", [("random", 0.7), ("greedy", 1.5)])
def test_agrees_with_double_dummy_when_all_is_known(variant, playout, exploration):
    m = _core.ISMCTS(iterations=20000, playout=playout, exploration=exploration)
    for s, best in known_positions(variant, 12):
        r = m.search(s, 1)
        assert r["action"] in best, (s.action_history, r, best)


# ------------------------------------------------------------------ budgets, trees, threads

def test_time_budget():
    s = positions("balout", 1, tricks=2)[0]
    m = _core.ISMCTS(iterations=None, time_budget=0.05)
    t = time.perf_counter()
    r = m.search(s, 0)
    dt = time.perf_counter() - t
    assert r["iterations"] > 100 and dt < 1.0
    assert r["action"] in s.legal_actions()
    # both budgets: the first reached stops the search
    assert _core.ISMCTS(iterations=500, time_budget=10.0).search(s, 0)["iterations"] == 500
    assert _core.ISMCTS(iterations=10 ** 12, time_budget=0.02).search(s, 0)["iterations"] < 10 ** 12


def test_small_tree_keeps_working():
    s = positions("belote", 1, tricks=1)[0]
    r = _core.ISMCTS(iterations=5000, max_nodes=64).search(s, 0)
    assert r["iterations"] == 5000 and r["action"] in s.legal_actions()
    assert sum(r["visits"].values()) == 5000


def test_threads_give_the_same_results():
    """The search releases the GIL; one searcher per thread."""
    states = positions("baloot", 4, tricks=2)
    expected = [_core.ISMCTS(iterations=3000).search(s, 9) for s in states]
    got = [None] * len(states)

    def work(i):
        got[i] = _core.ISMCTS(iterations=3000).search(states[i], 9)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(states))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_repr_and_attributes():
    m = _core.ISMCTS(iterations=10, exploration=1.5, playout="random", max_nodes=100)
    assert (m.iterations, m.time_budget, m.exploration, m.playout, m.max_nodes) == (10, None, 1.5, "random", 100)
    assert "ISMCTS(" in repr(m)
    s = positions("baloot", 1)[0]
    assert _core.ISMCTS.scale(s) > 0


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("kwargs, exc", [
    ({"iterations": 0}, ValueError),
    ({"iterations": -5}, ValueError),
    ({"iterations": 1.5}, TypeError),
    ({"iterations": "100"}, TypeError),
    ({"iterations": True}, TypeError),
    ({"iterations": None}, ValueError),  # and no time budget
    ({"time_budget": 0}, ValueError),
    ({"time_budget": -1.0}, ValueError),
    ({"time_budget": math.nan}, ValueError),
    ({"time_budget": math.inf}, ValueError),
    ({"time_budget": "1s"}, TypeError),
    ({"exploration": -0.1}, ValueError),
    ({"exploration": math.nan}, ValueError),
    ({"exploration": None}, TypeError),
    ({"playout": "smart"}, ValueError),
    ({"playout": 1}, ValueError),
    ({"max_nodes": 10}, ValueError),
    ({"max_nodes": 1 << 40}, ValueError),
    ({"max_nodes": 100.0}, TypeError),
    ({"bid_weight": -0.1}, ValueError),
    ({"bid_weight": 1.5}, ValueError),
    ({"bid_weight": math.nan}, ValueError),
    ({"bid_weight": "0"}, TypeError),
])
def test_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        _core.ISMCTS(**kwargs)


def test_bad_search_arguments():
    m = _core.ISMCTS(iterations=10)
    s = balout.State("balout", seed=1)
    assert s.phase == "auction"
    with pytest.raises(BaloutError, match="play phase"):
        m.search(s, 0)
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    with pytest.raises(BaloutError):
        m.search(s, 0)
    with pytest.raises(TypeError):
        m.search("not a state", 0)
    with pytest.raises(TypeError):
        m.search(None, 0)
    p = positions("balout", 1)[0]
    with pytest.raises(ValueError):
        m.search(p, -1)
    with pytest.raises(ValueError):
        m.search(p, 1 << 64)
    with pytest.raises(TypeError):
        m.search(p, "seed")
    assert m.search(p, (1 << 64) - 1)["action"] in p.legal_actions()
