"""Streaming accumulators with 95% intervals.

A :class:`Tally` keeps, for every (metric, group) cell, the count, the sum
and the sum of squares of the values that fell in it, so that any number
of hands reduces to a few numbers per cell (memory flat in the number of
hands). Cells are filled chunk by chunk with vectorized numpy calls
(``np.bincount``); no Python runs per hand.

Three kinds of cells:

* ``rate``: a 0/1 value; 95% Wilson interval.
* ``mean``: any value; 95% normal interval (mean +- 1.96 sd / sqrt(n)). A
  paired comparison is the mean of the per-hand differences between two
  runs on the same deals, so it is a ``mean`` cell too.
* ``share``: the share of each level of the last factor among the selected
  hands, within each combination of the other factors; Wilson interval of
  (count in level, count over the levels of the last factor).

Every estimate also states how many hands (or matches) would give a 95%
half-width of ``precision``: ``needed = (1.96 sd / precision)^2`` hands of
the cell's population, scaled by how rare the cell is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import BaloutError
from ..simulate import mean_ci, wilson

Z95 = 1.959964

#: default half-widths for the "needed" column: rates/shares in absolute
#: probability, means in the unit of the value (points)
DEFAULT_PRECISION = {"rate": 0.01, "share": 0.01, "mean": 1.0}


@dataclass
class Estimate:
    """One figure of a result: a cell (metric, group) with its 95% interval."""

    metric: str
    group: Dict[str, Any]
    kind: str            # rate, share, mean, derived
    n: int               # observations in the cell
    value: float
    lo: float
    hi: float
    sd: float            # per-observation standard deviation
    se: float            # standard error of value
    needed: Optional[float] = None   # hands (matches) for a half-width of `precision`
    precision: Optional[float] = None
    note: str = ""
    percent: bool = False   # display as a percentage (rates, shares, differences of rates)

    @property
    def ci95(self) -> Tuple[float, float]:
        return (self.lo, self.hi)

    def covers(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def to_dict(self) -> Dict[str, Any]:
        d = {"metric": self.metric, **{k: v for k, v in self.group.items()}, "kind": self.kind, "n": self.n,
             "value": self.value, "ci_low": self.lo, "ci_high": self.hi, "sd": self.sd, "se": self.se,
             "needed": self.needed, "precision": self.precision}
        if self.note:
            d["note"] = self.note
        return d


def difference(a: Estimate, b: Estimate, metric: str, group: Mapping[str, Any], note: str = "") -> Estimate:
    """a - b for two independent estimates (normal interval of the difference)."""
    v = a.value - b.value
    se = math.hypot(a.se, b.se)
    return Estimate(metric, dict(group), "derived", min(a.n, b.n), v, v - Z95 * se, v + Z95 * se,
                    float("nan"), se, note=note or f"({a.metric}) - ({b.metric}), independent samples",
                    percent=a.percent and b.percent)


def ratio_estimate(num: Estimate, den: Estimate, metric: str, group: Mapping[str, Any], note: str = "") -> Estimate:
    """num / den for independent estimates (delta method)."""
    if den.value == 0 or not math.isfinite(den.value):
        return Estimate(metric, dict(group), "derived", 0, float("nan"), float("nan"), float("nan"),
                        float("nan"), float("nan"), note=note)
    v = num.value / den.value
    se = abs(v) * math.sqrt((num.se / num.value) ** 2 + (den.se / den.value) ** 2) if num.value else den.se
    return Estimate(metric, dict(group), "derived", min(num.n, den.n), v, v - Z95 * se, v + Z95 * se,
                    float("nan"), se, note=note)


class _Cells:
    __slots__ = ("kind", "names", "precision", "levels", "unit", "const_order", "percent")

    def __init__(self, kind: str, names: Tuple[str, ...], precision: Optional[float], unit: str,
                 percent: bool = False) -> None:
        self.kind, self.names, self.precision, self.unit = kind, names, precision, unit
        self.percent = percent or kind in ("rate", "share")
        self.const_order: Dict[Tuple, int] = {}   # constant labels -> first-seen rank (row order)
        # labels tuple -> [order, n, sum, sum of squares, exposure or None]
        self.levels: Dict[Tuple, List] = {}


def _factor_parts(by) -> Tuple[Tuple[str, ...], List[Tuple[str, Any, Optional[Sequence]]]]:
    """Normalise ``by``: a dict name -> scalar label, or name -> (codes, labels)."""
    if by is None:
        return (), []
    if not isinstance(by, Mapping):
        raise BaloutError("by= must be a dict: name -> label, or name -> (integer codes, labels)")
    parts: List[Tuple[str, Any, Optional[Sequence]]] = []
    for name, spec in by.items():
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], np.ndarray):
            parts.append((str(name), spec[0], list(spec[1])))
        else:
            parts.append((str(name), spec, None))
    return tuple(p[0] for p in parts), parts


class Tally:
    """Counts, sums and sums of squares per (metric, group) cell.

    ``t.rate(metric, success, where=mask, by={...})``,
    ``t.mean(metric, values, where=mask, by={...})`` and
    ``t.share(metric, by={...}, where=mask)`` take whole arrays (one entry
    per hand of a chunk). ``by`` maps a column name to either a constant
    label (e.g. the run's label) or a pair ``(codes, labels)``: integer
    codes per hand indexing ``labels``; a code outside ``0..len(labels)-1``
    (e.g. -1 for "not applicable") drops the hand from that metric.

    ``t.state`` is free storage for reducers that carry something from one
    chunk to the next (e.g. the litige pot); ``t.hands`` counts the hands
    (or matches) seen; finalizers may append :class:`Estimate` rows to
    ``t.derived``.
    """

    def __init__(self, unit: str = "hands") -> None:
        self._cells: Dict[Tuple[str, Tuple[str, ...]], _Cells] = {}
        self.state: Dict[str, Any] = {}
        self.hands = 0
        self.unit = unit
        self.derived: List[Estimate] = []
        self.context: Any = None   # the run's Context (variant, options, ...), set by run_experiment

    # -------------------------------------------------------------- filling

    def rate(self, metric: str, success, where=None, by=None, precision: Optional[float] = None) -> None:
        """Proportion of ``success`` (bool per hand) among the ``where`` hands."""
        self._add("rate", metric, np.asarray(success), where, by, precision)

    def mean(self, metric: str, values, where=None, by=None, precision: Optional[float] = None,
             percent: bool = False) -> None:
        """Mean of ``values`` among the ``where`` hands (``percent``: show it
        as a percentage, e.g. a paired difference of 0/1 outcomes)."""
        self._add("mean", metric, np.asarray(values), where, by, precision, percent)

    def share(self, metric: str, by, where=None, precision: Optional[float] = None) -> None:
        """Share of each level of the *last* factor of ``by`` among the
        ``where`` hands, within each combination of the other factors."""
        self._add("share", metric, None, where, by, precision)

    def add_counts(self, metric: str, kind: str, group: Mapping[str, Any], n: float, total: float,
                   total_sq: float, exposure: Optional[float] = None, precision: Optional[float] = None) -> None:
        """Add already-reduced sums to one cell (e.g. from whole matches).

        ``exposure``: the number of units (matches) run to observe these
        ``n`` (default: ``t.hands``), used for the "needed" column.
        """
        if kind not in ("rate", "mean", "share"):
            raise BaloutError(f"unknown cell kind {kind!r}; kinds are rate, mean, share")
        names = tuple(group)
        cells = self._cells_for(kind, metric, names, precision)
        key = tuple(group[k] for k in names)
        slot = cells.levels.get(key)
        if slot is None:
            rank = cells.const_order.setdefault(key, len(cells.const_order))
            slot = cells.levels[key] = [(rank, 0), 0, 0.0, 0.0, None]
        slot[1] += n
        slot[2] += total
        slot[3] += total_sq
        if exposure is not None:
            slot[4] = (slot[4] or 0) + exposure

    def _cells_for(self, kind: str, metric: str, names: Tuple[str, ...], precision, percent=False) -> _Cells:
        key = (metric, names)
        cells = self._cells.get(key)
        if cells is None:
            cells = self._cells[key] = _Cells(kind, names, precision, self.unit, percent)
        elif cells.kind != kind:
            raise BaloutError(f"metric {metric!r} is filled both as {cells.kind} and as {kind}")
        return cells

    def _add(self, kind: str, metric: str, values, where, by, precision, percent=False) -> None:
        names, parts = _factor_parts(by)
        if kind == "share" and (not parts or parts[-1][2] is None):
            raise BaloutError("share() needs its last factor given as (codes, labels)")
        cells = self._cells_for(kind, metric, names, precision, percent)
        n_rows = None
        for arr in (values, where):
            if arr is not None and np.ndim(arr) > 0:
                n_rows = len(arr)
        for _, spec, labels in parts:
            if labels is not None:
                n_rows = len(spec)
        if n_rows is None:
            raise BaloutError("give at least one per-hand array (values, where or a factor)")
        mask = np.ones(n_rows, bool) if where is None else np.asarray(where, bool)
        code = np.zeros(n_rows, np.int64)
        sizes = []
        for _, spec, labels in parts:
            if labels is None:
                continue
            c = np.asarray(spec, np.int64)
            ok = (c >= 0) & (c < len(labels))
            mask = mask & ok
            code = code * len(labels) + np.where(ok, c, 0)
            sizes.append(len(labels))
        total_levels = int(np.prod(sizes)) if sizes else 1
        const = tuple(spec for _, spec, labels in parts if labels is None)
        rank = cells.const_order.setdefault(const, len(cells.const_order))
        idx = code[mask]
        n = np.bincount(idx, minlength=total_levels)
        if values is not None:
            v = values[mask].astype(np.float64)
            s = np.bincount(idx, weights=v, minlength=total_levels)
            ss = np.bincount(idx, weights=v * v, minlength=total_levels)
        else:
            s = n.astype(np.float64)
            ss = s
        for lv in np.flatnonzero(n):
            labels_out = []
            rem = int(lv)
            vec = []
            for size in reversed(sizes):
                vec.append(rem % size)
                rem //= size
            vec.reverse()
            it = iter(vec)
            for _, spec, labels in parts:
                labels_out.append(spec if labels is None else labels[next(it)])
            key = tuple(labels_out)
            slot = cells.levels.get(key)
            if slot is None:
                slot = cells.levels[key] = [(rank, int(lv)), 0, 0.0, 0.0, None]
            slot[1] += int(n[lv])
            slot[2] += float(s[lv])
            slot[3] += float(ss[lv])

    # -------------------------------------------------------------- reading

    def metrics(self) -> List[str]:
        seen = []
        for (m, _) in self._cells:
            if m not in seen:
                seen.append(m)
        for e in self.derived:
            if e.metric not in seen:
                seen.append(e.metric)
        return seen

    def estimates(self, precision: Optional[float] = None) -> List[Estimate]:
        """Every cell as an :class:`Estimate` (then the derived rows)."""
        out: List[Estimate] = []
        for (metric, names), cells in self._cells.items():
            h = precision if precision is not None else (
                cells.precision if cells.precision is not None else DEFAULT_PRECISION[cells.kind])
            totals = _share_totals(cells)
            for key, slot in sorted(cells.levels.items(), key=lambda kv: kv[1][0]):
                out.append(self._estimate(metric, cells, dict(zip(names, key)), slot, h, totals.get(key[:-1], 0)))
        return out + list(self.derived)

    def estimate(self, metric: str, **group) -> Estimate:
        """The estimate of one cell, by metric and group labels."""
        for (m, names), cells in self._cells.items():
            if m != metric or set(names) != set(group):
                continue
            key = tuple(group[k] for k in names)
            slot = cells.levels.get(key)
            if slot is None:
                break
            h = cells.precision if cells.precision is not None else DEFAULT_PRECISION[cells.kind]
            return self._estimate(metric, cells, dict(group), slot, h, _share_totals(cells).get(key[:-1], 0))
        for e in self.derived:
            if e.metric == metric and e.group == group:
                return e
        raise KeyError(f"no cell {metric!r} {group}")

    def _estimate(self, metric: str, cells: _Cells, group: Dict[str, Any], slot, h: float,
                  total_share: int) -> Estimate:
        _, n, s, ss, exposure = slot
        n = int(n)
        if cells.kind == "share":
            k, d = n, total_share
            p = k / d if d else float("nan")
            lo, hi = wilson(k, d)
            sd = math.sqrt(_ac(k, d) * (1 - _ac(k, d)))
            se = math.sqrt(p * (1 - p) / d) if d else float("nan")
            cell_n = d
            value = p
        elif cells.kind == "rate":
            p = s / n if n else float("nan")
            lo, hi = wilson(s, n)
            sd = math.sqrt(_ac(s, n) * (1 - _ac(s, n)))
            se = math.sqrt(p * (1 - p) / n) if n else float("nan")
            value, cell_n = p, n
        else:
            value, (lo, hi) = mean_ci(s, ss, n)
            var = max(ss / n - value * value, 0.0) * n / (n - 1) if n > 1 else float("nan")
            sd = math.sqrt(var) if n > 1 else float("nan")
            se = sd / math.sqrt(n) if n > 1 else float("nan")
            if n < 2:   # one observation: no interval
                lo = hi = float("nan")
            cell_n = n
        if cells.kind in ("rate", "share") and math.isfinite(value):
            lo, hi = min(lo, value), max(hi, value)   # float rounding at p = 0 or 1
        units = exposure if exposure is not None else self.hands
        needed = None
        if cell_n and h and h > 0 and math.isfinite(sd):
            per_cell = (Z95 * sd / h) ** 2
            needed = math.ceil(per_cell * (units / cell_n)) if units else math.ceil(per_cell)
        return Estimate(metric, group, cells.kind, n if cells.kind != "share" else total_share, value, lo, hi,
                        sd, se, needed, h, percent=cells.percent)


def _share_totals(cells: _Cells) -> Dict[Tuple, int]:
    """Share cells: the count over the levels of the last factor, per
    combination of the other factors."""
    totals: Dict[Tuple, int] = {}
    if cells.kind == "share":
        for key, slot in cells.levels.items():
            totals[key[:-1]] = totals.get(key[:-1], 0) + slot[1]
    return totals


def _ac(k: float, n: float) -> float:
    """Agresti-Coull centre (k+2)/(n+4): a variance that is not 0 at p = 0 or 1."""
    return (k + 2) / (n + 4)


def hands_needed(sd: float, half_width: float, fraction: float = 1.0) -> int:
    """Hands for a 95% interval of half-width ``half_width`` given the
    per-observation sd and the fraction of hands that are observations."""
    for name, x in (("sd", sd), ("half_width", half_width), ("fraction", fraction)):
        if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x):
            raise BaloutError(f"{name} must be a finite number, got {x!r}")
    if sd < 0 or half_width <= 0 or not 0 < fraction <= 1:
        raise BaloutError(f"need sd >= 0, half_width > 0 and 0 < fraction <= 1; got sd={sd!r}, "
                          f"half_width={half_width!r}, fraction={fraction!r}")
    return math.ceil((Z95 * sd / half_width) ** 2 / fraction)


__all__ = ["Tally", "Estimate", "difference", "ratio_estimate", "hands_needed", "Z95", "DEFAULT_PRECISION"]
