"""pytest-benchmark benchmarks of the bot levels' decision time.

The level plays one team's seats against ``easy`` for whole hands, as in
``balout arena``, and every call of its ``act`` is timed (forced moves
included, as the arena counts them). The median, 95th percentile and
maximum go to ``extra_info``. Targets (one core): ``medium`` median at
most 30 ms per move, ``hard`` at most 250 ms.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

import balout
from balout.bots import make_bot

VARIANTS = ("balout", "belote", "baloot")
TARGET_MS = {"medium": 30.0, "hard": 250.0}


def decision_times(level: str, variant: str, hands: int, seed: int) -> np.ndarray:
    """Seconds per decision of ``level`` (team 0) against easy over ``hands`` hands."""
    bots = (make_bot(level, seed), make_bot("easy", seed + 1))
    times = []
    for k in range(hands):
        s = balout.State(variant, seed=seed * 1000 + k, dealer=k % 4)
        while not s.is_terminal():
            team = s.to_act & 1
            t0 = time.perf_counter()
            a = bots[team].act(s)
            if team == 0:
                times.append(time.perf_counter() - t0)
            s.apply_action(a)
    return np.asarray(times)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", ["medium", "hard"])
def test_decision_time(benchmark, full, level, variant):
    hands = 12 if full else 1
    out = {}

    def run():
        out["t"] = decision_times(level, variant, hands, seed=17)

    benchmark.pedantic(run, rounds=1, iterations=1)
    t = out["t"] * 1e3
    assert len(t) >= hands
    benchmark.extra_info.update(decisions=int(len(t)), median_ms=round(float(np.median(t)), 3),
                                p95_ms=round(float(np.percentile(t, 95)), 3),
                                max_ms=round(float(t.max()), 3), target_median_ms=TARGET_MS[level])
