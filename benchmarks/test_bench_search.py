"""pytest-benchmark benchmarks of the search support (balout.search).

* the determinization sampler: worlds/s mid-hand (target 200,000 per core);
* the double-dummy solver on whole deals from the first lead, per contract
  (balout trump, baloot Hokm, baloot Sun): mean, p50, p99 and max time in ms
  and nodes per deal; the same against a plain alpha-beta with a
  transposition table (``benchmarks/reference/plain_dd.c``), the yardstick of
  issue #5, interleaved on the same deals; then the solve time by the number
  of tricks left;
* PIMC (sample + solve every legal card in each world) mid-hand: worlds/s,
  and by hand score or match equity against card points; flat Monte Carlo
  on the first bid by match equity against the hand score.

Every figure goes to ``extra_info`` and to a "balout search" section of the
terminal report. The deal counts: ``BALOUT_BENCH_DEALS`` (default 1000) per
contract, stopped early after ``BALOUT_BENCH_SECONDS`` (default 55) seconds
per contract; the report says how many deals were solved; against the plain
search ``BALOUT_BENCH_PLAIN_DEALS`` (default 100) per contract. With
``--benchmark-disable`` every benchmark runs on a handful of deals.
"""
from __future__ import annotations

import os
import random
import time

import numpy as np
import pytest

import balout
from balout import _core
from balout.bots import GREEDY
from balout.search import Sampler, Solver

VARIANTS = ("balout", "belote", "baloot")
CONTRACTS = (("balout", None), ("baloot", "hokm"), ("baloot", "sun"))
SAMPLER_TARGET = 200_000   # worlds/s per core

DEALS = int(os.environ.get("BALOUT_BENCH_DEALS", "1000"))
PLAIN_DEALS = int(os.environ.get("BALOUT_BENCH_PLAIN_DEALS", "100"))
SECONDS = float(os.environ.get("BALOUT_BENCH_SECONDS", "55"))

LINES: list = []


@pytest.fixture
def say(capsys):
    """Print a report line past the output capture (and keep it in LINES)."""
    def write(line: str) -> None:
        LINES.append(line)
        with capsys.disabled():
            print("\n" + line, flush=True)
    return write


def cards_left(s) -> int:
    return sum(bin(h).count("1") for h in s.hand_masks)


def first_lead(variant: str, kind, seed: int):
    """A deal at the first lead (32 cards in the hands) with the wanted
    contract kind, or None (cancelled, other kind)."""
    rng = random.Random(seed)
    s = balout.State(variant, seed=seed)
    while s.phase in ("auction", "doubling") and not s.is_terminal():
        acts = s.legal_action_strings()
        if s.phase == "auction" and kind == "sun":
            pick = [a for a in acts if a in ("sun", "ashkal")] or acts
        elif s.phase == "auction" and kind == "hokm":
            pick = [a for a in acts if a.startswith("hokm")] or ["pass"]
        elif s.phase == "auction":
            pick = [a for a in acts if a.startswith("take")] or acts
        else:
            pick = ["pass"]
        s.apply_action(rng.choice(pick))
    if s.phase != "play":
        return None
    if (kind == "sun") != (s.trump_id < 0):
        return None
    return s


def deals(variant: str, kind, n: int, seed0: int = 1):
    seed = seed0
    while n:
        s = first_lead(variant, kind, seed)
        seed += 1
        if s is not None:
            n -= 1
            yield s


def pct(values, q) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))


def label(variant, kind) -> str:
    return f"{variant}-{kind or 'trump'}"


# ------------------------------------------------------------------ sampler

@pytest.mark.parametrize("variant", VARIANTS)
def test_sampler_worlds_per_second(benchmark, rate, full, say, mid_hand_states, variant):
    """Sampler.hands(n) mid-hand (trick 4, 2 cards down), from the seat to act."""
    s = mid_hand_states[variant]
    sp = Sampler(s, s.to_act)
    n = 200_000 if full else 2_000
    out = benchmark.pedantic(sp.hands, args=(n, 7), rounds=5 if full else 1, iterations=1,
                             warmup_rounds=1 if full else 0)
    assert out.shape == (n, 4)
    rate(benchmark, f"sampler_worlds[{variant}]", n, "world")
    if full:
        per_s = n / benchmark.stats.stats.mean
        benchmark.extra_info["target_worlds_per_s"] = SAMPLER_TARGET
        benchmark.extra_info["consistent_deals"] = sp.count
        say(f"sampler[{variant}] mid-hand: {per_s:,.0f} worlds/s on one core "
            f"(target {SAMPLER_TARGET:,}: {'met' if per_s >= SAMPLER_TARGET else 'NOT met'}; "
            f"{sp.count:,.0f} consistent deals, {len(s.trick_ids)} cards in the trick)")


def weighted_sampler(benchmark, rate, full, say, s, n, weights, name, what):
    """Sampler.hands(n, 7, *weights) from the seat to act, as a ratio to the
    uniform sampler timed in the same run."""
    sp = Sampler(s, s.to_act)
    uniform = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        sp.hands(n, 7)
        uniform = min(uniform, time.perf_counter() - t0)
    out = benchmark.pedantic(sp.hands, args=(n, 7, *weights), rounds=3 if full else 1, iterations=1)
    assert out.shape == (n, 4)
    rate(benchmark, name, n, "world")
    if full:
        ratio = benchmark.stats.stats.mean / uniform
        benchmark.extra_info["cost_vs_uniform"] = round(ratio, 1)
        say(f"{what}: {n / benchmark.stats.stats.mean:,.0f} worlds/s, x{ratio:.1f} the uniform sampler's time")


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampler_weighted_by_the_auction(benchmark, rate, full, say, mid_hand_states, variant):
    """Sampler.hands(n, seed, bid_weight=0.2) mid-hand: worlds weighted by the
    auction (rejection against the greedy bidder), as a ratio to the uniform
    sampler timed in the same run."""
    weighted_sampler(benchmark, rate, full, say, mid_hand_states[variant], 20_000 if full else 500, (0.2,),
                     f"sampler_weighted[{variant}]", f"sampler[{variant}] weighted by the auction (bid_weight 0.2)")


def greedy_mid_hand(variant: str):
    """A hand played by the greedy player into trick 4 (2 cards down): the
    opponents' plays are the model's, so play reading keeps reading."""
    seed = 1
    while True:
        s = balout.State(variant, seed=seed)
        while not s.is_terminal() and not (s.tricks_played == 3 and len(s.trick_ids) == 2):
            s.apply_action(_core.policy_action(s, 1, 0))
        if not s.is_terminal() and s.phase == "play":
            return s
        seed += 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampler_weighted_by_the_play(benchmark, rate, full, say, variant):
    """Sampler.hands(n, seed, bid_weight=0, play_weight=0) mid-hand after
    greedy play (hard's worlds: each try replays the world's deal), as a
    ratio to the uniform sampler timed in the same run."""
    weighted_sampler(benchmark, rate, full, say, greedy_mid_hand(variant), 2_000 if full else 100, (0.0, 0.0),
                     f"sampler_play_weighted[{variant}]",
                     f"sampler[{variant}] weighted by the auction and the play (bid_weight 0, play_weight 0)")


def after_random_bids(variant: str, count: int) -> list:
    """First-trick positions (0-3 cards down) after an auction and doubling
    of random bids, which the greedy bidder seldom explains."""
    rng = random.Random(variant)
    out, seed = [], 0
    while len(out) < count:
        seed += 1
        s = balout.State(variant, seed=seed)
        while not s.is_terminal() and s.phase != "play":
            s.apply_action(rng.choice(s.legal_actions()))
        for _ in range(rng.randrange(4)):
            if not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal() and len(s.legal_actions()) > 1:
            out.append(s)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_reading_random_bids(benchmark, full, say, variant):
    """hard's first-trick search (flat Monte Carlo, 3,000 worlds read by the
    auction and the play) after random bids, as a ratio to the same search
    on uniform worlds, each position timed both ways in the same round."""
    states = after_random_bids(variant, 12 if full else 2)
    worlds = 3000 if full else 30
    times = {"read": 0.0, "uniform": 0.0}

    def each():
        for s in states:
            for name, w in (("read", 0.0), ("uniform", 1.0)):
                t = time.perf_counter()
                _core.mc_evaluate(s, worlds, GREEDY, 5, w, None, w)
                times[name] += time.perf_counter() - t

    benchmark.pedantic(each, rounds=3 if full else 1, iterations=1)
    if full:
        ratio = times["read"] / times["uniform"]
        n = 3 * len(states)
        benchmark.extra_info["read_vs_uniform"] = round(ratio, 2)
        say(f"flat Monte Carlo[{variant}] after random bids, reading the auction and the play: "
            f"x{ratio:.2f} the time of uniform worlds ({times['read'] * 1e3 / n:.1f} against "
            f"{times['uniform'] * 1e3 / n:.1f} ms a decision)")


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampler_worlds_as_states(benchmark, rate, full, mid_hand_states, variant):
    """Sampler.worlds(n): the same, as State objects (each world dealt from a
    deck of its own and its actions replayed)."""
    s = mid_hand_states[variant]
    sp = Sampler(s, s.to_act)
    n = 20_000 if full else 200
    out = benchmark.pedantic(sp.worlds, args=(n, 7), rounds=3 if full else 1, iterations=1)
    assert len(out) == n
    rate(benchmark, f"sampler_worlds_as_states[{variant}]", n, "world")


@pytest.mark.parametrize("variant", VARIANTS)
def test_state_resample(benchmark, rate, full, mid_hand_states, variant):
    """State.resample(seat, seed), one state at a time as the arena's sealed
    mode asks for it at every decision (the information set and its exact
    counting built anew each call, a deal, its replay)."""
    s = mid_hand_states[variant]
    n = 20_000 if full else 200

    def run():
        for k in range(n):
            s.resample(s.to_act, k)

    benchmark.pedantic(run, rounds=3 if full else 1, iterations=1)
    rate(benchmark, f"state_resample[{variant}]", n, "state")


# ------------------------------------------------------- double-dummy solver

@pytest.mark.parametrize("variant,kind", CONTRACTS, ids=[label(v, k) for v, k in CONTRACTS])
def test_solver_full_deal(benchmark, full, say, variant, kind):
    """Solver.value from the first lead, one solver (table cleared) per deal."""
    limit = DEALS if full else 3
    budget = SECONDS if full else 60.0
    states = list(deals(variant, kind, limit))
    times, nodes = [], []

    def run():
        dd = _core.DoubleDummy(18)
        start = time.perf_counter()
        for s in states:
            dd.clear()
            n0 = dd.nodes
            t = time.perf_counter()
            v = dd.value(s)
            times.append(time.perf_counter() - t)
            nodes.append(dd.nodes - n0)
            assert 0 <= v <= (130 if kind == "sun" else 162)
            if time.perf_counter() - start > budget:
                break

    benchmark.pedantic(run, rounds=1, iterations=1)
    ms = [t * 1e3 for t in times]
    info = {"deals": len(ms), "mean_ms": round(float(np.mean(ms)), 2), "p50_ms": round(pct(ms, 50), 2),
            "p99_ms": round(pct(ms, 99), 2), "max_ms": round(max(ms), 2),
            "mean_nodes": int(np.mean(nodes)), "p50_nodes": int(pct(nodes, 50)),
            "p99_nodes": int(pct(nodes, 99)), "max_nodes": int(max(nodes)),
            "nodes_per_s": int(sum(nodes) / sum(times))}
    benchmark.extra_info.update(info)
    stopped = "" if len(ms) == limit else f" (stopped by the {budget:.0f} s budget; asked {limit})"
    say(f"solver full deal [{label(variant, kind)}]: {len(ms)} deals{stopped}: "
        f"mean {info['mean_ms']} ms, p50 {info['p50_ms']}, p99 {info['p99_ms']}, max {info['max_ms']} ms; "
        f"nodes mean {info['mean_nodes']:,}, p50 {info['p50_nodes']:,}, p99 {info['p99_nodes']:,}, "
        f"max {info['max_nodes']:,}; {info['nodes_per_s']:,} nodes/s")


@pytest.fixture(scope="session")
def plain_dd(reference_lib):
    """The plain solver (benchmarks/reference/plain_dd.c)."""
    from reference import PlainSolver
    solver = PlainSolver(reference_lib("plain_dd"))
    yield solver
    solver.close()


@pytest.mark.parametrize("variant,kind", CONTRACTS, ids=[label(v, k) for v, k in CONTRACTS])
def test_solver_against_plain_alpha_beta(benchmark, full, say, plain_dd, variant, kind):
    """The solver against the yardstick of issue #5, a plain alpha-beta with a
    transposition table (benchmarks/reference/plain_dd.c), on the same deals
    from the first lead, interleaved deal by deal (which goes first
    alternates), each from an empty table: the ratio of their total times
    does not depend on how busy the machine is. The issue puts the plain
    search at about 20 ms a deal and asks for 2 ms, x0.1 of it. Every value
    must agree."""
    n = PLAIN_DEALS if full else 2
    states = list(deals(variant, kind, n, seed0=50_001))
    times = {"plain": [], "balout": []}
    nodes = {"plain": [], "balout": []}
    dd = _core.DoubleDummy(18)

    def ours(s):
        dd.clear()
        n0 = dd.nodes
        return dd.value(s), dd.nodes - n0

    def run():
        for k, s in enumerate(states):
            values = {}
            for name in (("plain", "balout") if k % 2 else ("balout", "plain")):
                t = time.perf_counter()
                values[name], count = (plain_dd.rest if name == "plain" else ours)(s)
                times[name].append(time.perf_counter() - t)
                nodes[name].append(count)
            assert values["plain"] == values["balout"], s.to_record()

    benchmark.pedantic(run, rounds=1, iterations=1)
    ratio = sum(times["balout"]) / sum(times["plain"])
    info = {"deals": n, "time_ratio": round(ratio, 4),
            "nodes_ratio": round(sum(nodes["balout"]) / sum(nodes["plain"]), 4),
            "plain_mean_ms": round(1e3 * float(np.mean(times["plain"])), 2),
            "balout_mean_ms": round(1e3 * float(np.mean(times["balout"])), 3),
            "plain_mean_nodes": int(np.mean(nodes["plain"])),
            "balout_mean_nodes": int(np.mean(nodes["balout"]))}
    benchmark.extra_info.update(info)
    say(f"solver against plain alpha-beta [{label(variant, kind)}]: {n} deals, the same values; "
        f"time x{ratio:.4f} (plain {info['plain_mean_ms']} ms, balout {info['balout_mean_ms']} ms a deal), "
        f"nodes x{info['nodes_ratio']:.4f} ({info['plain_mean_nodes']:,} against "
        f"{info['balout_mean_nodes']:,}); the issue's target is x0.1")


@pytest.mark.parametrize("variant,kind", CONTRACTS, ids=[label(v, k) for v, k in CONTRACTS])
def test_solver_by_tricks_left(benchmark, full, say, variant, kind):
    """Solve time at a trick start with 8, 6, 4 and 2 tricks left (random play
    to there), over the same deals."""
    n = 100 if full else 2
    budget = 15.0 if full else 30.0
    starts = list(deals(variant, kind, n, seed0=50_000))
    positions = {k: [] for k in (8, 6, 4, 2)}
    for i, s0 in enumerate(starts):
        rng = random.Random(i)
        s = s0.clone()
        for k in (8, 6, 4, 2):
            while cards_left(s) > 4 * k:
                s.apply_action(rng.choice(s.legal_actions()))
            positions[k].append(s.clone())
    result = {}

    def run():
        dd = _core.DoubleDummy(18)
        start = time.perf_counter()
        for k in (2, 4, 6, 8):
            ts, ns = [], []
            for s in positions[k]:
                dd.clear()
                n0 = dd.nodes
                t = time.perf_counter()
                dd.value(s)
                ts.append(time.perf_counter() - t)
                ns.append(dd.nodes - n0)
                if time.perf_counter() - start > budget:
                    break
            result[k] = (ts, ns)

    benchmark.pedantic(run, rounds=1, iterations=1)
    parts = []
    for k in (8, 6, 4, 2):
        ts, ns = result[k]
        ms = [t * 1e3 for t in ts]
        benchmark.extra_info[f"tricks{k}_mean_ms"] = round(float(np.mean(ms)), 4)
        benchmark.extra_info[f"tricks{k}_p99_ms"] = round(pct(ms, 99), 4)
        benchmark.extra_info[f"tricks{k}_mean_nodes"] = int(np.mean(ns))
        parts.append(f"{k} tricks: mean {np.mean(ms):.3f} ms p99 {pct(ms, 99):.3f} ms "
                     f"{int(np.mean(ns)):,} nodes ({len(ms)} deals)")
    say(f"solver by tricks left [{label(variant, kind)}]: " + "; ".join(parts))


# --------------------------------------------------------------------- PIMC

@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_mid_hand(benchmark, rate, full, say, mid_hand_states, variant):
    """DoubleDummy().pimc(state, worlds, seed) mid-hand (trick 4, 2 cards
    down): each world solved for every legal card; the table is kept."""
    s = mid_hand_states[variant]
    worlds = 200 if full else 5
    dd = _core.DoubleDummy(18)
    legal, sums, n = benchmark.pedantic(dd.pimc, args=(s, worlds, 3), rounds=3 if full else 1,
                                        iterations=1)
    assert n == worlds and legal == s.legal_mask() & 0xFFFFFFFF
    assert sums[[c for c in range(32) if legal >> c & 1]].min() >= 0
    rate(benchmark, f"pimc_worlds[{variant}]", worlds, "world")
    if full:
        per_s = worlds / benchmark.stats.stats.mean
        nlegal = bin(legal).count("1")
        say(f"pimc[{variant}] mid-hand ({cards_left(s)} cards left, {nlegal} legal cards): "
            f"{per_s:,.0f} worlds/s ({per_s * nlegal:,.0f} card solves/s)")


def test_pimc_objectives_against_points(benchmark, full, say, mid_hand_states):
    """PIMC averaging hand scores (objective="score") and match equity
    (objective="match") against card points: the same worlds, each round
    timing one of each; the ratios are of the fastest rounds."""
    from balout.equity import match_equity
    s = mid_hand_states["belote"]
    worlds = 200 if full else 5
    equity = match_equity(s.variant, s.options).native()
    dd = _core.DoubleDummy(18)
    dd.pimc(s, worlds, 3)   # the table warm for all three
    runs = {"points": (False, None), "score": (True, None), "match": (False, equity)}
    times = {name: [] for name in runs}

    def each():
        for name, (by_score, eq) in runs.items():
            t = time.perf_counter()
            out = dd.pimc(s, worlds, 3, 1.0, None, by_score, 1.0, eq)
            times[name].append(time.perf_counter() - t)
        return out

    legal, sums, n = benchmark.pedantic(each, rounds=7 if full else 1, iterations=1)
    assert n == worlds
    if full:
        base = min(times["points"])
        for name in ("score", "match"):
            ratio = min(times[name]) / base
            benchmark.extra_info[f"{name}_vs_points"] = round(ratio, 3)
            say(f"pimc[belote] by {name}: x{ratio:.3f} the time of card points "
                f"({worlds / min(times[name]):,.0f} against {worlds / base:,.0f} worlds/s)")


@pytest.mark.parametrize("variant", VARIANTS)
def test_flat_monte_carlo_by_match_against_hand_score(benchmark, full, say, variant):
    """Flat Monte Carlo (``mc_evaluate``, greedy play-outs) on the first
    bid, valuing each play-out by match equity against the hand-score
    difference: the same worlds, each round timing one of each; the ratio is
    of the fastest rounds."""
    from balout.equity import match_equity
    s = balout.State(variant, seed=5)
    worlds = 3000 if full else 30
    equity = match_equity(variant).native()
    times = {None: [], "match": []}

    def each():
        for name, eq in ((None, None), ("match", equity)):
            t = time.perf_counter()
            out = _core.mc_evaluate(s, worlds, GREEDY, 9, 1.0, None, 1.0, eq)
            times[name].append(time.perf_counter() - t)
        return out

    values = benchmark.pedantic(each, rounds=7 if full else 1, iterations=1)
    assert set(values) == set(s.legal_actions())
    assert all(0.0 <= v <= 1.0 for v in values.values())
    if full:
        ratio = min(times["match"]) / min(times[None])
        benchmark.extra_info["match_vs_score"] = round(ratio, 3)
        say(f"flat Monte Carlo[{variant}] first bid by match equity: x{ratio:.3f} the time of the hand score "
            f"({worlds / min(times['match']):,.0f} against {worlds / min(times[None]):,.0f} worlds/s)")


def test_pimc_fresh_table_per_call(benchmark, full, say, mid_hand_states):
    """PIMC with a fresh solver each call (table allocation included)."""
    s = mid_hand_states["balout"]
    worlds = 100 if full else 3

    def run():
        return Solver()._native.pimc(s, worlds, 11)

    legal, sums, n = benchmark.pedantic(run, rounds=3 if full else 1, iterations=1)
    assert n == worlds
    if full:
        say(f"pimc[balout] fresh solver per call: {worlds / benchmark.stats.stats.mean:,.0f} worlds/s")
