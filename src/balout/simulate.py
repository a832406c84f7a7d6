"""Batch Monte Carlo: many independent hands or whole matches in native loops.

Every hand of a run has its own random stream, derived from the run's key
(from :class:`numpy.random.SeedSequence`) and the hand's index, so a run is
reproduced exactly by its seed whatever the number of threads or the chunk
size, and any single hand can be replayed alone (:meth:`Simulation.record`).
Chunks of hands run in C with the GIL released, on a pool of threads.
"""
from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from . import rules as _rules
from ._files import PathLike, atomic_write, file_path, read_npz
from ._interrupt import ctrl_c_sets
from .errors import BaloutError, OptionError
from .state import State, _check_int

__all__ = ["simulate", "simulate_matches", "iter_simulate", "HandChunks", "Simulation", "MatchSimulation", "HAND_DTYPE",
           "POLICIES", "AGGREGATE_FIELDS", "load"]

#: native policies: ``random`` (uniform over legal actions) and ``greedy`` (rule-based)
POLICIES = ("random", "greedy")

#: one row per simulated hand (40 bytes); mirrors ``HandRow`` in sim.h.
#: ``dealt``: each seat's 8 cards as a mask (0 for a cancelled hand); ``kind``
#: 0 none (cancelled), 1 trump/hokm, 2 sun; ``outcome`` indexes OUTCOME_NAMES;
#: team fields are -1 for none; ``auction_round`` 1, 2, or 3 when the contract
#: was fixed while the others could still overcall a Hokm.
HAND_DTYPE = np.dtype([
    ("dealt", "<u4", (4,)), ("decl_value", "<i2"), ("card_points", "<i2", (2,)), ("hand_score", "<i2", (2,)),
    ("dealer", "i1"), ("offer", "i1"), ("kind", "i1"), ("trump", "i1"), ("bidder", "i1"),
    ("multiplier", "i1"), ("gahwa", "i1"), ("outcome", "i1"), ("decl_team", "i1"),
    ("belote", "i1"), ("capot", "i1"), ("auction_round", "i1"), ("tricks_won", "i1", (2,)),
])
assert HAND_DTYPE.itemsize == _core.HAND_ROW_SIZE
ROW = HAND_DTYPE.itemsize

#: the integer sums of aggregate mode; mirrors ``Aggregate`` in sim.h
AGGREGATE_FIELDS = (
    ("hands", 1), ("outcome", 4), ("kind", 3), ("doubled", 1), ("gahwa", 1), ("capot", 2),
    ("decl", 2), ("decl_value", 2), ("belote", 2), ("card_points", 2), ("card_points_sq", 2),
    ("hand_score", 2), ("hand_score_sq", 2), ("taker_team0", 1), ("dealer", 4), ("offer_suit", 4),
)
assert sum(n for _, n in AGGREGATE_FIELDS) == _core.AGGREGATE_FIELDS

OUTCOME_NAMES = ("made", "failed", "litige", "cancelled")
DEFAULT_CHUNK = 1 << 15
MAX_ROW_BYTES = 8 << 30
# a match's results: winner (int8), hands (int32), final and starting scores (2 x 2 int32)
MATCH_ROW_BYTES = 1 + 4 + 8 + 8

PolicySpec = Union[str, Callable, Sequence[Union[str, Callable]]]


# ------------------------------------------------------------------ arguments

def _native_policies(policy: PolicySpec, who: str) -> List[int]:
    """One native policy id per seat, as _policies; an OptionError if any is
    a Python callable."""
    pols = _policies(policy)
    native = [p for p in pols if isinstance(p, int)]
    if len(native) != len(pols):
        raise OptionError(f"{who} native policies only: " + ", ".join(POLICIES))
    return native


def _policies(policy: PolicySpec) -> List[Union[int, Callable]]:
    """One policy per seat: a name, two (team 0, team 1) or four (per seat)."""
    if isinstance(policy, str) and "," in policy:
        policy = [p.strip() for p in policy.split(",")]
    if isinstance(policy, (str, bytes)) or callable(policy):
        items = [policy] * 4
    else:
        try:
            items = list(policy)
        except TypeError:
            raise OptionError(f"policy must be a name, a callable, or a list of 2 (per team) or "
                              f"4 (per seat); got {type(policy).__name__}") from None
        if len(items) == 2:
            items = [items[0], items[1], items[0], items[1]]
        elif len(items) != 4:
            raise OptionError(f"give 2 policies (team 0, team 1) or 4 (seats 0-3), not {len(items)}")
    out: List[Union[int, Callable]] = []
    for p in items:
        if callable(p):
            out.append(p)
        elif isinstance(p, str) and p in POLICIES:
            out.append(POLICIES.index(p))
        else:
            raise OptionError(f"unknown policy {p!r}; policies are {', '.join(POLICIES)} or a callable")
    return out


def _seed_sequence(seed) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise OptionError(f"seed must be a non-negative integer, a SeedSequence or None, not {type(seed).__name__}")
    if seed < 0:
        raise OptionError(f"seed must be non-negative, got {seed}")
    return np.random.SeedSequence(int(seed))


def _threads(threads) -> int:
    if threads is None:
        return os.cpu_count() or 1
    return _check_int("threads", threads, 1, 1024)


def _count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise OptionError(f"{name} must be a non-negative integer, not {type(n).__name__}")
    if n < 0:
        raise OptionError(f"{name} must be non-negative, got {n}")
    return int(n)


# ------------------------------------------------------------------ progress

class Progress:
    """A one-line progress bar with throughput, on stderr."""

    def __init__(self, total: int, unit: str = "hands", stream=None, every: float = 0.25) -> None:
        self.total, self.unit, self.every = total, unit, every
        self.stream = stream or sys.stderr
        self.start = self.last = time.perf_counter()
        self.done = 0

    def update(self, done: int, force: bool = False) -> None:
        self.done = done
        now = time.perf_counter()
        if not force and now - self.last < self.every:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-9)
        frac = done / self.total if self.total else 1.0
        bar = "#" * int(30 * frac)
        speed = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
        left = f" eta {_duration((self.total - done) / rate)}" if 0 < done < self.total else ""
        self.stream.write(f"\r[{bar:<30}] {100 * frac:5.1f}% {done:,}/{self.total:,} {self.unit} "
                          f"{speed} {self.unit}/s{left}   ")
        self.stream.flush()

    def close(self) -> None:
        self.update(self.done, force=True)
        self.stream.write("\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    """1h02m, 3m05s or 42s."""
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


# ------------------------------------------------------------------ statistics

def wilson(k: float, n: float, z: float = 1.959964) -> Tuple[float, float]:
    """95% Wilson interval of a proportion k/n."""
    if n <= 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    # at k = 0 or k = n the bound is exactly 0 or 1; rounding would leave a
    # lower bound of ~1e-20 above a rate of 0
    lo = 0.0 if k <= 0 else max(0.0, c - h)
    hi = 1.0 if k >= n else min(1.0, c + h)
    return (lo, hi)


def mean_ci(total: float, total_sq: float, n: float, z: float = 1.959964) -> Tuple[float, Tuple[float, float]]:
    """Mean and 95% normal interval from a sum and a sum of squares."""
    if n <= 0:
        return float("nan"), (float("nan"), float("nan"))
    m = total / n
    var = max(total_sq / n - m * m, 0.0) * n / max(n - 1, 1)
    h = z * math.sqrt(var / n)
    return m, (m - h, m + h)


@dataclass
class Aggregate:
    """Exact integer sums over the hands of a run (aggregate mode)."""

    sums: np.ndarray = field(default_factory=lambda: np.zeros(_core.AGGREGATE_FIELDS, np.int64))

    def __getitem__(self, name: str) -> np.ndarray:
        i = 0
        for f, n in AGGREGATE_FIELDS:
            if f == name:
                return self.sums[i] if n == 1 else self.sums[i:i + n]
            i += n
        raise KeyError(f"no aggregate field {name!r}; fields are {', '.join(f for f, _ in AGGREGATE_FIELDS)}")

    def to_dict(self) -> Dict[str, Any]:
        return {f: (int(v) if np.ndim(v) == 0 else [int(x) for x in v])
                for f, v in ((f, self[f]) for f, _ in AGGREGATE_FIELDS)}

    @classmethod
    def of_rows(cls, r: np.ndarray) -> "Aggregate":
        """The same sums computed from per-hand rows with numpy (for checks)."""
        cp = r["card_points"].astype(np.int64)
        hs = r["hand_score"].astype(np.int64)
        teams = (0, 1)
        values = {
            "hands": [len(r)],
            "outcome": np.bincount(r["outcome"], minlength=4)[:4],
            "kind": np.bincount(r["kind"], minlength=3)[:3],
            "doubled": [(r["multiplier"] > 1).sum()],
            "gahwa": [r["gahwa"].sum()],
            "capot": [(r["capot"] == t).sum() for t in teams],
            "decl": [(r["decl_team"] == t).sum() for t in teams],
            "decl_value": [r["decl_value"][r["decl_team"] == t].astype(np.int64).sum() for t in teams],
            "belote": [(r["belote"] == t).sum() for t in teams],
            "card_points": cp.sum(0), "card_points_sq": (cp * cp).sum(0),
            "hand_score": hs.sum(0), "hand_score_sq": (hs * hs).sum(0),
            "taker_team0": [((r["bidder"] >= 0) & (r["bidder"] % 2 == 0)).sum()],
            "dealer": np.bincount(r["dealer"], minlength=4)[:4],
            "offer_suit": np.bincount(r["offer"] >> 3, minlength=4)[:4],
        }
        a = cls()
        for name, i in _offsets().items():
            v = np.asarray(values[name], np.int64).reshape(-1)
            a.sums[i:i + len(v)] = v
        return a


def _offsets() -> Dict[str, int]:
    out, i = {}, 0
    for f, n in AGGREGATE_FIELDS:
        out[f] = i
        i += n
    return out


def _finite(obj):
    """The same structure with NaN (a rate over zero hands) as None: strict JSON."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def summarize(agg: Aggregate, elapsed: float) -> Dict[str, Any]:
    """Rates and means with 95% intervals (RULES.md outcomes), as a dict."""
    n = int(agg["hands"])
    outcome = agg["outcome"]
    played = n - int(outcome[3])

    def rate(k, d):
        lo, hi = wilson(k, d)
        return {"value": k / d if d else float("nan"), "ci95": [lo, hi]}

    def mean(name):
        out = []
        for t in (0, 1):
            m, (lo, hi) = mean_ci(float(agg[name][t]), float(agg[name + "_sq"][t]), played)
            out.append({"value": m, "ci95": [lo, hi]})
        return out

    return {
        "hands": n,
        "played": played,
        "make_rate": rate(int(outcome[0]), played),
        "failure_rate": rate(int(outcome[1]), played),
        "litige_rate": rate(int(outcome[2]), played),
        "cancelled_rate": rate(int(outcome[3]), n),
        "capot_rate": rate(int(agg["capot"].sum()), played),
        "card_points": mean("card_points"),
        "hand_score": mean("hand_score"),
        "declarations_rate": [rate(int(agg["decl"][t]), played) for t in (0, 1)],
        "belote_rate": [rate(int(agg["belote"][t]), played) for t in (0, 1)],
        "doubled_rate": rate(int(agg["doubled"]), played),
        "seconds": elapsed,
        "hands_per_s": n / elapsed if elapsed > 0 else float("nan"),
    }


# ------------------------------------------------------------------ results

@dataclass
class Simulation:
    """The result of :func:`simulate`: per-hand rows (unless aggregate-only),
    exact sums, and what is needed to replay any hand."""

    variant: str
    options: Mapping[str, Any]
    policies: Tuple[str, ...]
    entropy: int
    key: int
    n: int
    hands: Optional[np.ndarray]
    aggregate: Aggregate
    elapsed: float
    threads: int
    interrupted: bool = False
    _native: Tuple[int, ...] = ()

    def __len__(self) -> int:
        return self.n

    def summary(self) -> Dict[str, Any]:
        s = summarize(self.aggregate, self.elapsed)
        s.update(variant=self.variant, policies=list(self.policies), seed=self.entropy,
                 threads=self.threads, interrupted=self.interrupted)
        return _finite(s)

    def state(self, i: int) -> State:
        """Hand ``i`` replayed from its own stream, as a finished State."""
        if not self._native:
            raise BaloutError("hands played by Python policies cannot be regenerated; keep the states")
        i = _check_int("hand index", i, 0, self.n - 1)
        s = State(self.variant, deck=bytes(range(32)), options=self.options)
        _core.sim_hand_state(s, np.asarray(self._native, np.int8), self.key, i, i & 3)
        return s

    def record(self, i: int) -> dict:
        """Hand ``i`` as a hand record (RULES.md section 8); replays to the same row."""
        return self.state(i).to_record()

    def save(self, path: PathLike) -> None:
        """Save rows and metadata as .npz, atomically (no partial file on error)."""
        meta = json.dumps({"variant": self.variant, "options": dict(self.options),
                           "policies": list(self.policies), "seed": self.entropy, "n": self.n,
                           "interrupted": self.interrupted})
        arrays: Dict[str, Any] = {"aggregate": self.aggregate.sums, "meta": np.array(meta)}
        if self.hands is not None:
            arrays["hands"] = self.hands
        _atomic_savez(path, arrays)


@dataclass
class MatchSimulation:
    """The result of :func:`simulate_matches`: one entry per match."""

    variant: str
    options: Mapping[str, Any]
    policies: Tuple[str, ...]
    entropy: int
    winner: np.ndarray      # int8, team 0/1 (-1 if max_hands was reached)
    hands: np.ndarray       # int32, hands played
    score: np.ndarray       # int32 (n, 2), final match scores
    elapsed: float
    threads: int
    interrupted: bool = False

    def __len__(self) -> int:
        return len(self.winner)

    def summary(self) -> Dict[str, Any]:
        n = len(self.winner)
        wins0 = int((self.winner == 0).sum())
        decided = int((self.winner >= 0).sum())
        lo, hi = wilson(wins0, decided)
        h = self.hands.astype(np.float64)
        m, ci = mean_ci(float(h.sum()), float((h * h).sum()), n)
        return _finite({"variant": self.variant, "matches": n, "policies": list(self.policies),
                "team0_win_rate": {"value": wins0 / decided if decided else float("nan"), "ci95": [lo, hi]},
                "hands_per_match": {"value": m, "ci95": list(ci)},
                "undecided": n - decided, "seconds": self.elapsed,
                "matches_per_s": n / self.elapsed if self.elapsed > 0 else float("nan"),
                "seed": self.entropy, "interrupted": self.interrupted})


def _atomic_savez(path: PathLike, arrays: Dict[str, Any]) -> None:
    path = file_path(path)
    if not path.endswith(".npz"):
        path += ".npz"
    atomic_write(path, lambda f: np.savez(f, **arrays))


def load(path: PathLike) -> Dict[str, Any]:
    """Load a file written by :meth:`Simulation.save`: ``aggregate`` (the
    exact sums), ``meta`` (a dict) and, unless the run was aggregate-only,
    ``hands`` (the per-hand rows). A file that is not one raises an
    :class:`OptionError` naming what is wrong."""
    return read_npz(path, "a simulation saved by balout", _saved_simulation)


def _saved_simulation(arrays: Dict[str, np.ndarray]) -> Dict[str, Any]:
    """The arrays of a saved run checked, its meta parsed; ValueError says
    what does not fit."""
    out: Dict[str, Any] = dict(arrays)
    if "meta" not in out or "aggregate" not in out:
        raise ValueError(f"no {' or '.join(k for k in ('meta', 'aggregate') if k not in out)} in it")
    try:
        out["meta"] = json.loads(str(out["meta"]))
    except json.JSONDecodeError as e:
        raise ValueError(f"its meta is not JSON: {e}") from None
    if not isinstance(out["meta"], dict):
        raise ValueError(f"its meta is a JSON {type(out['meta']).__name__}, not an object")
    if out["aggregate"].shape != (_core.AGGREGATE_FIELDS,) or out["aggregate"].dtype.kind not in "iu":
        raise ValueError(f"aggregate should be {_core.AGGREGATE_FIELDS} integers, "
                         f"got shape {out['aggregate'].shape} of {out['aggregate'].dtype}")
    if "hands" in out and (out["hands"].dtype != HAND_DTYPE or out["hands"].ndim != 1):
        raise ValueError(f"hands should be one row of {HAND_DTYPE.itemsize} bytes per hand "
                         f"(the rows of balout.simulate), got shape {out['hands'].shape} of {out['hands'].dtype}")
    return out


# ------------------------------------------------------------------ running

def _run_chunks(n: int, chunk: int, threads: int, work: Callable[[int, int], Any],
                fold: Callable[[Any], None], progress: Optional[Progress]) -> Tuple[int, bool]:
    """Run work(start, count) over chunks on a thread pool, folding the
    results of the finished prefix of chunks in order as it grows (memory:
    a few chunks per thread, whatever n).

    Returns the number of items the folded prefix covers, and whether
    Ctrl-C (a KeyboardInterrupt) stopped the run (then only that prefix
    counts).
    """
    nchunks = (n + chunk - 1) // chunk
    waiting: Dict[int, Any] = {}   # finished out of order, not yet folded
    folded = 0                     # chunks folded so far (the prefix)
    done_items = 0
    interrupted = False
    if nchunks == 0:
        return 0, False
    pool = ThreadPoolExecutor(max_workers=threads)
    futures: Dict[Any, int] = {}
    submitted = 0
    stop = threading.Event()

    def submit() -> None:
        nonlocal submitted
        s = submitted * chunk
        f = pool.submit(work, s, min(chunk, n - s))
        futures[f] = submitted
        submitted += 1

    def advance() -> None:
        nonlocal folded
        while folded in waiting:
            fold(waiting.pop(folded))
            folded += 1

    try:
        with ctrl_c_sets(stop):
            while submitted < min(nchunks, threads * 4):
                submit()
            while futures and not stop.is_set():
                finished, _ = wait(list(futures), timeout=0.2, return_when=FIRST_COMPLETED)
                for f in finished:
                    k = futures.pop(f)
                    waiting[k] = f.result()
                    done_items += min(chunk, n - k * chunk)
                    if submitted < nchunks and not stop.is_set():
                        submit()
                advance()
                if progress is not None:
                    progress.update(done_items)
            if stop.is_set():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        interrupted = True
        for f in futures:
            f.cancel()
        for f, k in list(futures.items()):
            if not f.cancelled():
                try:
                    waiting[k] = f.result()
                except Exception:
                    pass
        advance()
    finally:
        pool.shutdown(wait=True)
    return min(folded * chunk, n), interrupted


def simulate(variant: str = "balout", hands: int = 1000, policy: PolicySpec = "random", *,
             seed=None, threads: Optional[int] = None, options: Optional[Mapping] = None,
             aggregate_only: bool = False, chunk_size: int = DEFAULT_CHUNK,
             progress: Optional[bool] = None) -> Simulation:
    """Play ``hands`` independent hands (deal, auction, doubling, play, scoring).

    ``policy``: ``'random'``, ``'greedy'``, a list of 2 (per team) or 4 (per
    seat), or callables ``f(state) -> action`` (run in Python, per step, so
    far slower; a callable sees the whole State and should only read
    ``state.view(state.to_act)`` to play fairly). Dealer of hand i is i % 4.

    Returns a :class:`Simulation` with ``hands`` (rows of :data:`HAND_DTYPE`,
    None with ``aggregate_only``), exact sums in ``aggregate``, and
    ``summary()``. Ctrl-C stops the run and returns the finished prefix with
    ``interrupted=True``.
    """
    variant, opts, core_rules = _rules.resolve(variant, options)
    n = _count("hands", hands)
    pols = _policies(policy)
    nthreads = _threads(threads)
    chunk = _check_int("chunk_size", chunk_size, 1, 1 << 30)
    if not aggregate_only and n * HAND_DTYPE.itemsize > MAX_ROW_BYTES:
        raise OptionError(f"{n:,} hands need {n * ROW / 2**30:.1f} GiB of rows; use aggregate_only=True")
    ss = _seed_sequence(seed)
    key = int(ss.generate_state(1, np.uint64)[0])
    names = tuple(p if isinstance(p, str) else (POLICIES[p] if isinstance(p, int) else getattr(p, "__name__", "python"))
                  for p in pols)
    rows: Optional[np.ndarray] = None if aggregate_only else np.zeros(n, HAND_DTYPE)
    raw = rows.view(np.uint8) if rows is not None else None
    show = progress if progress is not None else (n >= 2_000_000 and sys.stderr.isatty())
    bar = Progress(n) if show else None
    native = all(isinstance(p, int) for p in pols)
    pol_arr = np.asarray([p if isinstance(p, int) else 0 for p in pols], np.int8)

    if native:
        def work(start: int, count: int):
            agg = np.zeros(_core.AGGREGATE_FIELDS, np.int64)
            buf = raw[start * ROW:(start + count) * ROW] if raw is not None else None
            _core.sim_chunk(core_rules, pol_arr, key, start, count, buf, agg)
            return agg
    else:
        def work(start: int, count: int):
            return _python_chunk(variant, opts, pols, key, start, count, raw)
        nthreads = 1  # Python policies hold the GIL anyway

    agg = Aggregate()

    def fold(part: np.ndarray) -> None:
        agg.sums += part

    t0 = time.perf_counter()
    covered, interrupted = _run_chunks(n, chunk, nthreads, work, fold, bar)
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    if rows is not None and covered < n:
        rows = rows[:covered].copy()
    return Simulation(variant, opts, names, int(ss.entropy) if isinstance(ss.entropy, int) else 0,
                      key, covered, rows, agg, elapsed, nthreads, interrupted,
                      tuple(int(p) for p in pol_arr) if native else ())


class HandChunks:
    """Rows of a run, chunk by chunk and in order, computed ahead on threads.

    Memory is bounded by a few chunks per thread whatever the number of
    hands: iterate and reduce each chunk with numpy. Same hands as
    :func:`simulate` with the same arguments.
    """

    def __init__(self, variant: str = "balout", hands: int = 1000, policy: PolicySpec = "random", *,
                 seed=None, threads: Optional[int] = None, options: Optional[Mapping] = None,
                 chunk_size: int = DEFAULT_CHUNK) -> None:
        self.variant, self.options, self._rules = _rules.resolve(variant, options)
        self.n = _count("hands", hands)
        pols = _native_policies(policy, "streamed runs take")
        self.policies = tuple(POLICIES[p] for p in pols)
        self._pol = np.asarray(pols, np.int8)
        self.threads = _threads(threads)
        self.chunk = _check_int("chunk_size", chunk_size, 1, 1 << 30)
        ss = _seed_sequence(seed)
        self.entropy = int(ss.entropy) if isinstance(ss.entropy, int) else 0
        self.key = int(ss.generate_state(1, np.uint64)[0])

    def _chunk(self, start: int, count: int) -> np.ndarray:
        rows = np.zeros(count, HAND_DTYPE)
        _core.sim_chunk(self._rules, self._pol, self.key, start, count, rows.view(np.uint8), None)
        return rows

    def __iter__(self):
        starts = range(0, self.n, self.chunk)
        depth = self.threads * 2
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            queue = []
            it = iter(starts)
            for s0 in it:
                queue.append(pool.submit(self._chunk, s0, min(self.chunk, self.n - s0)))
                if len(queue) >= depth:
                    break
            try:
                while queue:
                    rows = queue.pop(0).result()
                    nxt = next(it, None)
                    if nxt is not None:
                        queue.append(pool.submit(self._chunk, nxt, min(self.chunk, self.n - nxt)))
                    yield rows
            finally:
                for f in queue:
                    f.cancel()

    def state(self, i: int) -> State:
        """Hand ``i`` of the run, replayed, as a finished State."""
        i = _check_int("hand index", i, 0, max(self.n - 1, 0))
        s = State(self.variant, deck=bytes(range(32)), options=self.options)
        _core.sim_hand_state(s, self._pol, self.key, i, i & 3)
        return s


def iter_simulate(variant: str = "balout", hands: int = 1000, policy: PolicySpec = "random",
                  **kw) -> HandChunks:
    """The rows of :func:`simulate`'s run, streamed chunk by chunk (flat memory)."""
    return HandChunks(variant, hands, policy, **kw)


def _python_chunk(variant, opts, pols, key, start, count, raw) -> np.ndarray:
    """The slow path: hands played through the State API, one step at a time."""
    agg_rows = np.zeros(count, HAND_DTYPE)
    for j in range(count):
        i = start + j
        stream = _core.HandStream(key, i)
        s = State(variant, deck=stream.deck(), dealer=i & 3, options=opts)
        while not s.is_terminal():
            p = pols[s.to_act]
            a = stream.act(s, p) if isinstance(p, int) else p(s)
            s.apply_action(a)
        agg_rows[j] = np.frombuffer(_core.hand_row(s), HAND_DTYPE)[0]
    if raw is not None:
        raw[start * ROW:(start + count) * ROW] = agg_rows.view(np.uint8)
    return Aggregate.of_rows(agg_rows).sums


def simulate_matches(variant: str = "balout", matches: int = 100, policy: PolicySpec = "random", *,
                     seed=None, threads: Optional[int] = None, options: Optional[Mapping] = None,
                     max_hands: int = 10_000, chunk_size: int = 256, score: Sequence[int] = (0, 0),
                     progress: Optional[bool] = None) -> MatchSimulation:
    """Play whole matches to the target (litige pot, gahwa and all) natively.

    Match j starts with dealer 0 and the match score ``score`` (to study a
    match from any score pair); its hands have their own streams. Returns
    the winner, hands played and final scores of every match.
    """
    variant, opts, core_rules = _rules.resolve(variant, options)
    start_score = score
    n = _count("matches", matches)
    pols = _native_policies(policy, "simulate_matches takes")
    nthreads = _threads(threads)
    chunk = _check_int("chunk_size", chunk_size, 1, 1 << 30)
    limit = _check_int("max_hands", max_hands, 1, 1 << 30)
    if n * MATCH_ROW_BYTES > MAX_ROW_BYTES:
        raise OptionError(f"{n:,} matches need {n * MATCH_ROW_BYTES / 2**30:.1f} GiB of results; "
                          "run them in parts")
    ss = _seed_sequence(seed)
    key = int(ss.generate_state(1, np.uint64)[0])
    pol_arr = np.asarray(pols, np.int8)
    winner = np.full(n, -1, np.int8)
    nhands = np.zeros(n, np.int32)
    final = np.zeros((n, 2), np.int32)
    try:
        start0, start1 = start_score
    except (TypeError, ValueError):
        raise OptionError("score must be a pair of integers") from None
    s0 = np.full(n, _check_int("score[0]", start0, 0, 1 << 30), np.int32)
    s1 = np.full(n, _check_int("score[1]", start1, 0, 1 << 30), np.int32)
    show = progress if progress is not None else (n >= 100_000 and sys.stderr.isatty())
    bar = Progress(n, "matches") if show else None

    def work(start: int, count: int):
        sl = slice(start, start + count)
        _core.sim_matches_chunk(core_rules, pol_arr, key, start, winner[sl], nhands[sl], s0[sl], s1[sl], limit)

    t0 = time.perf_counter()
    covered, interrupted = _run_chunks(n, chunk, nthreads, work, lambda _: None, bar)
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    final[:, 0], final[:, 1] = s0, s1
    names = tuple(POLICIES[p] for p in pols)
    return MatchSimulation(variant, opts, names, int(ss.entropy) if isinstance(ss.entropy, int) else 0,
                           winner[:covered].copy(), nhands[:covered].copy(), final[:covered].copy(),
                           elapsed, nthreads, interrupted)
