"""Arena: duplicate matches between two bots, or two partnerships.

Every match is played twice on the same deals (the k-th hand of both plays
uses the same deck), once with bot A as team 0 and once as team 1, so the
luck of the cards cancels out. A team is one bot in both its seats, or a bot
and a partner of another kind (``partners``: your bot beside ``hard``
against two ``hard``, say). Reported: A's match win rate, A's mean
hand-score difference per deal (A minus B, averaged over the two plays of a
deal) and its card-point difference, each with a 95% interval, and each
bot's decision times.

Two runs with the same seed, variant and options deal the same decks (the
k-th hand of the j-th pair), so they compare deal by deal: :func:`paired`
gives the difference of two bots against the same opponent, with an
interval much narrower than the two runs' own (``balout compare``).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from .bots import BOTS, Bot, bot_name, make_bot
from ._files import PathLike, atomic_write, file_path, read_npz
from .errors import BaloutError, BotError, OptionError
from .match import Match
from .rules import resolve
from .search import thread_solver
from ._interrupt import ctrl_c_sets
from .simulate import Progress, mean_ci, wilson
from .state import _check_int

__all__ = ["arena", "ArenaResult", "play_match", "paired", "load"]


@dataclass
class ArenaResult:
    variant: str
    bots: Tuple[str, str]          # A and B (with partners, each sits opposite its partner)
    matches: int
    wins: int                      # matches won by A (of 2 x matches)
    deal_diffs: np.ndarray         # per deal: A minus B hand score, averaged over its plays
    times: Dict[str, List[float]]  # seconds per decision, per bot
    hands: int
    card_diffs: Optional[np.ndarray] = None  # per deal: A minus B card points, averaged
    seed: Optional[int] = None
    sealed: bool = False
    options: Optional[dict] = None           # the rule options, defaults filled in
    partners: Optional[Tuple[str, str]] = None   # A's and B's partners, when they are other bots
    deal_keys: Optional[np.ndarray] = None       # per deal: (duplicate pair j, hand k of its matches)
    given_away: Optional[Dict[str, List[int]]] = None   # review: per bot, card points given away in each hand
    interrupted: bool = False      # Ctrl-C stopped the run: the figures cover the pairs finished before it

    def summary(self) -> dict:
        n = 2 * self.matches
        lo, hi = wilson(self.wins, n)
        d = self.deal_diffs.astype(np.float64)
        m, ci = mean_ci(float(d.sum()), float((d * d).sum()), len(d))
        out = {"variant": self.variant, "bots": list(self.bots), "seed": self.seed, "sealed": self.sealed,
               "partners": list(self.partners) if self.partners else None,
               "options": self.options, "matches": n, "hands": self.hands,
               "win_rate": self.wins / n if n else None, "win_rate_ci95": [lo, hi],
               "points_diff": m, "points_diff_ci95": list(ci), "deals": len(d), "interrupted": self.interrupted}
        if self.card_diffs is not None and len(self.card_diffs):
            c = self.card_diffs.astype(np.float64)
            cm, cci = mean_ci(float(c.sum()), float((c * c).sum()), len(c))
            out["card_points_diff"] = cm
            out["card_points_diff_ci95"] = list(cci)
        for name, ts in self.times.items():
            t = np.asarray(ts) * 1e3
            out[f"{name}_ms_median"] = float(np.median(t)) if len(t) else None
            out[f"{name}_ms_p95"] = float(np.percentile(t, 95)) if len(t) else None
        for name, costs in (self.given_away or {}).items():
            g = np.asarray(costs, np.float64)
            gm, gci = mean_ci(float(g.sum()), float((g * g).sum()), len(g))
            out[f"{name}_given_away"] = gm if len(g) else None
            out[f"{name}_given_away_ci95"] = list(gci) if len(g) else None
        return out

    def save(self, path: PathLike) -> str:
        """The summary and the per-deal differences as .npz, atomically, for
        :func:`paired` and :func:`load`; returns the path written."""
        path = file_path(path)
        if not path.endswith(".npz"):
            path += ".npz"
        arrays: Dict[str, Any] = {"summary": np.array(json.dumps(self.summary())), "deal_keys": self.deal_keys,
                  "deal_diffs": self.deal_diffs, "card_diffs": self.card_diffs}
        atomic_write(path, lambda f: np.savez(f, **arrays))
        return path


@dataclass
class SavedArena:
    """An arena run read back by :func:`load`: its summary and per-deal rows."""

    summary: dict
    deal_keys: np.ndarray
    deal_diffs: np.ndarray
    card_diffs: np.ndarray


def load(path: PathLike) -> SavedArena:
    """Read a file written by :meth:`ArenaResult.save`; an :class:`OptionError`
    naming what is wrong if it is not one (a damaged or foreign file)."""
    return read_npz(path, "an arena run saved by balout", _saved_arena)


def _saved_arena(arrays: Dict[str, np.ndarray]) -> SavedArena:
    """The arrays of a saved run checked for what :func:`paired` and
    ``balout compare`` use; ValueError says what does not fit."""
    missing = [k for k in ("summary", "deal_keys", "deal_diffs", "card_diffs") if k not in arrays]
    if missing:
        raise ValueError(f"no {', '.join(missing)} in it")
    try:
        summary = json.loads(str(arrays["summary"]))
    except json.JSONDecodeError as e:
        raise ValueError(f"its summary is not JSON: {e}") from None
    if not isinstance(summary, dict):
        raise ValueError(f"its summary is a JSON {type(summary).__name__}, not an object")
    def two_names(v) -> bool:
        return isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)

    for key, fits, what in (("variant", lambda v: isinstance(v, str), "a str"),
                            ("seed", lambda v: isinstance(v, int), "an int"),
                            ("options", lambda v: isinstance(v, dict), "an object"),
                            ("bots", two_names, "two names"),
                            ("partners", lambda v: v is None or two_names(v), "null or two names")):
        if key not in summary:
            if key == "partners":
                continue
            raise ValueError(f"its summary has no {key!r}")
        if not fits(summary[key]):
            raise ValueError(f"its summary's {key!r} should be {what}, got {summary[key]!r}")
    keys, diffs, cards = arrays["deal_keys"], arrays["deal_diffs"], arrays["card_diffs"]
    if keys.ndim != 2 or keys.shape[1] != 2 or keys.dtype.kind not in "iu":
        raise ValueError(f"deal_keys should be (deals, 2) integers, got shape {keys.shape} of {keys.dtype}")
    for name, a in (("deal_diffs", diffs), ("card_diffs", cards)):
        if a.shape != (len(keys),) or a.dtype.kind not in "iuf":
            raise ValueError(f"{name} should be {len(keys)} numbers (one per deal), "
                             f"got shape {a.shape} of {a.dtype}")
    return SavedArena(summary, keys, diffs, cards)


def paired(a: Union[ArenaResult, SavedArena, PathLike], b: Union[ArenaResult, SavedArena, PathLike]) -> dict:
    """Bot A of run ``a`` against bot A of run ``b``, deal by deal.

    Both runs must have dealt the same decks: the same variant, options and
    seed (and, for the comparison to mean something, the same opponent).
    Their common deals (hands that both runs' matches reached) are paired:
    the mean difference of A's hand-score margin, and of its card-point
    margin, with 95% intervals. ``a`` and ``b``: :class:`ArenaResult`, or
    what :func:`load` returns, or a path to a saved run."""
    runs = [load(r) if isinstance(r, (str, os.PathLike)) else r for r in (a, b)]
    for r in runs:
        if not isinstance(r, (ArenaResult, SavedArena)):
            raise OptionError(f"give two arena runs (ArenaResult, or a saved .npz), not {type(r).__name__}")
    sums = [r.summary() if isinstance(r, ArenaResult) else r.summary for r in runs]
    for key in ("variant", "seed", "options"):
        if sums[0][key] != sums[1][key]:
            raise OptionError(f"the runs did not deal the same decks: {key} {sums[0][key]!r} against "
                              f"{sums[1][key]!r}")
    rows = []
    for r in runs:
        keys = r.deal_keys if r.deal_keys is not None else np.zeros((0, 2), np.int64)
        rows.append({(int(j), int(k)): i for i, (j, k) in enumerate(keys)})
    common = sorted(set(rows[0]) & set(rows[1]))
    ia = np.asarray([rows[0][key] for key in common], np.int64)
    ib = np.asarray([rows[1][key] for key in common], np.int64)
    out = {"variant": sums[0]["variant"], "seed": sums[0]["seed"], "bots": [sums[0]["bots"], sums[1]["bots"]],
           "partners": [sums[0].get("partners"), sums[1].get("partners")], "deals": len(common)}
    for name, attr in (("points_diff", "deal_diffs"), ("card_points_diff", "card_diffs")):
        d = (getattr(runs[0], attr)[ia] - getattr(runs[1], attr)[ib]).astype(np.float64)
        m, ci = mean_ci(float(d.sum()), float((d * d).sum()), len(d))
        out[name], out[name + "_ci95"] = m, list(ci)
    return out


def play_match(variant: str, options, bots, seed: int, max_hands: int = 1000, sealed: bool = False,
               given_away: Optional[List[Optional[List[int]]]] = None):
    """One match; returns (winner, per-hand team scores, decision times per bot).

    ``bots``: two, one per team (team 0 sits in seats 0 and 2), or four, one
    per seat. A bot's illegal action raises :class:`BotError` naming the bot.
    ``sealed``: each bot acts on the state resampled for its seat
    (:meth:`State.resample`). ``given_away``: a list to which every hand with
    a card played appends the card points each bot gave away in it, over the
    seats it plays, against the double-dummy best (:meth:`Solver.review`);
    None for a hand thrown in."""
    if len(bots) not in (2, 4):
        raise OptionError(f"give two bots (one per team) or four (one per seat), got {len(bots)}")
    per_seat = len(bots) == 4
    m = Match(variant, options=options, seed=seed)
    scores: List[Tuple[int, int, int, int]] = []
    times: Tuple[List[float], ...] = tuple([] for _ in bots)
    while not m.is_over and len(scores) < max_hands:
        s = m.new_hand()
        while not s.is_terminal():
            who = s.to_act if per_seat else s.to_act & 1
            # a copy: a bot that looks ahead on its state cannot change the match's
            seen = s.resample(s.to_act, _sealing_seed(seed, len(scores), len(s.action_history))) if sealed \
                else s.clone()
            t0 = time.perf_counter()
            a = bots[who].act(seen)
            times[who].append(time.perf_counter() - t0)
            try:
                s.apply_action(a)
            except BaloutError as e:
                bot = bots[who]
                raise BotError(f"bot {getattr(bot, 'name', type(bot).__name__)} (seat {s.to_act}, hand "
                               f"{len(scores) + 1} of the match with seed {seed}) chose an illegal action: "
                               f"{e}") from None
        m.add_hand(s)
        (hs0, hs1), (cp0, cp1) = s.hand_score, s.card_points
        scores.append((hs0, hs1, cp0, cp1))
        if given_away is not None:
            plays = thread_solver().review(s)
            costs = [0] * len(bots)
            for p in plays:
                costs[p["seat"] if per_seat else p["seat"] & 1] += p["cost"]
            given_away.append(costs if plays else None)
    return m.winner, scores, times


def _sealing_seed(match_seed: int, hand: int, step: int) -> int:
    return (match_seed * 0x9E3779B97F4A7C15 + hand * 4099 + step) & 0xFFFFFFFFFFFFFFFF


def _partner_seed(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF


def _duplicate(args):
    variant, options, a_name, b_name, seed, j, sealed, partners, review = args
    a, b = make_bot(a_name, seed + 2 * j), make_bot(b_name, seed + 2 * j + 1)
    match_seed = (seed * 1_000_003 + j) & 0xFFFFFFFFFFFFFFFF
    g1: Optional[List[Optional[List[int]]]] = [] if review else None
    g2: Optional[List[Optional[List[int]]]] = [] if review else None
    seats: Tuple[Tuple[Bot, ...], Tuple[Bot, ...]]
    if partners is None:
        seats = (a, b), (b, a)                    # A is team 0, then team 1
        roles = [(0, 1), (1, 0)]                  # A's, B's slot in each match
    else:
        pa = make_bot(partners[0], _partner_seed(seed + 2 * j))
        pb = make_bot(partners[1], _partner_seed(seed + 2 * j + 1))
        seats = (a, b, pa, pb), (b, a, pb, pa)
        roles = [(0, 1), (1, 0), (2, 3), (3, 2)]  # A, B, A's partner, B's
    w1, s1, t1 = play_match(variant, options, seats[0], match_seed, sealed=sealed, given_away=g1)
    w2, s2, t2 = play_match(variant, options, seats[1], match_seed, sealed=sealed, given_away=g2)
    times = [t1[r1] + t2[r2] for r1, r2 in roles]
    given = [[h[r1] for h in g1 or () if h] + [h[r2] for h in g2 or () if h] for r1, r2 in roles] if review else None
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
    return wins, diffs, times, len(s1) + len(s2), cards, given


def arena(variant: str = "balout", bots: Tuple[Any, Any] = ("medium", "easy"), matches: int = 10,
          seed: int = 0, threads: Optional[int] = None, options=None, sealed: bool = False,
          progress: Optional[bool] = None, partners: Optional[Tuple[Any, Any]] = None,
          review: bool = False) -> ArenaResult:
    """Play ``matches`` duplicate matches (2 x matches in all) of bots A vs B.

    A bot is a name (:data:`balout.bots.BOTS`), ``"FILE.py:NAME"`` or
    ``"module:NAME"`` naming a factory of your own, or the factory itself (a
    bot class, or a function of the seed; with more than one thread it must
    be defined at the top level of a module, so that it can be sent to the
    worker processes); see :func:`balout.bots.make_bot`.

    ``partners``: two more bots, A's partner and B's (default: each bot
    plays both seats of its team). Each is made with a seed of its own and
    sits opposite its bot; the decision times are reported for each of the
    four.

    ``review``: every hand's cards are also valued against the double-dummy
    best (:meth:`balout.search.Solver.review`), and the summary gives the
    card points each bot gave away per hand, over the seats it plays
    (``NAME_given_away``, with its 95% interval).

    ``sealed``: every decision is asked of the state resampled for the seat
    to act (:meth:`balout.State.resample`: the cards it has not seen redealt
    at random, consistently with all it has seen), so that no bot can read a
    hidden card; balout's own bots decide the same either way (``cheat``,
    which reads them, is refused). ``progress``: a progress bar on stderr
    (default: when stderr is a terminal)."""
    variant, opts, _ = resolve(variant, options)
    if not isinstance(bots, (tuple, list)) or len(bots) != 2:
        raise OptionError(f"give two bots (among {', '.join(BOTS)}, or your own), got {bots!r}")
    if partners is not None and (not isinstance(partners, (tuple, list)) or len(partners) != 2):
        raise OptionError(f"give two partners, A's and B's (among {', '.join(BOTS)}, or your own), "
                          f"got {partners!r}")
    n = _check_int("matches", matches, 1, 1 << 20)
    seed = _check_int("seed", seed, 0, (1 << 63) - 1)
    workers = os.cpu_count() or 1 if threads is None else _check_int("threads", threads, 1, 256)
    if not isinstance(sealed, bool):
        raise OptionError(f"sealed must be True or False, not {sealed!r}")
    if not isinstance(review, bool):
        raise OptionError(f"review must be True or False, not {review!r}")
    for b in tuple(bots) + tuple(partners or ()):
        make_bot(b, seed)   # every bot made once here: a bad name or factory fails before any match
        if sealed and b == "cheat":
            raise OptionError("cheat plays with every card visible: it cannot play sealed")
        if workers > 1 and not isinstance(b, str):
            _check_picklable(b)
    partners = tuple(partners) if partners is not None else None
    jobs = [(variant, dict(opts), bots[0], bots[1], seed, j, sealed, partners, review) for j in range(n)]
    show = progress if progress is not None else sys.stderr.isatty()
    bar = Progress(n, "duplicate pairs") if show else None
    try:
        results, interrupted = _play_pairs(jobs, workers, bar)
    finally:
        if bar is not None:
            bar.close()
    if not results:
        raise KeyboardInterrupt
    n = len(results)
    wins = sum(r[0] for r in results)
    diffs = np.asarray([d for r in results for d in r[1]], np.float64)
    keys = _time_keys([bot_name(b) for b in tuple(bots) + tuple(partners or ())])
    times = {key: [t for r in results for t in r[2][k]] for k, key in enumerate(keys)}
    given = {key: [c for r in results for c in r[5][k]] for k, key in enumerate(keys)} if review else None
    cards = np.asarray([c for r in results for c in r[4]], np.float64)
    deal_keys = np.asarray([(j, k) for j, r in enumerate(results) for k in range(len(r[1]))], np.int64).reshape(-1, 2)

    def labels(bs):
        return tuple(b if isinstance(b, str) else bot_name(b) for b in bs)

    return ArenaResult(variant, labels(bots), n, wins, diffs, times, sum(r[3] for r in results), cards, seed,
                       sealed, dict(opts), labels(partners) if partners is not None else None, deal_keys, given,
                       interrupted)


def _play_pairs(jobs: List[tuple], workers: int, bar: Optional[Progress]) -> Tuple[List[Any], bool]:
    """The duplicate pairs' results in order, on `workers` processes, and
    whether Ctrl-C stopped the run: then the results are the pairs finished
    before it, in order, and the workers are stopped at once."""
    results: List[Any] = []

    def take(r) -> None:
        results.append(r)
        if bar is not None:
            bar.update(len(results))

    stop = threading.Event()
    try:
        if workers == 1:
            with ctrl_c_sets(stop, interrupt=True):
                for job in jobs:
                    if stop.is_set():   # a Ctrl-C whose KeyboardInterrupt was lost
                        return results, True
                    take(_duplicate(job))
            return results, False
        with ctrl_c_sets(stop), multiprocessing.Pool(workers, initializer=_leave_ctrl_c_to_the_main) as pool:
            pairs = pool.imap(_duplicate, jobs)
            while len(results) < len(jobs):
                if stop.is_set():
                    return results, True  # leaving the pool terminates its workers
                try:
                    take(pairs.next(timeout=0.2))
                except multiprocessing.TimeoutError:
                    pass
        return results, False
    except KeyboardInterrupt:
        return results, True


def _leave_ctrl_c_to_the_main() -> None:
    """A worker ignores Ctrl-C: the main process stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _time_keys(names: List[str]) -> List[str]:
    """A key per bot (A, B, then A's and B's partners): its name, with its
    role added where two bots share a name."""
    roles = ("A", "B", "A_partner", "B_partner")
    return [f"{name}_{roles[k]}" if names.count(name) > 1 else name for k, name in enumerate(names)]


def _check_picklable(factory) -> None:
    try:
        pickle.dumps(factory)
    except Exception as e:  # noqa: BLE001 - lambdas, closures, local classes
        raise OptionError(f"bot factory {bot_name(factory)} cannot be sent to the worker processes "
                          f"({type(e).__name__}: {e}); define it at the top level of a module, name it as "
                          "'FILE.py:NAME', or play with threads=1") from None
