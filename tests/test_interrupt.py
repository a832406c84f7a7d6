"""Ctrl-C stops the long native loops.

PIMC, flat Monte Carlo, ISMCTS and the sampler run in C with the GIL
released; they ask Python's signal handlers every few hundred milliseconds
of work, so a KeyboardInterrupt ends them where they are. Each call below is
given a budget of half a minute or more and interrupted (as Ctrl-C does)
after 0.2 s: it must raise KeyboardInterrupt long before its budget could
end it.
"""
import _thread
import threading
import time

import pytest

import balout
from balout.bots import ISMCTSBot, MonteCarloBot
from balout.search import Sampler, Solver

MINUTES = 10 ** 6  # PIMC worlds: minutes of work (the other budgets are scaled to their speed)


def play_state(variant):
    s = balout.State(variant, seed=3)
    while s.phase != "play":
        s.apply_action(s.legal_actions()[-1])
    return s


def auction_state(variant):
    return balout.State(variant, seed=3)


CALLS = {
    "Solver.pimc": lambda v: Solver(16).pimc(play_state(v), worlds=MINUTES),
    # 10**8 worlds: 30 s at 3-4 million a second (the rows are 1.6 GB of
    # memory, allocated lazily: the 0.2 s touch about 13 MB)
    "Sampler.hands": lambda v: Sampler(play_state(v), play_state(v).to_act).hands(100 * MINUTES, seed=1),
    "flat Monte Carlo bid": lambda v: MonteCarloBot(worlds=100 * MINUTES).act(auction_state(v)),
    "ISMCTS": lambda v: ISMCTSBot(iterations=100 * MINUTES).act(play_state(v)),
}


@pytest.mark.parametrize("variant", ["belote", "baloot"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_ctrl_c_stops_a_long_native_search(call, variant):
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            CALLS[call](variant)
    finally:
        timer.cancel()
    # without the check the call would run for half a minute or more, and only then raise
    assert time.perf_counter() - start < 10


def test_a_search_after_an_interrupted_one_runs_as_before():
    s = play_state("belote")
    first = Solver(16).pimc(s, worlds=8, seed=5)
    solver = Solver(16)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solver.pimc(s, worlds=MINUTES)
    assert solver.pimc(s, worlds=8, seed=5) == first


def test_the_ctrl_c_tests_run_where_ctrl_c_is_ignored():
    """A shell starts background jobs with SIGINT ignored (as `pytest &` in a
    script does): conftest gives Ctrl-C back to Python, so a test pressing
    it still ends, where before it waited forever."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    test = "tests/test_interrupt.py::test_a_search_after_an_interrupted_one_runs_as_before"
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
                         cwd=Path(__file__).parent.parent, capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert out.returncode == 0 and "1 passed" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]
