"""Arena: duplicate matches between two bots.

Every match is played twice on the same deals (the k-th hand of both plays
uses the same deck), once with bot A as team 0 and once as team 1, so the
luck of the cards cancels out. Reported: A's match win rate, A's mean
hand-score difference per deal (A minus B, averaged over the two plays of a
deal) and its card-point difference, each with a 95% interval, and each
bot's decision times.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from .bots import BOTS, make_bot
from .errors import OptionError
from .match import Match
from .rules import resolve
from .simulate import mean_ci, wilson
from .state import _check_int

__all__ = ["arena", "ArenaResult", "play_match"]


@dataclass
class ArenaResult:
    variant: str
    bots: Tuple[str, str]
    matches: int
    wins: int                      # matches won by A (of 2 x matches)
    deal_diffs: np.ndarray         # per deal: A minus B hand score, averaged over its plays
    times: Dict[str, List[float]]  # seconds per decision, per bot
    hands: int
    card_diffs: Optional[np.ndarray] = None  # per deal: A minus B card points, averaged

    def summary(self) -> dict:
        n = 2 * self.matches
        lo, hi = wilson(self.wins, n)
        d = self.deal_diffs.astype(np.float64)
        m, ci = mean_ci(float(d.sum()), float((d * d).sum()), len(d))
        out = {"variant": self.variant, "bots": list(self.bots), "matches": n, "hands": self.hands,
               "win_rate": self.wins / n if n else None, "win_rate_ci95": [lo, hi],
               "points_diff": m, "points_diff_ci95": list(ci), "deals": len(d)}
        if self.card_diffs is not None and len(self.card_diffs):
            c = self.card_diffs.astype(np.float64)
            cm, cci = mean_ci(float(c.sum()), float((c * c).sum()), len(c))
            out["card_points_diff"] = cm
            out["card_points_diff_ci95"] = list(cci)
        for name, ts in self.times.items():
            t = np.asarray(ts) * 1e3
            out[f"{name}_ms_median"] = float(np.median(t)) if len(t) else None
            out[f"{name}_ms_p95"] = float(np.percentile(t, 95)) if len(t) else None
        return out


def play_match(variant: str, options, team_bots, seed: int, max_hands: int = 1000):
    """One match; returns (winner, per-hand team scores, decision times per team)."""
    m = Match(variant, options=options, seed=seed)
    scores: List[Tuple[int, int]] = []
    times: Tuple[List[float], List[float]] = ([], [])
    while not m.is_over and len(scores) < max_hands:
        s = m.new_hand()
        while not s.is_terminal():
            team = s.to_act & 1
            t0 = time.perf_counter()
            a = team_bots[team].act(s)
            times[team].append(time.perf_counter() - t0)
            s.apply_action(a)
        m.add_hand(s)
        scores.append(tuple(s.hand_score) + tuple(s.card_points))
    return m.winner, scores, times


def _duplicate(args):
    variant, options, a_name, b_name, seed, j = args
    a, b = make_bot(a_name, seed + 2 * j), make_bot(b_name, seed + 2 * j + 1)
    match_seed = (seed * 1_000_003 + j) & 0xFFFFFFFFFFFFFFFF
    w1, s1, t1 = play_match(variant, options, (a, b), match_seed)   # A is team 0
    w2, s2, t2 = play_match(variant, options, (b, a), match_seed)   # A is team 1
    wins = (w1 == 0) + (w2 == 1)
    diffs, cards = [], []
    for k in range(max(len(s1), len(s2))):
        ds, cs = [], []
        if k < len(s1):     # (score A, score B, points A, points B)
            ds.append(s1[k][0] - s1[k][1])
            cs.append(s1[k][2] - s1[k][3])
        if k < len(s2):
            ds.append(s2[k][1] - s2[k][0])
            cs.append(s2[k][3] - s2[k][2])
        diffs.append(sum(ds) / len(ds))
        cards.append(sum(cs) / len(cs))
    return wins, diffs, t1[0] + t2[1], t1[1] + t2[0], len(s1) + len(s2), cards


def arena(variant: str = "balout", bots: Tuple[str, str] = ("medium", "easy"), matches: int = 10,
          seed: int = 0, threads: Optional[int] = None, options=None) -> ArenaResult:
    """Play ``matches`` duplicate matches (2 x matches in all) of bots A vs B."""
    variant, opts, _ = resolve(variant, options)
    if (not isinstance(bots, (tuple, list)) or len(bots) != 2
            or not all(isinstance(b, str) and b in BOTS for b in bots)):
        raise OptionError(f"give two bots among {', '.join(BOTS)}, got {bots!r}")
    n = _check_int("matches", matches, 1, 1 << 20)
    seed = _check_int("seed", seed, 0, (1 << 63) - 1)
    workers = os.cpu_count() or 1 if threads is None else _check_int("threads", threads, 1, 256)
    jobs = [(variant, dict(opts), bots[0], bots[1], seed, j) for j in range(n)]
    if workers == 1:
        results = list(map(_duplicate, jobs))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_duplicate, jobs))
    wins = sum(r[0] for r in results)
    diffs = np.asarray([d for r in results for d in r[1]], np.float64)
    names = (bots[0], bots[1]) if bots[0] != bots[1] else (bots[0] + "_A", bots[1] + "_B")
    times = {names[0]: [t for r in results for t in r[2]], names[1]: [t for r in results for t in r[3]]}
    cards = np.asarray([c for r in results for c in r[5]], np.float64)
    return ArenaResult(variant, tuple(bots), n, wins, diffs, times, sum(r[4] for r in results), cards)
