"""pytest-benchmark benchmarks of the rules core through the Python API.

Rates (steps/s, hands/s) go to ``extra_info`` and, with the ratio to the
plain-Python baseline measured in the same run, to the terminal summary.
"""
from __future__ import annotations

import itertools
import random

import pytest

import balout
from balout.records import replay

VARIANTS = ("balout", "belote", "baloot")
BASELINE = "baseline_toy_step"   # the name conftest's summary divides by

HANDS_PER_ROUND = 20


# ------------------------------------------------------------ legal moves

@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_mid_hand(benchmark, rate, mid_hand_states, variant):
    s = mid_hand_states[variant]
    legal = benchmark(s.legal_actions)
    assert legal and all(a < 32 for a in legal)
    assert legal == sorted(legal)
    rate(benchmark, f"legal_actions[{variant}]", 1, "call")


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_mask_mid_hand(benchmark, rate, mid_hand_states, variant):
    s = mid_hand_states[variant]
    mask = benchmark(s.legal_mask)
    assert mask and mask & ~s.hand_masks[s.to_act] == 0
    rate(benchmark, f"legal_mask[{variant}]", 1, "call")


@pytest.mark.parametrize("kind", ["information_state", "observation"])
def test_tensor_mid_hand(benchmark, rate, mid_hand_states, kind):
    """information_state_tensor (perfect recall) and observation_tensor,
    built in the core, mid-hand in belote."""
    s = mid_hand_states["belote"]
    t = benchmark(getattr(s, f"{kind}_tensor"), s.to_act)
    assert t.sum() > 8
    rate(benchmark, f"{kind}_tensor", 1, "call")


# ------------------------------------------------------------ whole hands

@pytest.mark.parametrize("variant", VARIANTS)
def test_full_random_hand(benchmark, rate, variant):
    """State from a seed, then legal_actions / random.choice / apply_action to the end."""
    seeds = itertools.count(1)
    rng = random.Random(1)

    def one_hand():
        s = balout.State(variant, seed=next(seeds))
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        return s

    s = benchmark(one_hand)
    assert s.is_terminal()
    rate(benchmark, f"full_random_hand[{variant}]", 1, "hand")


def _apply_undo(state, actions, reps: int) -> int:
    for _ in range(reps):
        for a in actions:
            state.apply_action(a)
            state.undo()
    return reps * len(actions)


@pytest.mark.parametrize("kind", ["Card", "name"])
def test_apply_action_by_kind(benchmark, rate, full, mid_hand_states, kind):
    """apply_action + undo mid-hand with the legal cards given as Card
    objects or names (as python-chess users push moves), as a ratio to the
    same with int ids, timed in the same test."""
    import time

    from balout import Card

    s = mid_hand_states["belote"].clone()
    ids = s.legal_actions()
    given = [Card(a) for a in ids] if kind == "Card" else [s.action_to_string(a) for a in ids]
    reps = 20_000 // len(ids)
    by_int = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        _apply_undo(s, ids, reps)
        by_int = min(by_int, time.perf_counter() - t0)
    n = benchmark.pedantic(_apply_undo, args=(s, given, reps), rounds=5, iterations=1, warmup_rounds=1)
    assert s.legal_actions() == ids
    rate(benchmark, f"apply_action[{kind}]", n, "step")
    if full:
        ratio = benchmark.stats.stats.min / by_int
        benchmark.extra_info["time_vs_int_ids"] = round(ratio, 2)
        print(f"\napply_action + undo with {kind}s: x{ratio:.2f} the time with int ids (min of 5 rounds each)")


def _fresh_states(variant, n, seed0=1000):
    return [balout.State(variant, seed=seed0 + i) for i in range(n)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_step_loop(benchmark, rate, variant):
    """The per-step loop only (states dealt outside the timing): steps/s."""
    rng = random.Random(2)
    protos = _fresh_states(variant, 200)
    # the number of steps of this workload, measured once with the same rng
    starts = itertools.cycle(range(0, 200, HANDS_PER_ROUND))
    steps_seen = []

    def setup():
        i = next(starts)
        return ([p.clone() for p in protos[i:i + HANDS_PER_ROUND]],), {}

    def loop(states):
        n = 0
        choice = rng.choice
        for s in states:
            while not s.is_terminal():
                s.apply_action(choice(s.legal_actions()))
                n += 1
        steps_seen.append(n)
        return n

    benchmark.pedantic(loop, setup=setup, rounds=200, iterations=1, warmup_rounds=5)
    steps = sum(steps_seen) / len(steps_seen)
    benchmark.extra_info["steps_per_round"] = steps
    rate(benchmark, f"step_loop[{variant}]", steps, "step")


def test_baseline_toy_step(benchmark, rate):
    """A plain-Python loop of the same shape over a trivial object: pick from
    a list, call a method, check for the end. Ratios are reported against it."""

    class Toy:
        __slots__ = ("n", "acts")

        def __init__(self):
            self.n = 0
            self.acts = [3, 5, 8, 13]

        def legal_actions(self):
            return self.acts[: 4 - (self.n & 1)]

        def apply_action(self, a):
            self.n += 1

        def is_terminal(self):
            return self.n >= 34

    rng = random.Random(3)
    steps_per_round = 34 * HANDS_PER_ROUND

    def setup():
        return ([Toy() for _ in range(HANDS_PER_ROUND)],), {}

    def loop(toys):
        n = 0
        choice = rng.choice
        for s in toys:
            while not s.is_terminal():
                s.apply_action(choice(s.legal_actions()))
                n += 1
        return n

    n = benchmark.pedantic(loop, setup=setup, rounds=200, iterations=1, warmup_rounds=5)
    assert n == steps_per_round
    rate(benchmark, BASELINE, steps_per_round, "step")


# ------------------------------------------------------------ replay

@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_throughput(benchmark, rate, match_records, variant):
    """balout.records.replay over whole matches generated once at set-up."""
    matches = match_records[variant]
    n_hands = sum(len(m) for m in matches)

    def run():
        outs = 0
        for recs in matches:
            outs += len(replay(recs))
        return outs

    outs = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert outs == n_hands
    benchmark.extra_info["hands"] = n_hands
    rate(benchmark, f"replay[{variant}]", n_hands, "hand")
