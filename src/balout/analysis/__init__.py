"""Rule analysis: named experiments over the native simulator.

>>> from balout.analysis import run_experiment, names
>>> "forced-take" in names()
True
>>> res = run_experiment("forced-take", hands=20_000, seed=1)      # doctest: +SKIP
>>> print(res.table())                                             # doctest: +SKIP

A new experiment is a few lines (see docs/analysis.md)::

    from balout.analysis import Experiment, Run, run_experiment

    def reduce(rows, t):
        r = rows["base"]
        t.rate("make rate", r["outcome"] == 0, where=r["outcome"] <= 2)

    exp = Experiment("my-make-rate", "Make rate", runs=[Run("base")], reduce=reduce)
    print(run_experiment(exp, "belote", hands=1_000_000, seed=1).table())
"""
from .stats import DEFAULT_PRECISION, Estimate, Tally, difference, hands_needed
from .experiment import (EXPERIMENTS, Context, Experiment, ExperimentError, Plot, Result, Run, get, names,
                         register, run_experiment)

__all__ = ["Experiment", "Run", "Plot", "Context", "Result", "Tally", "Estimate", "ExperimentError",
           "run_experiment", "register", "get", "names", "EXPERIMENTS", "difference", "hands_needed",
           "DEFAULT_PRECISION", "describe"]


def describe() -> str:
    """The catalogue: one line per experiment (``balout analyze --list``)."""
    exps = [get(n) for n in names()]
    w = max(len(e.name) for e in exps)
    lines = []
    for e in exps:
        lines.append(f"{e.name.ljust(w)}  {e.description}")
        lines.append(f"{''.ljust(w)}  variants: {', '.join(e.variants)}; default {e.default_hands:,} {e.unit}")
    return "\n".join(lines)
