"""pytest-benchmark benchmarks of the information-set MCTS (balout._core.ISMCTS).

Iterations per second (one core, the GIL released) mid-hand in each variant,
with greedy and random play-outs; the rates go to ``extra_info``
(``iteration_per_s``) and to the terminal summary. Target: 100,000 / s.
"""
from __future__ import annotations

import pytest

from balout import _core

VARIANTS = ("balout", "belote", "baloot")
ITERATIONS = 20000


@pytest.mark.parametrize("playout", ["greedy", "random"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_ismcts_mid_hand(benchmark, rate, mid_hand_states, variant, playout):
    s = mid_hand_states[variant]
    m = _core.ISMCTS(iterations=ITERATIONS, playout=playout)
    seeds = iter(range(10 ** 9))
    r = benchmark.pedantic(lambda: m.search(s, next(seeds)), rounds=5, iterations=1, warmup_rounds=1)
    assert r["iterations"] == ITERATIONS and r["action"] in s.legal_actions()
    rate(benchmark, f"ismcts[{variant},{playout}]", ITERATIONS, "iteration")


@pytest.mark.parametrize("variant", VARIANTS)
def test_ismcts_first_card(benchmark, rate, variant):
    """The first card of the play: the deepest tree and longest play-outs."""
    import random

    import balout
    rng = random.Random(5)
    seed = 0
    while True:
        s = balout.State(variant, seed=seed)
        while s.phase in ("auction", "doubling"):
            s.apply_action(rng.choice(s.legal_actions()))
        if s.phase == "play":
            break
        seed += 1
    m = _core.ISMCTS(iterations=ITERATIONS)
    r = benchmark.pedantic(lambda: m.search(s, 1), rounds=3, iterations=1, warmup_rounds=1)
    assert r["iterations"] == ITERATIONS
    rate(benchmark, f"ismcts_first_card[{variant}]", ITERATIONS, "iteration")
