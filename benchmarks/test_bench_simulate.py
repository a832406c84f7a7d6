"""pytest-benchmark benchmarks of the batch Monte Carlo loop (``balout.simulate``).

Figures (hands/s, ratios, bytes) go to ``extra_info``; rates also go to the
terminal summary of conftest. Ratios are measured inside one benchmark, in
the same run, so they compare like with like on a noisy machine:

* ``random`` and ``greedy`` hands/s on one thread (= per core);
* two threads against one thread;
* the native loop against the same hands played through the Python State API
  (a plain ``legal_actions``/``apply_action`` loop, and ``simulate`` with
  Python-callable policies);
* memory: bytes per hand of the rows, and aggregate mode flat in the number
  of hands (tracemalloc peak).

With ``--benchmark-disable`` every benchmark runs once on a few hands.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import random
import threading
import time
import tracemalloc

import numpy as np
import pytest

import balout
from balout import _core
from balout.simulate import HAND_DTYPE, Aggregate

VARIANTS = ("balout", "belote", "baloot")
RANDOM, GREEDY = 0, 1


def size(full: bool, n: int, small: int = 2_000) -> int:
    return n if full else small


def best_time(fn, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def mean_time(benchmark, fallback: float) -> float:
    stats = getattr(benchmark, "stats", None)
    if stats is None or getattr(benchmark, "disabled", False):
        return fallback
    return stats.stats.mean


# ------------------------------------------------------------ native, one thread

@pytest.mark.parametrize("variant", VARIANTS)
def test_random_one_thread(benchmark, rate, full, variant):
    """Random policy, one thread, aggregate mode: hands/s."""
    n = size(full, 300_000)
    sim = benchmark.pedantic(balout.simulate, args=(variant, n, "random"),
                             kwargs=dict(seed=1, threads=1, aggregate_only=True),
                             rounds=3, iterations=1, warmup_rounds=1 if full else 0)
    assert len(sim) == n and int(sim.aggregate["hands"]) == n
    benchmark.extra_info["hands"] = n
    rate(benchmark, f"sim_random_1thread[{variant}]", n, "hand")


@pytest.mark.parametrize("variant", VARIANTS)
def test_greedy_one_thread(benchmark, rate, full, variant):
    """Greedy policy for all four seats, one thread: hands/s per core."""
    n = size(full, 200_000)
    sim = benchmark.pedantic(balout.simulate, args=(variant, n, "greedy"),
                             kwargs=dict(seed=1, threads=1, aggregate_only=True),
                             rounds=3, iterations=1, warmup_rounds=1 if full else 0)
    assert len(sim) == n
    benchmark.extra_info["hands"] = n
    rate(benchmark, f"sim_greedy_1thread[{variant}]", n, "hand")


def test_random_rows_one_thread(benchmark, rate, full):
    """Per-hand rows (not aggregate mode): the cost of writing the rows."""
    n = size(full, 300_000)
    sim = benchmark.pedantic(balout.simulate, args=("balout", n, "random"),
                             kwargs=dict(seed=1, threads=1), rounds=3, iterations=1)
    assert sim.hands.shape == (n,)
    benchmark.extra_info["hands"] = n
    rate(benchmark, "sim_random_rows_1thread[balout]", n, "hand")


# ------------------------------------------------------------ against a plain C loop

PLAIN_FIELDS = ("hands", "made", "failed", "litige", "cancelled", "capot", "decl",
                "decl_value", "belote", "card_points0", "hand_score0")


@pytest.fixture(scope="session")
def plain_loop(reference_lib):
    """reference/plain_balout.c, built and called through ctypes."""
    fn = reference_lib("plain_balout").plain_balout_random
    fn.argtypes = (ctypes.c_uint64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))
    fn.restype = None

    def run(seed: int, n: int) -> dict:
        out = (ctypes.c_int64 * len(PLAIN_FIELDS))()
        fn(seed, n, out)  # ctypes drops the GIL; one thread
        return dict(zip(PLAIN_FIELDS, out))
    return run


def _close(a_hits, a_n, b_hits, b_n, z=6.0):
    """Two rates agree within z standard errors (z = 6: never flaky)."""
    pa, pb = a_hits / a_n, b_hits / b_n
    p = (a_hits + b_hits) / (a_n + b_n)
    se = (p * (1 - p) * (1 / a_n + 1 / b_n)) ** 0.5
    return abs(pa - pb) <= z * se + 1e-12


def test_random_vs_plain_c_loop(benchmark, rate, full, plain_loop):
    """The engine's random hands (one thread, aggregate mode) against a plain,
    independent C loop doing the same work (benchmarks/reference): interleaved
    runs, best of 7 each, so outside load hits both alike. The two must also
    play the same game: make rate, declaration rate, mean card points."""
    n = size(full, 300_000)
    best = {"engine": float("inf"), "plain": float("inf")}
    sim = plain = None
    for _ in range(7 if full else 1):
        t = time.perf_counter()
        plain = plain_loop(7, n)
        best["plain"] = min(best["plain"], time.perf_counter() - t)
        t = time.perf_counter()
        sim = balout.simulate("balout", n, "random", seed=7, threads=1, aggregate_only=True)
        best["engine"] = min(best["engine"], time.perf_counter() - t)
    agg = sim.aggregate
    played = n - int(agg["outcome"][3])
    assert plain["hands"] == n
    assert _close(int(agg["outcome"][0]), played, plain["made"], n - plain["cancelled"])
    assert _close(int(agg["decl"].sum()), played, plain["decl"], n - plain["cancelled"])
    assert _close(int(agg["belote"].sum()), played, plain["belote"], n - plain["cancelled"])
    # mean card points of team 0 per hand played: within 0.5 point
    assert abs(int(agg["card_points"][0]) / played
               - plain["card_points0"] / (n - plain["cancelled"])) < 0.5
    benchmark.pedantic(plain_loop, args=(7, n), rounds=3, iterations=1)
    benchmark.extra_info["hands"] = n
    if full:
        benchmark.extra_info["engine_hands_per_s"] = round(n / best["engine"], 1)
        benchmark.extra_info["plain_c_hands_per_s"] = round(n / best["plain"], 1)
        benchmark.extra_info["engine_vs_plain_c"] = round(best["plain"] / best["engine"], 3)
    rate(benchmark, "plain_c_loop_random[balout]", n, "hand")


# ------------------------------------------------------------ threads

_BLOB = b"\x5a" * (8 << 20)


def _hash_time(threads: int) -> float:
    """Seconds for 2 x 4 SHA-256 of 8 MiB on `threads` threads (hashlib drops
    the GIL): how much parallelism the machine offers right now."""
    def work(k):
        for _ in range(k):
            hashlib.sha256(_BLOB).digest()

    t = time.perf_counter()
    if threads == 1:
        work(8)
    else:
        ts = [threading.Thread(target=work, args=(4,)) for _ in range(2)]
        for th in ts:
            th.start()
        for th in ts:
            th.join()
    return time.perf_counter() - t


@pytest.mark.parametrize("policy", ("random", "greedy"))
def test_two_threads_vs_one(benchmark, rate, full, policy):
    """Two threads on the same hands; the ratio to one thread is taken from
    interleaved runs (best of 5 each), so a burst of outside load hits both."""
    n = size(full, 400_000)
    sims = {}

    def go(threads):
        sims[threads] = balout.simulate("balout", n, policy, seed=3, threads=threads,
                                        aggregate_only=True)

    best = {1: float("inf"), 2: float("inf")}
    calib = {1: float("inf"), 2: float("inf")}
    for _ in range(5 if full else 1):
        for threads in (1, 2):
            t = time.perf_counter()
            go(threads)
            best[threads] = min(best[threads], time.perf_counter() - t)
            calib[threads] = min(calib[threads], _hash_time(threads))
    # the same hands whatever the threads
    assert (sims[1].aggregate.sums == sims[2].aggregate.sums).all()
    benchmark.pedantic(go, args=(2,), rounds=3, iterations=1)
    benchmark.extra_info["hands"] = n
    benchmark.extra_info["cpu_count"] = os.cpu_count()
    if full:
        ratio = best[1] / best[2]
        machine = calib[1] / calib[2]
        benchmark.extra_info["one_thread_hands_per_s"] = round(n / best[1], 1)
        benchmark.extra_info["two_threads_hands_per_s"] = round(n / best[2], 1)
        benchmark.extra_info["speedup_2_vs_1_threads"] = round(ratio, 3)
        benchmark.extra_info["machine_2_thread_speedup"] = round(machine, 3)
        if machine >= 1.5:
            # two cores were free (a GIL-free hash scales): the nogil loop must
            # scale too; a loop holding the GIL would give about 1
            assert ratio >= 0.75 * machine, f"2 threads x{ratio:.2f}, the machine allows x{machine:.2f}"
    rate(benchmark, f"sim_{policy}_2threads[balout]", n, "hand")


# ------------------------------------------------------------ native vs Python API

def _state_loop(variant, key, start, count, policy=RANDOM):
    """The same hands as the native run, through the per-step State API."""
    rows = np.zeros(count, HAND_DTYPE)
    for j in range(count):
        i = start + j
        stream = _core.HandStream(key, i)
        s = balout.State(variant, deck=stream.deck(), dealer=i & 3)
        while not s.is_terminal():
            s.apply_action(stream.act(s, policy))
        rows[j] = np.frombuffer(_core.hand_row(s), HAND_DTYPE)[0]
    return rows


@pytest.mark.parametrize("variant", VARIANTS)
def test_python_state_loop_vs_native(benchmark, rate, full, variant):
    """A plain State loop (HandStream deck, native draws through HandStream.act,
    legal check and apply_action per step) over the very hands of a native
    run: the rows are identical, and the ratio is the native loop's speed-up."""
    n_py = size(full, 3_000, 200)
    n_nat = size(full, 300_000)
    native = balout.simulate(variant, n_nat, "random", seed=5, threads=1)
    t_nat = best_time(lambda: balout.simulate(variant, n_nat, "random", seed=5, threads=1,
                                              aggregate_only=True), 3 if full else 1)
    rows = benchmark.pedantic(_state_loop, args=(variant, native.key, 0, n_py),
                              rounds=3, iterations=1)
    assert rows.tobytes() == native.hands[:n_py].tobytes(), "the Python loop plays other hands"
    t_py = mean_time(benchmark, None)
    benchmark.extra_info["hands"] = n_py
    if t_py is not None:
        native_rate, py_rate = n_nat / t_nat, n_py / t_py
        benchmark.extra_info["native_hands_per_s"] = round(native_rate, 1)
        benchmark.extra_info["native_vs_state_api"] = round(native_rate / py_rate, 1)
        assert native_rate > py_rate
    rate(benchmark, f"state_api_loop[{variant}]", n_py, "hand")


def test_python_callable_policy_vs_native(benchmark, rate, full):
    """simulate() with a Python-callable policy (random.choice over
    legal_actions) against the native random policy."""
    n_py = size(full, 3_000, 200)
    n_nat = size(full, 300_000)
    t_nat = best_time(lambda: balout.simulate("balout", n_nat, "random", seed=6, threads=1,
                                              aggregate_only=True), 3 if full else 1)
    rng = random.Random(1)

    def py_random(state):
        return rng.choice(state.legal_actions())

    sim = benchmark.pedantic(balout.simulate, args=("balout", n_py, py_random),
                             kwargs=dict(seed=6, threads=1), rounds=3, iterations=1)
    assert len(sim) == n_py
    assert (sim.aggregate.sums == Aggregate.of_rows(sim.hands).sums).all()
    t_py = mean_time(benchmark, None)
    benchmark.extra_info["hands"] = n_py
    if t_py is not None:
        native_rate, py_rate = n_nat / t_nat, n_py / t_py
        benchmark.extra_info["native_hands_per_s"] = round(native_rate, 1)
        benchmark.extra_info["native_vs_python_policy"] = round(native_rate / py_rate, 1)
        assert native_rate > py_rate
    rate(benchmark, "sim_python_callable_policy[balout]", n_py, "hand")


# ------------------------------------------------------------ matches

@pytest.mark.parametrize("variant", VARIANTS)
def test_matches_one_thread(benchmark, rate, full, variant):
    """Whole random matches to the target, one thread: matches/s (and hands/s)."""
    n = size(full, 10_000, 200)
    m = benchmark.pedantic(balout.simulate_matches, args=(variant, n, "random"),
                           kwargs=dict(seed=1, threads=1), rounds=3, iterations=1)
    assert (m.winner >= 0).all()
    hands = int(m.hands.sum())
    benchmark.extra_info["matches"] = n
    benchmark.extra_info["hands_per_match"] = round(hands / n, 2)
    t = mean_time(benchmark, None)
    if t is not None:
        benchmark.extra_info["hands_per_s"] = round(hands / t, 1)
    rate(benchmark, f"sim_matches_1thread[{variant}]", n, "match")


# ------------------------------------------------------------ memory

def test_memory_rows_bytes_per_hand(benchmark, full):
    """Per-hand rows: at most 64 bytes per hand (the whole result, not only the dtype)."""
    n = size(full, 1_000_000, 10_000)
    tracemalloc.start()
    try:
        sim = benchmark.pedantic(balout.simulate, args=("balout", n, "random"),
                                 kwargs=dict(seed=2, threads=2), rounds=1, iterations=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_hand = sim.hands.nbytes / len(sim)
    benchmark.extra_info["row_bytes_per_hand"] = per_hand
    benchmark.extra_info["peak_bytes_per_hand"] = round(peak / n, 2)
    assert per_hand == HAND_DTYPE.itemsize <= 64
    # the run holds the rows and little else
    assert peak / n <= 64, f"{peak / n:.1f} bytes per hand at peak"


def test_memory_aggregate_mode_flat(benchmark, full):
    """Aggregate mode: the tracemalloc peak does not grow with the number of hands."""
    small_n, big_n = 100_000, size(full, 2_000_000, 400_000)

    def peak(n):
        tracemalloc.start()
        try:
            sim = balout.simulate("balout", n, "random", seed=1, threads=2, aggregate_only=True)
            assert sim.hands is None and len(sim) == n
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(1_000)  # warm caches (option resolution, imports)
    small = peak(small_n)
    big = benchmark.pedantic(peak, args=(big_n,), rounds=1, iterations=1)
    benchmark.extra_info["peak_bytes_small"] = small
    benchmark.extra_info["peak_bytes_big"] = big
    benchmark.extra_info["hands_small"] = small_n
    benchmark.extra_info["hands_big"] = big_n
    # flat: a few chunks in flight at most (8 x ~700 bytes), not one result per chunk
    assert big <= small + 16 * 1024, f"peak {small:,} B for {small_n:,} hands, {big:,} B for {big_n:,}"
