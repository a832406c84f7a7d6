"""Search support: information sets, the determinization sampler and the
double-dummy solver, over the native core (src/_core/search.c).

>>> s = State("balout", seed=3); ...               # a position in the play phase
>>> solve(s)                                        # {'seat': 2, 'value': 97, 'moves': {'JH': 97, ...}}
>>> Sampler(s, seat=0).worlds(100, seed=1)          # 100 deals consistent with what seat 0 knows
>>> Solver().pimc(s, worlds=None, time_budget=0.05) # each card's double-dummy value over as many deals as 50 ms allow
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from . import _core
from .cards import Card, CardSet, card_name
from .errors import BaloutError, OptionError
from .rules import VARIANTS
from .simulate import MAX_ROW_BYTES
from .state import State, _check_int, seed_to_int

__all__ = ["InformationSet", "information_set", "Sampler", "Solver", "solve"]


@dataclass(frozen=True)
class InformationSet:
    """What one seat knows about the hidden cards.

    ``unseen``: the cards the seat has not seen, in the other hands or,
    during the auction, still in the stock (``stock`` of them: the
    ``unseen`` cards that nobody holds yet). ``known[s]``: cards seat s surely holds (the offer it received, shown
    declarations, the other half of an announced belote); ``forbidden[s]``:
    cards it cannot hold (voids, no trump, no higher trump, shown by its
    plays); ``count[s]``: how many cards it holds. ``declarations[s]``, once
    the first trick is over: the cards seat s declared (empty: it declared
    nothing), and so that its whole hand declares exactly that; None while
    nothing is shown. When declaring is a choice, a seat is asked at its first
    turn only if it holds a declaration: once that turn has come, a seat that
    was not asked shows empty, and one that kept its declaration quiet stays
    None (the sampler still deals it one).
    """

    seat: int
    own: CardSet
    unseen: CardSet
    count: Tuple[int, int, int, int]
    known: Tuple[CardSet, ...]
    forbidden: Tuple[CardSet, ...]
    declarations: Tuple[Optional[CardSet], ...] = (None, None, None, None)
    stock: int = 0

    def allows(self, seat: int, card) -> bool:
        """May ``seat`` hold ``card``, as far as the observer knows?"""
        c = Card(card)
        if seat == self.seat:
            return c in self.own
        return c in self.unseen and c not in self.forbidden[seat] and not any(
            c in self.known[s] for s in range(4) if s != seat)


def information_set(state: State, seat: int) -> InformationSet:
    """The information set of ``seat`` in ``state``."""
    seat = _check_int("seat", seat, 0, 3)
    d = _core.information_set(_check_state(state), seat)
    return InformationSet(seat, CardSet.from_mask(d["own"]), CardSet.from_mask(d["unseen"]),
                          d["count"], tuple(CardSet.from_mask(m) for m in d["known"]),
                          tuple(CardSet.from_mask(m) for m in d["forbidden"]),
                          tuple(CardSet.from_mask(d["declared"][s]) if s in d["declared"] else None
                                for s in range(4)), d["stock"])


class Sampler:
    """Uniform deals of the unseen cards among all those consistent with a
    seat's information set.

    Exact counting deals uniformly among the deals that respect the known
    and forbidden cards, with no bias. Once declarations are shown, a deal
    that would declare otherwise than the seats did is drawn again, which
    keeps the draw uniform over the deals that remain (after 4,096 redraws
    in a row the last one is kept: the real deal always passes, so only a
    contrived position could get there). During the auction the other hands
    are any split of the cards the seat has not seen, the rest of them still
    in the stock."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = _check_state(state)
        self.seat = _check_int("seat", seat, 0, 3)
        self._native = _core.WorldSampler(state, self.seat)

    @property
    def count(self) -> float:
        """The number of deals that respect the known and forbidden cards
        (before the declaration check, which may exclude some)."""
        return self._native.count

    def hands(self, n: int, seed: int, bid_weight: float = 1.0, play_weight: float = 1.0) -> np.ndarray:
        """``n`` worlds as an (n, 4) array of hand masks, drawn from
        ``seed`` (an integer from 0 to 2**64-1; None: fresh entropy); at
        most 2**29 (8 GiB) in one call.

        ``bid_weight`` below 1 weighs the deals by the auction instead of
        dealing uniformly: a deal counts ``bid_weight`` times less for each
        bid of another seat that the greedy bidder (the ``easy`` bot) would
        not have made with that deal's cards; 0 keeps only deals that
        explain every bid (when there are any among 256 draws).
        ``play_weight`` below 1 weighs them by the play the same way: a deal
        counts ``play_weight`` times less for each card an opponent of the
        seat played that the greedy player would not have played holding
        that deal's cards. When 256 draws hold no deal that explains the
        plays, the opponents do not play like the model and the rest of the
        deals do not read them; when they hold none that explains the bids,
        the rest of the deals do not read the plays either, and each keeps
        the best of 32 draws."""
        n = _world_count(n, WORLD_BYTES)
        return self._native.draw(n, seed_to_int(seed), _check_weight(bid_weight),
                                 _check_weight(play_weight, "play_weight"))

    def worlds(self, n: int, seed: int, bid_weight: float = 1.0, play_weight: float = 1.0) -> List[State]:
        """``n`` states, each the hand with the hidden cards of one world of
        :meth:`hands` (the same arguments), dealt from a deck of its own and
        every action replayed: a world's deck and record tell nothing of the
        real deal. A world whose replay would show the seat something the
        real hand does not (only where the information set is coarser than
        the rules, see :meth:`State.resample`) is replaced by a uniform one.
        At most 2**24 worlds in one call."""
        n = _world_count(n, STATE_WORLD_BYTES)
        return self._native.worlds(n, seed_to_int(seed), _check_weight(bid_weight),
                                   _check_weight(play_weight, "play_weight"))


#: a world of Sampler.hands is a row of four uint32 masks; one of
#: Sampler.worlds a State, about 400 bytes (measured), counted as 512
WORLD_BYTES = 16
STATE_WORLD_BYTES = 512


def _world_count(n, per_world: int) -> int:
    """``n`` checked against the memory its worlds would take (the same
    8 GiB that ``simulate`` allows its rows), so that a typo of a few
    zeros is an error rather than a machine out of memory."""
    most = MAX_ROW_BYTES // per_world
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n > most:
        raise OptionError(f"{int(n):,} worlds need {int(n) * per_world / 2**30:,.1f} GiB; at most {most:,} at "
                          f"once (draw more in several calls, each with a seed of its own)")
    return _check_int("n", n, 0, most)


def _check_weight(w, name: str = "bid_weight") -> float:
    if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
        raise OptionError(f"{name} must be a number from 0 to 1, got {w!r}")
    return float(w)


def _check_budget(worlds, time_budget, name: str = "worlds",
                  most: int = 1 << 40) -> Tuple[Optional[int], Optional[float]]:
    """A world budget (None or 1..most) and a time budget (None or seconds > 0), not both None."""
    if worlds is None and time_budget is None:
        raise OptionError(f"give a number of {name}, a time budget in seconds, or both")
    if worlds is not None:
        worlds = _check_int(name, worlds, 1, most)
    if time_budget is not None:
        if (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                or not math.isfinite(time_budget) or time_budget <= 0):
            raise OptionError(f"time_budget must be a number of seconds above 0, got {time_budget!r}")
        time_budget = float(time_budget)
    return worlds, time_budget


#: what PIMC averages over its deals: each card's double-dummy card points,
#: or what those points are worth, the hand-score difference
OBJECTIVES = ("points", "score", "match")


def _check_objective(objective) -> str:
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise OptionError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return objective


def _check_objectives(objective) -> Dict[str, str]:
    """A bot's objective per variant, from one objective or a mapping of
    variants to objectives (the variants left out: "points")."""
    if isinstance(objective, str):
        return dict.fromkeys(VARIANTS, _check_objective(objective))
    if not isinstance(objective, Mapping):
        raise OptionError(f"objective must be one of {', '.join(OBJECTIVES)}, or a mapping of variants to them, "
                          f"got {objective!r}")
    unknown = [v for v in objective if v not in VARIANTS]
    if unknown:
        raise OptionError(f"objective: unknown variant {unknown[0]!r}; variants are {', '.join(VARIANTS)}")
    return {v: _check_objective(objective.get(v, "points")) for v in VARIANTS}


def _equity_of(state: State, objective: str):
    """The native match equity pair for objective "match", else None."""
    if objective != "match":
        return None
    from .equity import match_equity
    return match_equity(state.variant, state.options).native()


def _check_state(state) -> State:
    if not isinstance(state, State):
        raise BaloutError(f"expected a balout State, not {type(state).__name__}")
    return state


class Solver:
    """Exact double-dummy solver (every card visible) of the play.

    Values are the final card points of a team (tricks already taken and the
    last trick's 10 included) under perfect play by both sides. The
    transposition table (2**table_bits entries of 32 bytes, keyed by the
    positions' shapes: see docs/solver.md) is kept between calls on the
    same contract. A search
    releases the GIL, but one solver searches in one thread at a time (a
    second thread gets a RuntimeError): use one solver per thread.
    """

    def __init__(self, table_bits: int = 18) -> None:
        self._native = _core.DoubleDummy(_check_int("table_bits", table_bits, 10, 26))

    @property
    def nodes(self) -> int:
        return self._native.nodes

    def value(self, state: State) -> int:
        """Final card points of the team to act."""
        return self._native.value(_check_state(state))

    def moves(self, state: State) -> Dict[Card, int]:
        """Value (for the team to act) of each legal card."""
        return {Card(c): v for c, v in self._native.moves(_check_state(state)).items()}

    def reaches(self, state: State, team: int, target: int) -> bool:
        """Threshold mode: can ``team`` end with at least ``target`` card points?"""
        return self._native.reaches(_check_state(state), _check_int("team", team, 0, 1),
                                    _check_int("target", target, -1000, 1000))

    def solve(self, state: State) -> dict:
        """``{"seat", "value", "moves": {card: value}}`` for the seat to act."""
        moves = self.moves(state)
        return {"seat": state.to_act, "value": max(moves.values()),
                "moves": {card_name(c): v for c, v in sorted(moves.items())}}

    def review(self, state: State) -> List[dict]:
        """Every card played so far in ``state``, valued double dummy (every
        card visible): at the position before it, the card's ``value`` for
        the team of the seat that played it (as :meth:`moves`), the ``best``
        value there and the ``best_cards`` that reach it, and the card's
        ``cost``: best minus value, the card points it gave away.

        Along the play the costs add up exactly: a team's final card points
        are its double-dummy value at the first card, minus the costs of its
        own cards, plus the costs of the other team's."""
        _check_state(state)
        out: List[dict] = []
        s = state.initial_state()
        for action in state.action_history:
            if s.phase == "play":
                moves = self.moves(s)
                best = max(moves.values())
                card = Card(action)
                out.append({"trick": s.tricks_played + 1, "seat": s.to_act, "card": card_name(card),
                            "value": moves[card], "best": best,
                            "best_cards": [card_name(c) for c in sorted(moves) if moves[c] == best],
                            "cost": best - moves[card]})
            s.apply_action(action)
        return out

    def pimc(self, state: State, worlds: Optional[int] = 20, seed: int = 0, *,
             bid_weight: float = 1.0, time_budget: Optional[float] = None,
             objective: str = "points", play_weight: float = 1.0) -> dict:
        """Perfect-information Monte Carlo for the seat to act: each legal
        card's double-dummy value (as in :meth:`moves`) averaged over deals
        drawn from the seat's information set (see :class:`Sampler`, also
        for ``bid_weight`` and ``play_weight``).

        ``worlds``: at most this many deals (None: no limit); ``time_budget``:
        at most this many seconds (None: no limit). The first limit reached
        stops the search, after at least one deal. The deals are one stream
        from ``seed``: a search stopped by the clock after n deals gives what
        ``worlds=n`` gives, and a search with no time budget depends on the
        seed only. ``objective="score"`` averages what each value is worth
        instead: the team's hand score minus the other's, were the hand to
        end on those card points (made or failed, capot), plus 1/1024 of the
        card points to break ties. ``objective="match"``: the chance that
        the team wins the match, were the hand to end on those card points,
        from the match score before the hand (:mod:`balout.equity`), plus a
        millionth of the card points to break ties. Returns ``{"seat",
        "worlds": n, "moves": {card: mean}}``."""
        worlds, time_budget = _check_budget(worlds, time_budget)
        objective = _check_objective(objective)
        state = _check_state(state)
        legal, sums, n = self._native.pimc(state, worlds, seed_to_int(seed),
                                           _check_weight(bid_weight), time_budget, objective == "score",
                                           _check_weight(play_weight, "play_weight"), _equity_of(state, objective))
        return {"seat": state.to_act, "worlds": n,
                "moves": {card_name(c): float(sums[c]) / n for c in range(32) if legal >> c & 1}}


_local = threading.local()   # a solver searches in one thread at a time: one per thread


def thread_solver() -> Solver:
    """This thread's own solver (made on first use; its table is reused)."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(state: State) -> dict:
    """Double-dummy value of the position and of each legal card (see Solver.solve)."""
    return thread_solver().solve(_check_state(state))
