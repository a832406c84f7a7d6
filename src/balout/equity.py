"""Match equity: the chance that a team wins the match from a given score.

A hand's worth depends on the match around it. Twenty points are nothing at
0-0 of a match to 500 and everything at 480-490; a gahwa wins a baloot match
outright, whatever the hand score it is written as. A bot that maximises
the hand score plays every hand as if it were the first; one that maximises
the chance of winning the match (``MonteCarloBot(objective="match")``)
reads the score.

:class:`MatchEquity` computes that chance for every score before a hand, as
backgammon's match equity tables do: from the distribution of the two teams'
hand scores in self-play (the native ``greedy`` policy, each hand counted
from both teams' sides, so the table is fair to both), by dynamic
programming from the end of the match back to 0-0. It leaves out who deals
next and the litige pot. Scores go in steps (``target // 100`` points, at
least 1: 5 in balout, 10 in belote, 1 in baloot) and a hand's score moves
a team by its score rounded to the nearest step.

The tables of the three variants' default rules are made in advance and
ship with the package (``equity_tables.npz``, written by ``python -m
balout.equity src/balout/equity_tables.npz`` in a checkout; a test checks
that they are what this module computes), so a bot's first decision does
not wait for them. Other rule options have theirs computed once per
process, in about a second.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

import numpy as np

from . import rules as _rules
from .state import _check_int

__all__ = ["MatchEquity", "match_equity"]

#: the tables of each variant's default rules, made in advance
MADE_TABLES = Path(__file__).with_name("equity_tables.npz")


class MatchEquity:
    """``equity(us, them)``: the chance that a team with ``us`` points wins a
    match against a team with ``them``, before a hand (0 or 1 once the match
    is decided, 0.5 for a tie at or past the target, which plays on).

    ``hands`` self-play hands of ``policy`` (from ``seed``) give the
    distribution of a hand's scores; ``table[i, j]`` is the equity with
    ``i * step`` and ``j * step`` points (rows up to the target)."""

    def __init__(self, variant: str = "balout", options: Optional[Mapping] = None, *, hands: int = 200_000,
                 policy: str = "greedy", seed: int = 0) -> None:
        from .simulate import simulate
        self._resolve(variant, options)
        hands = _check_int("hands", hands, 1, 1 << 30)
        rows = simulate(self.variant, hands=hands, policy=policy, seed=seed, options=self.options,
                        threads=1).hands
        assert rows is not None   # not aggregate_only
        self.table = _backward(rows["hand_score"].astype(np.int64), self.target, self.step)

    def _resolve(self, variant: str, options: Optional[Mapping]) -> None:
        self.variant, self.options, _ = _rules.resolve(variant, options)
        self.target = self.options["target"]
        self.step = max(1, self.target // 100)

    @classmethod
    def _of_table(cls, variant: str, options: Optional[Mapping], table: np.ndarray) -> "MatchEquity":
        self = cls.__new__(cls)
        self._resolve(variant, options)
        if table.shape != (-(-self.target // self.step),) * 2:
            raise ValueError(f"a {variant} equity table of shape {table.shape}")
        self.table = np.ascontiguousarray(table, dtype=np.float32)
        return self

    @property
    def n(self) -> int:
        return self.table.shape[0]

    def __call__(self, us: int, them: int) -> float:
        us, them = _check_int("us", us, 0, 1 << 30), _check_int("them", them, 0, 1 << 30)
        if us >= self.target or them >= self.target:
            return 1.0 if us > them else 0.0 if us < them else 0.5
        return float(self.table[us // self.step, them // self.step])

    def native(self) -> tuple:
        """The (table, step) pair that ``_core.mc_evaluate`` takes."""
        return self.table, self.step

    def __repr__(self) -> str:
        return f"MatchEquity({self.variant!r}, target={self.target}, step={self.step})"


def _backward(scores: np.ndarray, target: int, step: int) -> np.ndarray:
    """The equity table from the hands' (team 0, team 1) scores."""
    n = -(-target // step)
    both = np.concatenate([scores, scores[:, ::-1]])
    moves = np.rint(both / step).astype(np.int64)
    if (moves < 0).any():
        raise ValueError("a hand score below 0")
    pairs, counts = np.unique(moves, axis=0, return_counts=True)
    p = counts / counts.sum()
    still = (pairs[:, 0] == 0) & (pairs[:, 1] == 0)     # nobody scored: the hand is dealt again
    stay = float(p[still].sum())
    dx, dy, p = pairs[~still, 0], pairs[~still, 1], p[~still] / (1.0 - stay)
    reach = int(max(dx.max(), dy.max())) + 1
    size = n + reach
    # past the target (either index >= n): decided by who has more
    i, j = np.indices((size, size))
    e = np.where(i > j, 1.0, np.where(i < j, 0.0, 0.5))
    for total in range(2 * n - 2, -1, -1):          # each hand adds points: later sums first
        lo, hi = max(0, total - n + 1), min(n - 1, total)
        ii = np.arange(lo, hi + 1)
        jj = total - ii
        e[ii, jj] = e[ii[:, None] + dx, jj[:, None] + dy] @ p
    return np.ascontiguousarray(e[:n, :n], dtype=np.float32)


def _options_key(options: Mapping) -> str:
    return json.dumps(dict(options), sort_keys=True)


def _made_table(variant: str, options: Mapping) -> Optional[np.ndarray]:
    """The table made in advance for these rules, if there is one."""
    try:
        with np.load(MADE_TABLES) as made:
            if f"{variant}_options" in made.files and str(made[f"{variant}_options"]) == _options_key(options):
                return made[f"{variant}_table"]
    except OSError:     # not shipped (a bare source tree): computed instead
        pass
    return None


def write_tables(path: Path = MADE_TABLES) -> None:
    """Make the tables of the variants' default rules (the defaults of
    :class:`MatchEquity`) and write them where :func:`match_equity` finds
    them."""
    arrays: Dict[str, Any] = {}
    for variant in _rules.VARIANTS:
        e = MatchEquity(variant)
        arrays[f"{variant}_options"] = np.array(_options_key(e.options))
        arrays[f"{variant}_table"] = e.table
    np.savez_compressed(path, **arrays)


@lru_cache(maxsize=32)
def _cached(variant: str, options: tuple) -> MatchEquity:
    made = _made_table(variant, dict(options))
    if made is not None:
        return MatchEquity._of_table(variant, dict(options), made)
    return MatchEquity(variant, dict(options))


def match_equity(variant: str = "balout", options: Optional[Mapping] = None) -> MatchEquity:
    """The table for a variant and its rule options, shared: for the default
    rules the one made in advance, for others made once per process
    (200,000 greedy hands, about a second)."""
    name, resolved, _ = _rules.resolve(variant, options)
    return _cached(name, tuple(sorted(resolved.items())))


if __name__ == "__main__":     # python -m balout.equity src/balout/equity_tables.npz (in a checkout)
    import sys

    where = Path(sys.argv[1]) if len(sys.argv) > 1 else MADE_TABLES
    write_tables(where)
    print(f"wrote {where}")
