"""Experiments: declarative specs run over the native simulator.

An :class:`Experiment` names the runs it needs (each a label, rule options
and optionally a policy), a vectorized ``reduce(rows, tally)`` called once
per chunk with the rows of every run for the *same* hands (so two runs with
different options are compared on identical deals: common random numbers),
and an optional ``finalize(tally, ctx)`` that derives further figures.
Experiments over whole matches give ``custom(ctx, tally)`` instead.

:func:`run_experiment` streams the runs in lockstep with
:func:`balout.simulate.iter_simulate`, so memory stays flat in the number
of hands, and returns a :class:`Result`.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from .._user import load, spec_attr
from .. import rules as _rules
from ..errors import OptionError
from ..simulate import Progress, iter_simulate, _policies
from .stats import Estimate, Tally

__all__ = ["Run", "Plot", "Experiment", "Context", "Result", "ExperimentError", "run_experiment",
           "register", "get", "names", "EXPERIMENTS"]

DEFAULT_CHUNK = 1 << 16


class ExperimentError(OptionError):
    """An unknown experiment, or an experiment asked for a variant it does not cover."""


@dataclass(frozen=True)
class Run:
    """One simulated run of an experiment: a label, rule options on top of
    the variant's defaults (and of the user's ``options``), and a policy
    (None: the policy given to :func:`run_experiment`)."""

    label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    policy: Optional[Union[str, Sequence[str]]] = None


@dataclass(frozen=True)
class Plot:
    """A figure drawn from the result: ``metric`` against factor ``x``, one
    line (or bar group) per level of ``series``; ``where`` keeps only the
    rows whose factors have these labels; ``kind`` 'line', 'bar' or
    'heatmap' (``x`` by ``series``, colour = value)."""

    metric: str
    x: str
    series: Optional[str] = None
    kind: str = "line"
    title: Optional[str] = None
    where: Mapping[str, Any] = field(default_factory=dict)
    ylabel: Optional[str] = None


@dataclass
class Context:
    """What a reducer/finalizer/custom runner may need to know about the run."""

    experiment: "Experiment"
    variant: str
    hands: int
    policy: Any
    seed: int
    threads: Optional[int]
    options: Mapping[str, Any]
    chunk_size: int = DEFAULT_CHUNK
    progress: bool = False
    precision: Optional[float] = None
    runs: Sequence[Run] = ()

    def run_options(self, run: Run) -> Dict[str, Any]:
        return {**dict(self.options), **dict(run.options)}


@dataclass(frozen=True)
class Experiment:
    """A named, declarative experiment.

    ``runs``: a sequence of :class:`Run`, or a function ``variant -> runs``.
    ``reduce(rows, tally)``: ``rows`` maps each run label to the numpy rows
    (:data:`balout.simulate.HAND_DTYPE`) of one chunk, the same hand indices
    (same deals) in every run. ``finalize(tally, ctx)``: optional, adds
    derived :class:`~balout.analysis.stats.Estimate` rows to
    ``tally.derived``. ``custom(ctx, tally)``: instead of runs/reduce, for
    experiments over whole matches (``unit='matches'``).
    """

    name: str
    description: str
    variants: Sequence[str] = ("balout", "belote", "baloot")
    runs: Union[Sequence[Run], Callable[[str], Sequence[Run]]] = (Run("base"),)
    reduce: Optional[Callable[[Dict[str, np.ndarray], Tally], None]] = None
    finalize: Optional[Callable[[Tally, Context], None]] = None
    custom: Optional[Callable[[Context, Tally], None]] = None
    plots: Sequence[Plot] = ()
    notes: str = ""
    default_hands: int = 1_000_000
    unit: str = "hands"

    def runs_for(self, variant: str) -> List[Run]:
        runs = self.runs(variant) if callable(self.runs) else self.runs
        return list(runs)

    def with_runs(self, runs) -> "Experiment":
        """The same experiment with other runs (e.g. to check that two equal
        option sets give a difference of exactly zero)."""
        return replace(self, runs=runs)


@dataclass
class Result:
    """The figures of an experiment run: ``estimates`` (one per cell, with
    95% intervals) plus the parameters needed to rerun it."""

    experiment: Experiment
    variant: str
    hands: int            # hands (or matches) actually simulated per run
    requested: int
    policy: Any
    seed: int
    threads: Optional[int]
    options: Mapping[str, Any]
    runs: List[Run]
    estimates: List[Estimate]
    elapsed: float
    interrupted: bool = False
    precision: Optional[float] = None

    @property
    def name(self) -> str:
        return self.experiment.name

    def metrics(self) -> List[str]:
        out: List[str] = []
        for e in self.estimates:
            if e.metric not in out:
                out.append(e.metric)
        return out

    def rows(self, metric: Optional[str] = None) -> List[Estimate]:
        return [e for e in self.estimates if metric is None or e.metric == metric]

    def get(self, metric: str, **group) -> Estimate:
        """The estimate of one cell: ``result.get('make rate', **{'J of trump': 'yes'})``."""
        for e in self.estimates:
            if e.metric == metric and e.group == group:
                return e
        have = sorted({e.metric for e in self.estimates})
        raise KeyError(f"no estimate {metric!r} with {group}; metrics: {', '.join(have)}")

    def columns(self) -> List[str]:
        """Factor columns, in order of first appearance."""
        cols: List[str] = []
        for e in self.estimates:
            for k in e.group:
                if k not in cols:
                    cols.append(k)
        return cols

    def records(self) -> List[Dict[str, Any]]:
        """Long-format rows (one per estimate) with every factor column."""
        cols = self.columns()
        out = []
        for e in self.estimates:
            d: Dict[str, Any] = {"experiment": self.name, "variant": self.variant, "metric": e.metric}
            for c in cols:
                d[c] = e.group.get(c, "")
            d.update(kind=e.kind, n=e.n, value=e.value, ci_low=e.lo, ci_high=e.hi, sd=e.sd, se=e.se,
                     needed=e.needed, precision=e.precision, note=e.note)
            out.append(d)
        return out

    def command(self) -> str:
        """The command line that reruns this experiment."""
        pol = self.policy if isinstance(self.policy, str) else ",".join(self.policy)
        cmd = (f"balout analyze {self.name} --variant {self.variant} --hands {self.requested} "
               f"--policy {pol} --seed {self.seed}")
        if self.options:
            import json
            cmd += f" --options '{json.dumps(dict(self.options))}'"
        if self.precision is not None:
            cmd += f" --precision {self.precision:g}"
        return cmd

    def table(self, width: int = 0) -> str:
        from .output import text_table
        return text_table(self)

    def save(self, out_dir: str, plots: bool = True) -> Dict[str, List[str]]:
        from .output import save
        return save(self, out_dir, plots=plots)

    def __str__(self) -> str:
        return self.table()


# ------------------------------------------------------------------ registry

EXPERIMENTS: Dict[str, Experiment] = {}


def register(experiment: Experiment, replace_existing: bool = False) -> Experiment:
    """Add an experiment to the catalogue (``balout analyze NAME``)."""
    if not isinstance(experiment, Experiment):
        raise ExperimentError(f"register() takes an Experiment, not {type(experiment).__name__}")
    if experiment.name in EXPERIMENTS and not replace_existing:
        raise ExperimentError(f"an experiment named {experiment.name!r} already exists")
    EXPERIMENTS[experiment.name] = experiment
    return experiment


def names() -> List[str]:
    _load_catalogue()
    return list(EXPERIMENTS)


def get(name: Union[str, Experiment]) -> Experiment:
    """An experiment by name (or a ``file.py:attr`` / ``module:attr`` spec)."""
    if isinstance(name, Experiment):
        return name
    _load_catalogue()
    if isinstance(name, str) and name in EXPERIMENTS:
        return EXPERIMENTS[name]
    if isinstance(name, str) and ":" in name:
        return _load_user(name)
    raise ExperimentError(f"unknown experiment {name!r}; experiments are {', '.join(EXPERIMENTS)} "
                          f"(or FILE.py:NAME for your own)")


def _load_catalogue() -> None:
    from . import catalogue  # noqa: F401  (registers the experiments)


def _load_user(spec: str) -> Experiment:
    exp = load(spec, ExperimentError, "Experiment")
    if not isinstance(exp, Experiment):
        raise ExperimentError(f"{spec.rpartition(':')[0]!r} has no Experiment named {spec_attr(spec)!r}")
    return exp


# ------------------------------------------------------------------ running

def _check_variant(exp: Experiment, variant: Optional[str]) -> str:
    if variant is None:
        return exp.variants[0]
    _rules.check_variant(variant)
    if variant not in exp.variants:
        raise ExperimentError(f"experiment {exp.name!r} does not apply to {variant!r}; "
                              f"its variants are {', '.join(exp.variants)}")
    return variant


def _fresh_seed(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"seed must be a non-negative integer or None, not {seed!r}")
    return int(seed)


def run_experiment(experiment: Union[str, Experiment], variant: Optional[str] = None,
                   hands: Optional[int] = None, policy: Any = "random", *, seed=None,
                   threads: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
                   precision: Optional[float] = None, chunk_size: int = DEFAULT_CHUNK,
                   progress: Optional[bool] = None) -> Result:
    """Run an experiment (by name or spec) and return its :class:`Result`.

    ``hands``: hands per run (matches in all for match experiments; default:
    the experiment's own). ``options``: rule options applied to every run
    (a run's own options win). ``precision``: half-width used for the
    "needed" column (default per kind: 0.01 for rates, 1 point for means).
    Every run uses the same ``seed``, hence the same deals. Ctrl-C stops
    the run and returns the figures of the hands finished so far.
    """
    exp = get(experiment)
    variant = _check_variant(exp, variant)
    n = exp.default_hands if hands is None else hands
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise OptionError(f"hands must be a positive integer, got {n!r}")
    n = int(n)
    if precision is not None and not precision > 0:
        raise OptionError(f"precision must be positive, got {precision!r}")
    _policies(policy)  # validate early, with the simulator's message
    seed = _fresh_seed(seed)
    opts = dict(options or {})
    _rules.resolve(variant, opts)  # unknown options/values: a clear error now
    runs = exp.runs_for(variant) if exp.custom is None else []
    labels = [r.label for r in runs]
    if len(set(labels)) != len(labels):
        raise ExperimentError(f"experiment {exp.name!r} has duplicate run labels: {labels}")
    show = progress if progress is not None else (n >= 1_000_000 and sys.stderr.isatty())
    ctx = Context(exp, variant, n, policy, seed, threads, opts, chunk_size, bool(show), precision, runs)
    tally = Tally(exp.unit)
    tally.context = ctx
    t0 = time.perf_counter()
    interrupted = False
    if exp.custom is not None:
        try:
            exp.custom(ctx, tally)
        except KeyboardInterrupt:
            interrupted = True
    else:
        if exp.reduce is None:
            raise ExperimentError(f"experiment {exp.name!r} has neither reduce nor custom")
        interrupted = _stream(exp.reduce, ctx, runs, tally)
    if exp.finalize is not None and tally.hands:
        exp.finalize(tally, ctx)
    elapsed = time.perf_counter() - t0
    return Result(exp, variant, tally.hands, n, policy, seed, threads, opts, runs,
                  tally.estimates(precision), elapsed, interrupted, precision)


def _stream(reduce: Callable[[Dict[str, Any], Tally], Any], ctx: Context, runs: List[Run], tally: Tally) -> bool:
    """Feed each chunk of the runs' hands, side by side, to ``reduce``;
    returns whether Ctrl-C stopped it."""
    streams = []
    for run in runs:
        pol = run.policy if run.policy is not None else ctx.policy
        streams.append(iter_simulate(ctx.variant, ctx.hands, pol, seed=ctx.seed, threads=ctx.threads,
                                     options=ctx.run_options(run), chunk_size=ctx.chunk_size))
    bar = Progress(ctx.hands) if ctx.progress else None
    iters = [iter(s) for s in streams]
    interrupted = False
    try:
        for chunks in zip(*iters):
            rows = {run.label: c for run, c in zip(runs, chunks)}
            reduce(rows, tally)
            tally.hands += len(chunks[0])
            if bar is not None:
                bar.update(tally.hands)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        for it in iters:
            close = getattr(it, "close", None)
            if close is not None:
                close()
        if bar is not None:
            bar.close()
    return interrupted
