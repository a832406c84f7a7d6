"""pytest-benchmark: a random hand through OpenSpiel's API (balout.openspiel),
against the same work through balout's own (test_bench_core's
full_random_hand): what OpenSpiel's Python-game layer costs."""
from __future__ import annotations

import itertools
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from balout.openspiel import register  # noqa: E402


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_openspiel_random_hand(benchmark, rate, variant):
    """new_initial_state, 32 chance draws, then legal_actions / choice /
    apply_action to the end, all through pyspiel."""
    register()
    game = pyspiel.load_game(f"python_{variant}")
    rng = random.Random(1)
    seeds = itertools.count(1)

    def one_hand():
        r = random.Random(next(seeds))
        s = game.new_initial_state()
        for card in r.sample(range(32), 32):
            s.apply_action(card)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        return s

    s = benchmark(one_hand)
    assert s.is_terminal() and sum(s.returns()) == 0
    rate(benchmark, f"openspiel_random_hand[{variant}]", 1, "hand")
