"""Batch Monte Carlo (``balout.simulate``, ``balout.simulate_matches``,
``balout simulate``): reproducibility, replay of exported hands, row
invariants (RULES.md sections 1-5), distribution sanity, aggregate mode,
Python-callable policies, summaries, saving, Ctrl-C and argument errors.

Every run uses a fixed seed, so the statistical checks are deterministic;
their tolerances are also wide (6 sigma or more) so that a change of the
random generator would not make them flaky either.
"""
from __future__ import annotations

import _thread
import functools
import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest

import balout
from helpers import press_ctrl_c_once_running
from balout import _core
from balout.records import dump, replay
from balout.simulate import (AGGREGATE_FIELDS, HAND_DTYPE, Aggregate, MatchSimulation, Simulation,
                             load)
from balout.state import OUTCOMES

VARIANTS = ("balout", "belote", "baloot")
POLICY_SPECS = ("random", "greedy", ("greedy", "random"))
SUITS = "SHDC"
TARGET = {"balout": 500, "belote": 1000, "baloot": 152}
KIND_NAMES = {"balout": (None, "trump", "sun"), "belote": (None, "trump", "sun"),
              "baloot": (None, "hokm", "sun")}
FIELDS = [name for name in HAND_DTYPE.names]
GREEDY, RANDOM = 1, 0


@functools.lru_cache(maxsize=None)
def run(variant, policy="random", hands=20_000, seed=11, threads=1, chunk=1 << 15, options=None):
    opts = dict(options) if options else None
    return balout.simulate(variant, hands, list(policy) if isinstance(policy, tuple) else policy,
                           seed=seed, threads=threads, options=opts, chunk_size=chunk)


def same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def greedy_callable(state):
    """The native greedy policy, called from Python (it is deterministic)."""
    return _core.policy_action(state, GREEDY, 0)


def first_legal(state):
    return state.legal_actions()[0]


def row_from_state(s) -> dict:
    """The HAND_DTYPE fields of a finished hand, from the public State API."""
    summ = s.summary()
    c = summ["contract"]
    kind_names = KIND_NAMES[s.variant]
    decl = summ["declarations"]
    tw = summ["trick_winners"]
    return {
        "dealer": s.dealer,
        "offer": s.offer_id,
        "outcome": OUTCOMES.index(summ["outcome"]),
        "kind": 0 if c is None else kind_names.index(c["kind"]),
        "trump": -1 if c is None or c["trump"] is None else SUITS.index(c["trump"]),
        "bidder": -1 if c is None else c["bidder"],
        "multiplier": 1 if c is None else c["multiplier"],
        "gahwa": 0 if c is None else int(c["gahwa"]),
        "card_points": list(summ["card_points"]),
        "hand_score": list(summ["hand_score"]),
        "decl_team": -1 if decl is None else decl["team"],
        "decl_value": 0 if decl is None else decl["value"],
        "belote": -1 if summ["belote"] is None else summ["belote"],
        "capot": -1 if summ["capot"] is None else summ["capot"],
        "tricks_won": [sum(1 for w in tw if w & 1 == t) for t in (0, 1)],
    }


def row_dict(row) -> dict:
    out = {}
    for name in FIELDS:
        v = row[name]
        out[name] = [int(x) for x in v] if np.ndim(v) else int(v)
    return out


def assert_row_matches_state(row, s, where=""):
    got = row_dict(row)
    want = row_from_state(s)
    for k, v in want.items():
        assert got[k] == v, f"{where}: row field {k} = {got[k]}, the state says {v}"
    if "dealt" in got and s.bidder >= 0:
        # the 5 cards of the first deal are among each seat's 8
        first = s.initial_state().hand_masks
        for seat in range(4):
            assert first[seat] & ~got["dealt"][seat] == 0, (where, seat)


# ------------------------------------------------------------ row invariants

def check_rows(variant: str, r: np.ndarray, start: int = 0) -> None:
    n = len(r)
    idx = np.arange(start, start + n)
    assert r.dtype == HAND_DTYPE
    cp = r["card_points"].astype(np.int64)
    hs = r["hand_score"].astype(np.int64)
    tw = r["tricks_won"].astype(np.int64)
    out = r["outcome"]
    kind = r["kind"]
    bidder = r["bidder"].astype(np.int64)
    canc = out == 3
    played = ~canc

    assert (r["dealer"] == idx % 4).all(), "dealer of hand i is i % 4"
    assert np.isin(out, [0, 1, 2, 3]).all(), np.unique(out)
    assert ((r["offer"] >= 0) & (r["offer"] < 32)).all()
    # cancelled <=> no contract
    assert ((kind == 0) == canc).all()
    assert ((bidder == -1) == canc).all()
    assert ((bidder[played] >= 0) & (bidder[played] <= 3)).all()
    # card points: 162 with a trump, 130 in Sun; nothing when cancelled
    total = cp.sum(1)
    assert (total[kind == 1] == 162).all(), np.unique(total[kind == 1])
    assert (total[kind == 2] == 130).all(), np.unique(total[kind == 2])
    assert (cp[canc] == 0).all() and (hs[canc] == 0).all()
    assert (cp >= 0).all() and (hs >= 0).all()
    # tricks: 8 per played hand
    assert (tw[played].sum(1) == 8).all(), np.unique(tw[played].sum(1))
    assert (tw[canc] == 0).all()
    # contract fields
    assert ((r["trump"][kind == 1] >= 0) & (r["trump"][kind == 1] <= 3)).all()
    assert (r["trump"][kind != 1] == -1).all()
    assert np.isin(r["auction_round"][played], [1, 2, 3]).all()
    assert (r["auction_round"][canc] == 0).all()
    assert np.isin(r["decl_team"], [-1, 0, 1]).all()
    assert np.isin(r["belote"], [-1, 0, 1]).all()
    assert np.isin(r["capot"], [-1, 0, 1]).all()
    assert (r["decl_value"][r["decl_team"] == -1] == 0).all()
    assert (r["decl_value"][r["decl_team"] >= 0] > 0).all()
    assert (r["belote"][kind != 1] == -1).all(), "belote/baloot needs a trump suit"
    assert (r["capot"][canc] == -1).all() and (r["decl_team"][canc] == -1).all()
    if "dealt" in r.dtype.names:
        # the four 8-card hands of the complete deal: a partition of the 32 cards
        dealt = r["dealt"].astype(np.uint64)
        assert (dealt[canc] == 0).all()
        dp = dealt[played]
        union = dp[:, 0] | dp[:, 1] | dp[:, 2] | dp[:, 3]
        assert (union == 0xFFFFFFFF).all()
        assert (dp.sum(1) == 0xFFFFFFFF).all(), "disjoint hands"
        pc = np.unpackbits(dp.astype("<u4").view(np.uint8).reshape(-1, 4, 4), axis=2).sum(2)
        assert (pc == 8).all()
        offer_bit = np.uint64(1) << r["offer"][played].astype(np.uint64)
        b = bidder[played]
        in_bidder = (dp[np.arange(len(dp)), b] & offer_bit) != 0
        in_partner = (dp[np.arange(len(dp)), b ^ 2] & offer_bit) != 0
        if variant == "baloot":
            assert (in_bidder | (in_partner & (kind[played] == 2))).all(), "offer to the taker (ashkal: partner)"
        else:
            assert in_bidder.all(), "the taker receives the offer"

    T = bidder % 2                       # takers / buyers
    D = 1 - T
    rows = np.arange(n)
    cpT, cpD = cp[rows, T], cp[rows, D]
    hsT, hsD = hs[rows, T], hs[rows, D]
    dT = np.where(r["decl_team"] == T, r["decl_value"], 0).astype(np.int64)
    dD = np.where(r["decl_team"] == D, r["decl_value"], 0).astype(np.int64)
    dAll = dT + dD
    bT = np.where(r["belote"] == T, 20, 0)
    bD = np.where(r["belote"] == D, 20, 0)
    capT = r["capot"] == T
    capD = r["capot"] == D
    made, failed, litige = played & (out == 0), played & (out == 1), played & (out == 2)

    if variant != "baloot":
        assert (kind != 2).all(), "no Sun outside baloot"
        assert (r["multiplier"] == 1).all() and (r["gahwa"] == 0).all()

    if variant == "balout":
        # made / failed / litige from the card points only (RULES.md 3)
        assert (made == (played & (cpT > cpD))).all()
        assert (failed == (played & (cpT < cpD))).all()
        assert (litige == (played & (cpT == cpD))).all()
        assert (cpT[litige] == 81).all()
        # capot: a team with zero card points gives the other +100
        zero = played & ((cp == 0).any(1))
        assert ((r["capot"] >= 0) == zero).all()
        assert (cp[rows[r["capot"] >= 0], 1 - r["capot"][r["capot"] >= 0]] == 0).all()
        cap100T, cap100D = np.where(capT, 100, 0), np.where(capD, 100, 0)
        m = made
        assert (hsT[m] == (cpT + dT + bT + cap100T)[m]).all()
        assert (hsD[m] == (cpD + dD + bD + cap100D)[m]).all()
        f = failed
        assert (hsT[f] == (bT + cap100T)[f]).all()
        assert (hsD[f] == (162 + dAll + bD + cap100D)[f]).all()
        l_ = litige
        assert (hsT[l_] == bT[l_]).all()
        assert (hsD[l_] == (81 + dD + bD)[l_]).all()
    elif variant == "belote":
        assert not litige.any(), "no litige in belote"
        # contract: takers' card points + their scoring declarations >= 82
        assert (made == (played & (cpT + dT >= 82))).all()
        # capot: all 8 tricks, 250 instead of the 162
        all8 = played & (tw == 8).any(1)
        assert ((r["capot"] >= 0) == all8).all()
        assert (tw[rows[r["capot"] >= 0], r["capot"][r["capot"] >= 0]] == 8).all()
        cardT = np.where(capT, 250, cpT)
        cardD = np.where(capD, 250, cpD)
        m, f = made, failed
        assert (hsT[m] == (cardT + dT + bT)[m]).all()
        assert (hsD[m] == (cardD + dD + bD)[m]).all()
        assert (hsT[f] == bT[f]).all()
        assert (hsD[f] == (np.where(capD, 250, 162) + dAll + bD)[f]).all()
    else:
        assert not litige.any(), "no litige in baloot"
        assert np.isin(r["multiplier"], [1, 2, 3, 4]).all()
        # independent hands start at 0-0: Sun can never be doubled
        assert (r["multiplier"][kind == 2] == 1).all()
        g = r["gahwa"] == 1
        assert np.isin(r["gahwa"], [0, 1]).all()
        assert (r["multiplier"][g] == 4).all() and (kind[g] == 1).all()
        # kaboot: all 8 tricks
        all8 = played & (tw == 8).any(1)
        assert ((r["capot"] >= 0) == all8).all()
        # failed: the buyers score nothing; doubled: the loser scores nothing
        assert (hsT[failed] == 0).all()
        doubled = played & (r["multiplier"] > 1)
        assert ((hs[doubled] == 0).any(1)).all()
        assert (np.sort(hs[g], 1) == [0, 152]).all()
        # an undoubled, non-kaboot hand shares the 16 / 26 game points
        plain = made & (r["multiplier"] == 1) & (r["capot"] < 0)
        base = np.where(kind == 2, 26, 16)
        bal = np.where(r["belote"] >= 0, 2, 0)
        assert (hs.sum(1)[plain] == (base + dAll + bal)[plain]).all()


@pytest.mark.parametrize("policy", POLICY_SPECS, ids=["random", "greedy", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_row_invariants(variant, policy):
    sim = run(variant, policy)
    assert isinstance(sim, Simulation) and len(sim) == 20_000
    assert sim.hands.shape == (20_000,) and not sim.interrupted
    check_rows(variant, sim.hands)
    # every outcome that the variant has actually occurs in 20,000 hands
    counts = np.bincount(sim.hands["outcome"], minlength=4)
    assert counts[0] > 0 and counts[1] > 0
    if variant == "balout" and policy == "random":
        assert counts[2] > 0 and counts[3] > 0


def test_row_invariants_with_options():
    opts = (("declarations", "off"),)
    sim = run("balout", "random", 5_000, options=opts)
    check_rows("balout", sim.hands)
    assert (sim.hands["decl_team"] == -1).all()


def test_forced_take_on_jack_offer():
    r = run("balout", "random").hands
    jack = (r["offer"] & 7) == 4
    assert jack.sum() > 1000
    assert (r["bidder"][jack] == (r["dealer"][jack] + 1) % 4).all()
    assert (r["auction_round"][jack] == 1).all()
    assert (r["trump"][jack] == r["offer"][jack] >> 3).all()
    rb = run("belote", "random").hands
    jack = (rb["offer"] & 7) == 4
    assert (rb["outcome"][jack] == 3).any(), "belote: a J offer may be passed"


# ------------------------------------------------------------ reproducibility

@pytest.mark.parametrize("policy", POLICY_SPECS, ids=["random", "greedy", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_rows_any_threads_and_chunks(variant, policy):
    base = run(variant, policy, 20_000, seed=5, threads=1)
    for threads, chunk in ((2, 1 << 15), (2, 1000), (1, 777), (2, 3)):
        if chunk == 3:
            other = run(variant, policy, 2_000, seed=5, threads=threads, chunk=chunk)
            assert same_rows(other.hands, base.hands[:2_000]), (threads, chunk)
            continue
        other = run(variant, policy, 20_000, seed=5, threads=threads, chunk=chunk)
        assert other.threads == threads
        assert same_rows(other.hands, base.hands), (threads, chunk)
        assert (other.aggregate.sums == base.aggregate.sums).all()
    # another seed gives other hands
    assert not same_rows(run(variant, policy, 20_000, seed=6).hands, base.hands)


def test_prefix_of_a_run_is_a_shorter_run():
    long = run("balout", "random", 20_000, seed=9)
    short = balout.simulate("balout", 1234, seed=9, threads=2, chunk_size=100)
    assert same_rows(short.hands, long.hands[:1234])


def test_seed_forms():
    a = balout.simulate("belote", 500, seed=123, threads=1)
    b = balout.simulate("belote", 500, seed=np.random.SeedSequence(123), threads=2)
    c = balout.simulate("belote", 500, seed=np.int64(123), threads=1)
    assert same_rows(a.hands, b.hands) and same_rows(a.hands, c.hands)
    assert a.summary()["seed"] == 123
    # no seed: fresh entropy, reported, and it reproduces the run
    d = balout.simulate("belote", 500, threads=1)
    e = balout.simulate("belote", 500, threads=2, seed=d.summary()["seed"])
    assert same_rows(d.hands, e.hands)
    f = balout.simulate("belote", 500, threads=1)
    assert not same_rows(d.hands, f.hands)


def test_policy_spellings_are_equivalent():
    a = balout.simulate("balout", 3_000, ["greedy", "random"], seed=2, threads=1)
    b = balout.simulate("balout", 3_000, "greedy,random", seed=2, threads=1)
    c = balout.simulate("balout", 3_000, ("greedy", "random", "greedy", "random"), seed=2, threads=2)
    assert same_rows(a.hands, b.hands) and same_rows(a.hands, c.hands)
    assert a.summary()["policies"] == ["greedy", "random", "greedy", "random"]
    # the per-seat choice matters
    d = balout.simulate("balout", 3_000, ["random", "greedy"], seed=2, threads=1)
    assert not same_rows(a.hands, d.hands)


# ------------------------------------------------------------ replay

@pytest.mark.parametrize("policy", POLICY_SPECS, ids=["random", "greedy", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_exported_hands_replay_to_the_row(variant, policy):
    sim = run(variant, policy)
    r = sim.hands
    rng = np.random.default_rng(0)
    sample = set(rng.choice(len(r), 25, replace=False).tolist())
    # include interesting hands: cancelled, failed, litige, capot, gahwa, doubled
    for mask in (r["outcome"] == 3, r["outcome"] == 1, r["outcome"] == 2, r["capot"] >= 0,
                 r["gahwa"] == 1, r["multiplier"] > 1, r["belote"] >= 0, r["decl_team"] >= 0):
        hits = np.flatnonzero(mask)
        sample.update(hits[:2].tolist())
        sample.update(hits[-1:].tolist())
    for i in sorted(sample):
        s = sim.state(i)
        assert s.is_terminal()
        assert_row_matches_state(r[i], s, f"hand {i}")
        assert bytes(_core.hand_row(s)) == r[i:i + 1].tobytes()
        rec = sim.record(i)
        assert rec["variant"] == variant and rec["dealer"] == i % 4
        out = replay([rec])
        assert len(out) == 1
        o = out[0]
        assert o["hand_score"] == r[i]["hand_score"].tolist(), (i, o, rec)
        assert o["card_points"] == r[i]["card_points"].tolist(), (i, o, rec)
        assert o["outcome"] == OUTCOMES[r[i]["outcome"]]
        assert o == s.summary()


@pytest.mark.parametrize("options", [None, (("overtrump_when_cutting", False),),
                                     (("undertrump", False), ("partner_winning_frees", False)),
                                     (("declarations", "choice"),)],
                         ids=["default", "no-overtrump", "no-undertrump-no-freeing", "choice"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_native_hand_is_the_step_by_step_hand(variant, options):
    """The native loops (the random play-out keeps the trick in registers)
    leave the very state that applying the same actions one by one gives."""
    for policy in ("random", ("greedy", "random")):
        sim = run(variant, policy, 300, seed=4, options=options)
        for i in range(len(sim)):
            s = sim.state(i)
            t = balout.State(variant, deck=s.deck, dealer=s.dealer, options=dict(options or ()))
            for a in s.action_history:
                t.apply_action(a)
            assert t == s, (policy, i)
            assert bytes(_core.hand_row(t)) == sim.hands[i:i + 1].tobytes()


@pytest.mark.parametrize("variant", VARIANTS)
def test_pdep_and_portable_select_play_the_same_hands(variant):
    fast = _core._use_pdep()
    try:
        _core._use_pdep(False)
        portable = run(variant, "random", 5_000)
        _core._use_pdep(True)
        other = run(variant, "random", 5_000)
    finally:
        _core._use_pdep(fast)
    assert same_rows(portable.hands, other.hands)


def test_exported_hand_with_options_replays():
    opts = (("declarations", "off"), ("target", 1000))
    sim = run("balout", "greedy", 500, options=opts)
    for i in (0, 1, 2, 3, 250, 499):
        rec = sim.record(i)
        assert rec["options"].get("declarations") == "off"
        o = replay([rec])[0]
        assert o["hand_score"] == sim.hands[i]["hand_score"].tolist()


def test_exported_hand_replays_with_the_cli(tmp_path):
    sim = run("baloot", "greedy")
    idx = [int(i) for i in np.flatnonzero(sim.hands["outcome"] != 3)[:3]]
    for i in idx:
        path = tmp_path / f"hand{i}.jsonl"
        dump([sim.record(i)], path)
        p = subprocess.run([sys.executable, "-m", "balout", "replay", "--json", str(path)],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        o = json.loads(p.stdout.splitlines()[0])
        assert o["hand_score"] == sim.hands[i]["hand_score"].tolist()
        assert o["card_points"] == sim.hands[i]["card_points"].tolist()


def test_state_index_checked():
    sim = run("balout", "random", 5_000)
    with pytest.raises(balout.OptionError):
        sim.state(5_000)
    with pytest.raises(balout.OptionError):
        sim.state(-1)


def test_native_hands_equal_a_manual_state_loop():
    """The deck of hand i is HandStream(key, i).deck(); the native random
    policy's draws come from the same stream (HandStream.act), so a plain
    State loop plays exactly the native hands (incl. the inlined play-out)."""
    for variant in VARIANTS:
        for policy in ("random", "greedy", ("greedy", "random")):
            sim = run(variant, policy)
            pols = [GREEDY if p == "greedy" else RANDOM
                    for p in (policy * 4 if isinstance(policy, tuple) else [policy] * 4)][:4]
            for i in range(0, 20_000, 997):
                stream = _core.HandStream(sim.key, i)
                s = balout.State(variant, deck=stream.deck(), dealer=i % 4)
                while not s.is_terminal():
                    s.apply_action(stream.act(s, pols[s.to_act]))
                assert bytes(_core.hand_row(s)) == sim.hands[i:i + 1].tobytes(), (variant, policy, i)


# ------------------------------------------------------------ Python-callable policies

@pytest.mark.parametrize("variant", VARIANTS)
def test_callable_greedy_equals_native_greedy(variant):
    native = run(variant, ("greedy", "random"), 20_000)
    py = balout.simulate(variant, 600, [greedy_callable, "random"], seed=11, threads=2, chunk_size=128)
    assert py.threads == 1
    assert same_rows(py.hands, native.hands[:600])
    assert (py.aggregate.sums == Aggregate.of_rows(py.hands).sums).all()
    # all four seats in Python
    pyall = balout.simulate(variant, 300, greedy_callable, seed=11, threads=1)
    assert same_rows(pyall.hands, run(variant, "greedy", 20_000).hands[:300])
    assert pyall.summary()["policies"] == ["greedy_callable"] * 4


@pytest.mark.parametrize("variant", VARIANTS)
def test_callable_policy_runs_and_rows_are_consistent(variant):
    calls = []

    def first(state):
        calls.append(state.to_act)
        return state.legal_actions()[0]

    n = 400
    a = balout.simulate(variant, n, first, seed=4, threads=1, chunk_size=64)
    b = balout.simulate(variant, n, first_legal, seed=4, threads=2)
    assert same_rows(a.hands, b.hands)
    assert len(calls) >= 8 * n   # at least the two rounds of passes
    check_rows(variant, a.hands)
    assert (a.aggregate.sums == Aggregate.of_rows(a.hands).sums).all()
    for i in (0, 1, 2, 3, 57, 399):
        deck = _core.HandStream(a.key, i).deck()
        s = balout.State(variant, deck=deck, dealer=i % 4)
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[0])
        assert_row_matches_state(a.hands[i], s, f"hand {i}")
        assert bytes(_core.hand_row(s)) == a.hands[i:i + 1].tobytes()
    with pytest.raises(balout.BaloutError):
        a.state(0)   # Python-played hands are not regenerated


def test_callable_policy_illegal_action_is_an_error():
    def bad(state):
        return 31 if state.phase != "play" else 200

    with pytest.raises(balout.BaloutError):
        balout.simulate("balout", 10, bad, seed=1, threads=1)


# ------------------------------------------------------------ distributions

def sigma_bound(k, n, p, z=6.0):
    return abs(k - n * p) <= z * math.sqrt(n * p * (1 - p))


@pytest.mark.parametrize("variant", VARIANTS)
def test_dealer_and_offer_distribution(variant):
    n = 1_000_003
    sim = balout.simulate(variant, n, "random", seed=2024, threads=2, aggregate_only=True)
    agg = sim.aggregate
    # each seat deals a quarter of the hands (dealer of hand i is i % 4): exact
    assert agg["dealer"].tolist() == [250_001, 250_001, 250_001, 250_000]
    # the offer suit is uniform: 6 sigma of a binomial
    suits = agg["offer_suit"]
    assert suits.sum() == n
    for k in suits:
        assert sigma_bound(int(k), n, 0.25), suits
    # chi-square over the 4 suits (3 dof): P(chi2 > 30) ~ 1.4e-6
    chi2 = ((suits - n / 4) ** 2 / (n / 4)).sum()
    assert chi2 < 30, chi2


@pytest.mark.parametrize("variant", VARIANTS)
def test_offer_card_uniform_in_rows(variant):
    r = run(variant, "random", 200_000, seed=77, threads=2).hands
    counts = np.bincount(r["offer"], minlength=32)
    assert len(counts) == 32
    for k in counts:
        assert sigma_bound(int(k), len(r), 1 / 32), counts
    chi2 = ((counts - len(r) / 32) ** 2 / (len(r) / 32)).sum()
    assert chi2 < 80, chi2   # 31 dof: P(chi2 > 80) ~ 2e-6


def test_random_policy_first_bid_is_uniform():
    """Seat d+1 speaks first and chooses uniformly among its legal bids.
    balout: take is forced on a J offer, else 1/2 -> 1/8 + 7/8 * 1/2 = 0.5625.
    belote: pass/take -> 0.5."""
    for variant, p in (("balout", 0.5625), ("belote", 0.5)):
        r = run(variant, "random", 200_000, seed=77, threads=2).hands
        first = (r["bidder"] == (r["dealer"] + 1) % 4) & (r["auction_round"] == 1)
        assert sigma_bound(int(first.sum()), len(r), p), (variant, first.mean())


def test_greedy_beats_random():
    sim = balout.simulate("balout", 200_000, ["greedy", "random"], seed=31, threads=2)
    s = sim.summary()
    t0, t1 = s["hand_score"]
    assert t0["value"] > t1["value"]
    assert t0["ci95"][0] > t1["ci95"][1], (t0, t1)
    # the reverse seating reverses it
    s2 = balout.simulate("balout", 200_000, ["random", "greedy"], seed=31, threads=2,
                         aggregate_only=True).summary()
    assert s2["hand_score"][1]["ci95"][0] > s2["hand_score"][0]["ci95"][1]


@pytest.mark.parametrize("variant", ("belote", "baloot"))
def test_greedy_beats_random_other_variants(variant):
    s = balout.simulate(variant, 100_000, ["greedy", "random"], seed=32, threads=2,
                        aggregate_only=True).summary()
    t0, t1 = s["hand_score"]
    assert t0["ci95"][0] > t1["ci95"][1], (t0, t1)


# ------------------------------------------------------------ aggregate mode

@pytest.mark.parametrize("policy", POLICY_SPECS, ids=["random", "greedy", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_aggregate_equals_sum_of_rows(variant, policy):
    sim = run(variant, policy)
    from_rows = Aggregate.of_rows(sim.hands)
    assert (sim.aggregate.sums == from_rows.sums).all(), (sim.aggregate.to_dict(), from_rows.to_dict())
    agg = balout.simulate(variant, 20_000, list(policy) if isinstance(policy, tuple) else policy,
                          seed=11, threads=2, chunk_size=3_001, aggregate_only=True)
    assert agg.hands is None and len(agg) == 20_000
    assert (agg.aggregate.sums == sim.aggregate.sums).all()
    d = agg.aggregate.to_dict()
    assert set(d) == {f for f, _ in AGGREGATE_FIELDS}
    assert d["hands"] == 20_000 and sum(d["outcome"]) == 20_000 and sum(d["kind"]) == 20_000
    assert d["outcome"][3] == d["kind"][0]
    # independent, hand-made checks of a few sums
    r = sim.hands
    assert d["card_points"] == r["card_points"].astype(np.int64).sum(0).tolist()
    assert d["hand_score_sq"] == (r["hand_score"].astype(np.int64) ** 2).sum(0).tolist()
    assert d["taker_team0"] == int(((r["bidder"] >= 0) & (r["bidder"] % 2 == 0)).sum())
    assert d["gahwa"] == int(r["gahwa"].sum())
    with pytest.raises(KeyError):
        agg.aggregate["nope"]


def test_aggregate_mode_memory_is_flat():
    """Aggregate mode holds a bounded number of chunks whatever the number of
    hands: 20 times more hands (and chunks) must not raise the peak. Small
    chunks make a per-chunk leak visible (1e9 hands is 30,518 default chunks)."""
    def peak(n):
        tracemalloc.start()
        try:
            sim = balout.simulate("balout", n, "random", seed=1, threads=2, aggregate_only=True,
                                  chunk_size=1_000)
            assert len(sim) == n
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(1_000)
    small, big = peak(100_000), peak(2_000_000)
    assert big < small * 1.5 + 64 * 1024, (small, big)


def test_rows_are_compact_and_huge_runs_need_aggregate_mode():
    assert HAND_DTYPE.itemsize <= 64
    sim = run("balout", "random")
    assert sim.hands.nbytes / len(sim) <= 64
    t = time.perf_counter()
    with pytest.raises(balout.OptionError, match="aggregate_only"):
        balout.simulate("balout", 10**9, seed=1)
    assert time.perf_counter() - t < 5   # refused before allocating anything


def test_zero_hands():
    sim = balout.simulate("balout", 0, seed=1, threads=2)
    assert len(sim) == 0 and sim.hands.shape == (0,) and sim.aggregate["hands"] == 0
    s = sim.summary()
    assert s["hands"] == 0 and s["played"] == 0


# ------------------------------------------------------------ summary

def _intervals(obj, path=""):
    if isinstance(obj, dict):
        if "value" in obj and "ci95" in obj:
            yield path, obj
        else:
            for k, v in obj.items():
                yield from _intervals(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _intervals(v, f"{path}[{i}]")


@pytest.mark.parametrize("policy", ("random", ("greedy", "random")), ids=["random", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_summary(variant, policy):
    sim = run(variant, policy)
    s = sim.summary()
    r = sim.hands
    played = r[r["outcome"] != 3]
    n = len(r)
    assert s["hands"] == n and s["played"] == len(played)
    assert s["variant"] == variant and s["seed"] == 11 and s["threads"] == 1
    assert s["interrupted"] is False
    assert s["hands_per_s"] > 0 and s["seconds"] > 0
    json.dumps(s, allow_nan=False)
    found = list(_intervals(s))
    assert len(found) >= 13
    for path, d in found:
        v, (lo, hi) = d["value"], d["ci95"]
        assert lo <= v <= hi, (path, d)
        if path.endswith("rate") or "_rate" in path:
            assert 0 <= lo <= v <= hi <= 1, (path, d)
    # the figures are the row statistics
    assert s["make_rate"]["value"] == pytest.approx((played["outcome"] == 0).mean())
    assert s["failure_rate"]["value"] == pytest.approx((played["outcome"] == 1).mean())
    assert s["cancelled_rate"]["value"] == pytest.approx((r["outcome"] == 3).mean())
    for t in (0, 1):
        hs = played["hand_score"][:, t].astype(np.float64)
        m = s["hand_score"][t]
        assert m["value"] == pytest.approx(hs.mean())
        half = 1.959964 * hs.std(ddof=1) / math.sqrt(len(hs))
        assert m["ci95"][1] - m["value"] == pytest.approx(half, rel=1e-6)
        assert s["card_points"][t]["value"] == pytest.approx(played["card_points"][:, t].mean())
        assert s["belote_rate"][t]["value"] == pytest.approx((played["belote"] == t).mean())


# ------------------------------------------------------------ matches

@pytest.mark.parametrize("policy", ("random", "greedy", ("greedy", "random")),
                         ids=["random", "greedy", "greedy-vs-random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_simulate_matches(variant, policy):
    pol = list(policy) if isinstance(policy, tuple) else policy
    n = 400
    m = balout.simulate_matches(variant, n, pol, seed=8, threads=1)
    assert isinstance(m, MatchSimulation) and len(m) == n and not m.interrupted
    w, h, sc = m.winner, m.hands, m.score
    assert np.isin(w, [0, 1]).all(), np.unique(w)
    assert (h >= 1).all()
    assert sc.shape == (n, 2)
    target = TARGET[variant]
    ws = sc[np.arange(n), w]
    ls = sc[np.arange(n), 1 - w]
    assert (ws >= target).all(), ws.min()
    assert (ws > ls).all()
    assert (sc >= 0).all()
    # a whole match takes several hands (a hand scores at most ~ 400 points in balout)
    assert h.mean() > 2
    # reproducible whatever the threads and chunks
    m2 = balout.simulate_matches(variant, n, pol, seed=8, threads=2, chunk_size=7)
    assert (m2.winner == w).all() and (m2.hands == h).all() and (m2.score == sc).all()
    m3 = balout.simulate_matches(variant, 100, pol, seed=8, threads=2, chunk_size=1)
    assert (m3.score == sc[:100]).all()
    m4 = balout.simulate_matches(variant, n, pol, seed=9, threads=2)
    assert not (m4.score == sc).all()
    s = m.summary()
    assert s["matches"] == n and s["undecided"] == 0
    lo, hi = s["team0_win_rate"]["ci95"]
    assert 0 <= lo <= s["team0_win_rate"]["value"] <= hi <= 1
    assert s["hands_per_match"]["value"] == pytest.approx(h.mean())
    json.dumps(s, allow_nan=False)


def test_matches_greedy_beats_random_and_target_option():
    m = balout.simulate_matches("balout", 2_000, ["greedy", "random"], seed=3, threads=2)
    s = m.summary()
    assert s["team0_win_rate"]["ci95"][0] > 0.5, s
    big = balout.simulate_matches("balout", 200, "random", seed=3, threads=2, options={"target": 1000})
    assert (big.score[np.arange(200), big.winner] >= 1000).all()
    assert big.hands.mean() > balout.simulate_matches("balout", 200, "random", seed=3).hands.mean()


def test_baloot_matches_end_with_gahwa_allowed():
    # doubling (and gahwa, were it called) may end a match early; every match must end
    m = balout.simulate_matches("baloot", 3_000, "greedy", seed=12, threads=2)
    assert (m.winner >= 0).all()
    assert (m.score[np.arange(len(m)), m.winner] >= 152).all()
    # greedy baloot hands are sometimes doubled
    g = balout.simulate("baloot", 300_000, "greedy", seed=12, threads=2, aggregate_only=True)
    assert int(g.aggregate["doubled"]) > 0


def test_matches_max_hands():
    m = balout.simulate_matches("balout", 50, "random", seed=1, max_hands=1)
    assert (m.hands == 1).all() and (m.winner == -1).all()
    assert m.summary()["undecided"] == 50


def test_matches_reject_python_policies():
    with pytest.raises(balout.OptionError, match="native"):
        balout.simulate_matches("balout", 10, first_legal, seed=1)


# ------------------------------------------------------------ save / load

def test_save_load_round_trip(tmp_path):
    sim = run("baloot", ("greedy", "random"))
    path = tmp_path / "run.npz"
    sim.save(str(path))
    z = load(str(path))
    assert same_rows(z["hands"], sim.hands)
    assert (z["aggregate"] == sim.aggregate.sums).all()
    meta = z["meta"]
    assert meta["variant"] == "baloot" and meta["n"] == 20_000 and meta["seed"] == 11
    assert meta["policies"] == ["greedy", "random", "greedy", "random"]
    assert meta["interrupted"] is False
    # the saved metadata re-runs to the same rows
    again = balout.simulate(meta["variant"], meta["n"], meta["policies"], seed=meta["seed"],
                            options=meta["options"], threads=2)
    assert same_rows(again.hands, sim.hands)
    # aggregate-only runs save without rows
    agg = balout.simulate("balout", 1_000, seed=1, aggregate_only=True)
    agg.save(str(tmp_path / "agg.npz"))
    z2 = load(str(tmp_path / "agg.npz"))
    assert "hands" not in z2 and (z2["aggregate"] == agg.aggregate.sums).all()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".balout-")] == []


def test_save_interrupted_leaves_no_partial_file(tmp_path, monkeypatch):
    sim = run("balout", "random", 5_000)
    path = tmp_path / "out.npz"
    sim.save(str(path))
    before = path.read_bytes()

    real = np.savez

    def savez_then_ctrl_c(f, **arrays):
        real(f, **arrays)
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", savez_then_ctrl_c)
    other = run("balout", "greedy", 5_000)
    with pytest.raises(KeyboardInterrupt):
        other.save(str(path))
    with pytest.raises(KeyboardInterrupt):
        other.save(str(tmp_path / "new.npz"))
    assert path.read_bytes() == before, "the old file is untouched"
    assert not (tmp_path / "new.npz").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]


# ------------------------------------------------------------ Ctrl-C in the API

def _interrupt_after(seconds):
    t = threading.Timer(seconds, _thread.interrupt_main)
    t.daemon = True
    t.start()
    return t


def test_ctrl_c_returns_the_finished_prefix():
    n = 200_000_000
    t0 = time.perf_counter()
    timer = _interrupt_after(0.5)
    try:
        sim = balout.simulate("balout", n, "random", seed=21, threads=2, aggregate_only=True,
                              chunk_size=10_000)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped simulate()")
    finally:
        timer.cancel()
    assert time.perf_counter() - t0 < 30
    assert sim.interrupted and sim.summary()["interrupted"] is True
    assert 0 < len(sim) < n and len(sim) % 10_000 == 0
    assert int(sim.aggregate["hands"]) == len(sim)
    # the partial result is exactly the first hands of the run
    again = balout.simulate("balout", len(sim), "random", seed=21, threads=2, aggregate_only=True)
    assert (again.aggregate.sums == sim.aggregate.sums).all()


def test_ctrl_c_with_rows_keeps_consistent_rows():
    timer = _interrupt_after(0.5)
    try:
        sim = balout.simulate("belote", 100_000_000, "greedy", seed=22, threads=2,
                              chunk_size=5_000)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped simulate()")
    finally:
        timer.cancel()
    assert sim.interrupted and 0 < len(sim) < 100_000_000
    assert len(sim.hands) == len(sim) == int(sim.aggregate["hands"])
    assert (Aggregate.of_rows(sim.hands).sums == sim.aggregate.sums).all()
    check_rows("belote", sim.hands)
    k = min(len(sim), 20_000)
    again = balout.simulate("belote", k, "greedy", seed=22, threads=1)
    assert same_rows(again.hands, sim.hands[:k])


def test_ctrl_c_in_matches():
    timer = _interrupt_after(0.5)
    try:
        m = balout.simulate_matches("belote", 2_000_000, "random", seed=2, threads=2, chunk_size=64)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped simulate_matches()")
    finally:
        timer.cancel()
    assert m.interrupted and 0 < len(m) < 2_000_000
    assert np.isin(m.winner, [0, 1]).all() and (m.hands >= 1).all()
    k = min(len(m), 500)
    again = balout.simulate_matches("belote", k, "random", seed=2, threads=1)
    assert (again.score == m.score[:k]).all()


# ------------------------------------------------------------ bad arguments

@pytest.mark.parametrize("kwargs, message", [
    (dict(variant="bridge"), "unknown variant"),
    (dict(variant=3), "unknown variant"),
    (dict(policy="smart"), "unknown policy"),
    (dict(policy=["random", "smart"]), "unknown policy"),
    (dict(policy="random,smart"), "unknown policy"),
    (dict(policy=["random", "greedy", "random"]), "2 .*4"),
    (dict(policy=[]), "2 .*4"),
    (dict(policy=5), "policy"),
    (dict(hands=-1), "non-negative"),
    (dict(hands=1.5), "hands"),
    (dict(hands="10"), "hands"),
    (dict(hands=True), "hands"),
    (dict(threads=0), "threads"),
    (dict(threads=-2), "threads"),
    (dict(threads=1.5), "threads"),
    (dict(seed="x"), "seed"),
    (dict(seed=-1), "non-negative"),
    (dict(seed=1.5), "seed"),
    (dict(seed=True), "seed"),
    (dict(options={"nope": 1}), "unknown option 'nope'"),
    (dict(options={"target": 7}), "target"),
    (dict(options={"doubling": False}), "does not apply"),
    (dict(options=[1, 2]), "options"),
    (dict(chunk_size=0), "chunk_size"),
])
def test_bad_arguments(kwargs, message):
    args = dict(variant="balout", hands=10, policy="random", seed=1, threads=1)
    args.update(kwargs)
    variant, hands, policy = args.pop("variant"), args.pop("hands"), args.pop("policy")
    with pytest.raises(balout.OptionError, match=message):
        balout.simulate(variant, hands, policy, **args)


@pytest.mark.parametrize("kwargs, message", [
    (dict(variant="bridge"), "unknown variant"),
    (dict(policy="smart"), "unknown policy"),
    (dict(policy=["random"] * 3), "2 .*4"),
    (dict(matches=-1), "non-negative"),
    (dict(matches=2.5), "matches"),
    (dict(threads=0), "threads"),
    (dict(seed="x"), "seed"),
    (dict(seed=-1), "non-negative"),
    (dict(max_hands=0), "max_hands"),
    (dict(options={"nope": 1}), "unknown option"),
])
def test_bad_arguments_matches(kwargs, message):
    args = dict(variant="balout", matches=10, policy="random", seed=1, threads=1)
    args.update(kwargs)
    variant, n, policy = args.pop("variant"), args.pop("matches"), args.pop("policy")
    with pytest.raises(balout.OptionError, match=message):
        balout.simulate_matches(variant, n, policy, **args)


# ------------------------------------------------------------ the CLI

def cli(*args, timeout=120):
    p = subprocess.run([sys.executable, "-m", "balout", "simulate", *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def _strict(text):
    def no_constant(c):
        raise ValueError(f"not JSON: {c}")
    return json.loads(text, parse_constant=no_constant)


def test_cli_json_and_out(tmp_path):
    out = tmp_path / "rows.npz"
    rc, stdout, stderr = cli("--variant", "belote", "--hands", 30_000, "--policy", "greedy,random",
                             "--seed", 11, "--threads", 2, "--out", out, "--json")
    assert rc == 0, stderr
    lines = stdout.strip().splitlines()
    assert len(lines) == 1
    s = _strict(lines[0])
    assert s["hands_per_s"] > 0 and s["hands"] == 30_000 and s["variant"] == "belote"
    assert s["seed"] == 11 and s["threads"] == 2 and s["interrupted"] is False
    z = load(str(out))
    api = balout.simulate("belote", 30_000, ["greedy", "random"], seed=11, threads=1)
    assert same_rows(z["hands"], api.hands)
    assert z["meta"]["n"] == 30_000
    assert s["make_rate"] == api.summary()["make_rate"]
    assert [p.name for p in tmp_path.iterdir()] == ["rows.npz"]


def test_cli_table():
    rc, stdout, stderr = cli("--variant", "baloot", "--hands", 20_000, "--seed", 3, "--threads", 1)
    assert rc == 0, stderr
    assert "hands/s" in stdout and "95% interval" in stdout
    assert "make rate" in stdout and "hand score, team 1" in stdout
    assert "20,000" in stdout and "interrupted" not in stdout


def test_cli_json_zero_hands_is_strict_json():
    rc, stdout, stderr = cli("--hands", 0, "--seed", 1, "--json")
    assert rc == 0, stderr
    _strict(stdout.strip())


@pytest.mark.parametrize("args, message", [
    (("--variant", "bridge"), "invalid choice"),
    (("--policy", "smart"), "unknown policy"),
    (("--policy", "random,greedy,random"), "2 .*4"),
    (("--hands", "-1"), "non-negative"),
    (("--hands", "1.5"), "not an integer"),
    (("--threads", "0"), "at least 1"),
    (("--seed", "x"), "not an integer"),
    (("--seed", "-1"), "non-negative"),
    (("--options", '{"nope": 1}'), "unknown option"),
    (("--options", "{not json"), "--options: not valid JSON .*such as '\\{\"target\": 1000\\}'"),
    (("--options", "[1]"), "--options: give a JSON object"),
])
def test_cli_bad_arguments(tmp_path, args, message):
    import re

    out = tmp_path / "x.npz"
    rc, stdout, stderr = cli("--hands", 100, *args, "--out", out)
    assert rc != 0
    assert re.search(message, stderr), stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_cli_out_in_a_missing_directory_fails_before_the_run(tmp_path):
    """--out is checked before any hand is dealt: a billion hands would
    otherwise be simulated for nothing."""
    out = tmp_path / "no" / "such" / "x.npz"
    rc, stdout, stderr = cli("--hands", 10 ** 9, "--out", out)
    assert rc == 2 and stdout == ""
    assert f"--out: no such directory: {out.parent}" in stderr and "Traceback" not in stderr


def test_cli_out_where_nothing_can_be_written_fails_before_the_run(tmp_path, monkeypatch, capsys):
    """The directory is checked by a real write before the run starts (a
    read-only mount, or /proc, refuses new files even to root, for whom
    os.access says yes), and the error gives the system's reason."""
    from balout import cli as balout_cli
    from balout.simulate import Simulation

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    def no_run(*args, **kwargs):
        raise AssertionError("the simulation ran")

    monkeypatch.setattr(balout_cli.tempfile, "TemporaryFile", read_only)
    monkeypatch.setattr(Simulation, "save", no_run)
    monkeypatch.setattr(sys.modules["balout.simulate"], "simulate", no_run)
    with pytest.raises(SystemExit) as info:
        balout_cli.main(["simulate", "--hands", str(10 ** 9), "--out", str(tmp_path / "x.npz")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"--out: cannot write in {tmp_path}: Read-only file system" in err and "Traceback" not in err
    assert os.access(tmp_path, os.W_OK) and list(tmp_path.iterdir()) == []


def test_cli_write_error_is_a_message_not_a_traceback(tmp_path, monkeypatch, capsys):
    """A write that fails at the end of a run (a full disk) is reported
    by name, like any other error."""
    from balout.cli import main
    from balout.simulate import Simulation

    def full_disk(self, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(Simulation, "save", full_disk)
    out = tmp_path / "x.npz"
    assert main(["simulate", "--hands", "100", "--seed", "1", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"balout simulate: error: No space left on device: {out}"


def test_cli_ctrl_c_stops_cleanly(tmp_path):
    out = tmp_path / "big.npz"
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "w") as err:
        p = subprocess.Popen([sys.executable, "-m", "balout", "simulate", "--hands", "100000000",
                              "--seed", "4", "--threads", "2", "--out", str(out), "--progress"],
                             stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            # wait for the progress bar: the simulation is running
            deadline = time.time() + 30
            while time.time() < deadline and "hands/s" not in err_path.read_text():
                time.sleep(0.05)
            time.sleep(0.7)
            assert p.poll() is None, "the run ended before Ctrl-C"
            p.send_signal(signal.SIGINT)
            stdout, _ = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    stderr = err_path.read_text()
    assert p.returncode == 130, (p.returncode, stdout, stderr)
    assert "interrupted" in stdout, stdout
    assert "hands/s" in stdout
    assert "Traceback" not in stderr
    leftovers = [q.name for q in tmp_path.iterdir() if q.name.startswith(".balout-") or q.suffix == ".tmp"]
    assert leftovers == []
    if out.exists():
        z = load(str(out))
        assert z["meta"]["interrupted"] is True
        n = z["meta"]["n"]
        assert 0 < n < 100_000_000 and len(z["hands"]) == n == int(z["aggregate"][0])
        assert (Aggregate.of_rows(z["hands"]).sums == z["aggregate"]).all()
        check_rows("balout", z["hands"])
        k = min(n, 10_000)
        again = balout.simulate("balout", k, seed=4, threads=1)
        assert same_rows(again.hands, z["hands"][:k])


@pytest.mark.parametrize("n", [1, 4, 10, 100, 3_001, 10**9])
def test_wilson_interval_contains_the_rate_at_the_extremes(n):
    from balout.simulate import wilson
    lo, hi = wilson(0, n)
    assert lo == 0.0 and 0.0 < hi < 1.0
    lo, hi = wilson(n, n)
    assert hi == 1.0 and 0.0 < lo < 1.0
    lo, hi = wilson(n / 2, n)
    assert lo < 0.5 < hi


def test_progress_bar_shows_rate_and_time_left():
    import io

    from balout.simulate import Progress, _duration

    out = io.StringIO()
    bar = Progress(10, "pairs", stream=out)
    bar.start -= 8.0                      # 2 of 10 after 8 s: 0.25 a second, 32 s to go
    bar.update(2, force=True)
    assert "20.0% 2/10 pairs 0.25 pairs/s eta 32s" in out.getvalue()
    bar.update(10, force=True)
    bar.close()
    assert "100.0% 10/10 pairs" in out.getvalue() and "eta" not in out.getvalue().split("\r")[-1]
    assert [_duration(x) for x in (0.2, 42, 185, 3725)] == ["0s", "42s", "3m05s", "1h02m"]


def test_ctrl_c_at_any_moment_of_the_run_returns_its_prefix():
    """Ctrl-C lands at a random moment of each of 60 short runs, small chunks
    finishing all the time: each run returns its finished prefix."""
    rng = random.Random(5)
    for i in range(60):
        presser = press_ctrl_c_once_running(rng.uniform(0.0, 0.05))
        try:
            sim = balout.simulate("balout", 100_000_000, "random", seed=i, threads=2, aggregate_only=True,
                                  chunk_size=rng.choice([1, 50, 2_000]))
        except KeyboardInterrupt:
            pytest.fail(f"Ctrl-C escaped simulate() (run {i})")
        presser.join()
        assert sim.interrupted and int(sim.aggregate["hands"]) == len(sim) < 100_000_000
