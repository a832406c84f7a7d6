"""Shared set-up for the benchmarks, and a summary of rates relative to a
plain-Python baseline measured in the same run (the machine is noisy, so the
ratios are the figures to compare across runs).

Run:  python -m pytest benchmarks --benchmark-only
      python -m pytest benchmarks --benchmark-disable     (quick smoke run)
"""
from __future__ import annotations

import os
import random
import sys

import pytest

import balout

VARIANTS = ("balout", "belote", "baloot")

# name -> (seconds per unit, unit) recorded by the benchmarks of this run
RATES: dict = {}
BASELINE = "baseline_toy_step"


def record_rate(benchmark, name: str, units: float, unit: str) -> None:
    """Store units/s in extra_info and in RATES (needs real timings)."""
    stats = getattr(benchmark, "stats", None)
    if stats is None or getattr(benchmark, "disabled", False):
        return
    mean = stats.stats.mean
    benchmark.extra_info[f"{unit}_per_s"] = round(units / mean, 1)
    benchmark.extra_info[f"us_per_{unit}"] = round(mean / units * 1e6, 4)
    RATES[name] = (mean / units, unit)


sys.path.insert(0, os.path.join(os.path.dirname(__file__), "reference"))
import reference  # noqa: E402  (benchmarks/reference/reference.py)


@pytest.fixture(scope="session")
def reference_lib(tmp_path_factory):
    """reference_lib(NAME): benchmarks/reference/NAME.c built as a shared
    library and loaded with ctypes (a RuntimeError with the compiler's
    message if it cannot be built: the yardsticks are part of the figures)."""
    def load(name: str):
        return reference.build(name, str(tmp_path_factory.mktemp(name)))
    return load


@pytest.fixture
def full(request):
    """True when the timings are real (not --benchmark-disable)."""
    return not request.config.getoption("benchmark_disable")


@pytest.fixture
def rate():
    """record_rate(benchmark, name, units, unit), as a fixture for the tests."""
    return record_rate


def play_random(state, rng: random.Random) -> int:
    """Random legal play to the end; returns the number of actions applied."""
    n = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return n


@pytest.fixture(scope="session")
def mid_hand_states():
    """One state per variant in the middle of the play (trick 4, 2 cards down)."""
    out = {}
    for variant in VARIANTS:
        rng = random.Random(12345)
        seed = 1
        while True:
            s = balout.State(variant, seed=seed)
            while not s.is_terminal() and not (s.tricks_played == 3 and len(s.trick_ids) == 2):
                s.apply_action(rng.choice(s.legal_actions()))
            if not s.is_terminal() and s.phase == "play":
                out[variant] = s
                break
            seed += 1
    return out


@pytest.fixture(scope="session")
def match_records():
    """Records of whole random matches per variant (about 300 hands each)."""
    out = {}
    for variant in VARIANTS:
        rng = random.Random(7)
        matches, hands, seed = [], 0, 100
        while hands < 300:
            m = balout.Match(variant, seed=seed)
            while not m.is_over:
                s = m.new_hand()
                play_random(s, rng)
                m.add_hand(s)
            recs = m.records()
            matches.append(recs)
            hands += len(recs)
            seed += 1
        out[variant] = matches
    return out


def pytest_terminal_summary(terminalreporter):
    if not RATES:
        return
    tr = terminalreporter
    tr.section("balout rates (relative to the plain-Python baseline of this run)")
    base = RATES.get(BASELINE)
    for name, (sec, unit) in sorted(RATES.items()):
        line = f"{name:38s} {1 / sec:14,.0f} {unit}/s  {sec * 1e6:10.3f} us/{unit}"
        if base and unit == "step":
            line += f"   x{sec / base[0]:.2f} the baseline step"
        tr.write_line(line)
    if base:
        tr.write_line(f"(baseline: toy list pick + method call, {base[0] * 1e9:.0f} ns per step)")
