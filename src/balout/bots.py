"""Bots: one interface, ``act(state) -> action``, for the auction, the
doubling and the play.

A bot may only use what the seat to act is allowed to know: its own hand,
the offer, the public history and what the rules reveal (the information
set of :mod:`balout.search`). Every bot below reads the state through the
native information set and sampler, never the hidden hands; the tests check
this by redealing the hidden cards (:meth:`State.resample`): every decision
stays the same. ``arena(..., sealed=True)`` holds bots of your own to it.

Levels (budgets per decision on one core of the reference machine):

- ``random``: uniform over the legal actions.
- ``easy``: the native rule-based ``greedy`` player.
- ``medium``: flat Monte Carlo over 300 determinized worlds, every action
  followed by greedy play to the end (auction and doubling included: the
  candidate bids are evaluated by simulation); double-dummy (PIMC) over 20
  worlds once 3 tricks or fewer remain.
- ``hard``: the same with 3,000 worlds, and PIMC over 40 worlds once 7
  tricks or fewer remain, i.e. from the second trick (after the first
  trick the double-dummy solver is fast enough, and PIMC plays clearly
  better than greedy rollouts). Its worlds also explain the auction
  (``bid_weight=0``): only deals in which the greedy bidder would have
  bid as the other seats did, as far as 256 draws find one (32 for the
  rest of a decision once none did); and the
  opponents' plays (``play_weight=0``): only deals in which the greedy
  player would have played their cards, until no world explains them. In
  baloot it plays for the match (``objective="match"``: the chance of
  winning it, :mod:`balout.equity`), elsewhere for the card points and the
  hand score.
- ``cheat``: sees every card: double-dummy play, bids evaluated on the real
  deal. Only to measure the ceiling.

Two more search players: ``pimc`` (double-dummy over 20 sampled worlds at
every card; slow early in the hand) and ``ismcts`` (information-set MCTS,
20,000 iterations per card).
"""
from __future__ import annotations

import hashlib
import inspect
import random as _random
from typing import Callable, Dict, Mapping, Optional, Protocol, Union

from . import _core
from ._user import is_spec, load, spec_attr
from .errors import BaloutError, OptionError
from .search import _check_budget, _check_objectives, _check_weight, _equity_of
from .state import State, _check_int, seed_to_int

__all__ = ["Bot", "Action", "RandomBot", "GreedyBot", "MonteCarloBot", "PIMCBot", "ISMCTSBot", "CheatBot", "make_bot",
           "bot_name", "LEVELS", "BOTS"]

LEVELS = ("random", "easy", "medium", "hard", "cheat")
GREEDY = 1


#: an action as a bot may return it: an int id (a Card is one) or its name ('take', 'JH')
Action = Union[int, str]


class Bot(Protocol):
    """What the arena and the levels ask of a bot. A ``name`` attribute, if
    it has one, labels it in reports; balout's own bots return int ids."""

    def act(self, state: State) -> Action:
        """The action chosen for the seat to act."""
        ...


def _public_seed(seed: int, state: State) -> int:
    """A seed from the bot's seed and the public history only."""
    h = hashlib.blake2b(digest_size=8)
    h.update(seed.to_bytes(8, "little", signed=False))
    h.update(bytes(state.action_history))
    h.update(bytes([state.to_act, state.dealer, state.offer_id]))
    h.update(repr(tuple(state.match_before)).encode())
    return int.from_bytes(h.digest(), "little")


def _legal(state) -> list:
    """The legal actions of the seat to act, once the bot is known to hold a hand in progress."""
    if not isinstance(state, State):
        raise BaloutError(f"a bot acts on a balout State, not {type(state).__name__}")
    if state.is_terminal():
        raise BaloutError("the hand is over: there is no action to choose")
    return state.legal_actions()


def _best(values: Mapping[int, float]) -> int:
    best = max(values.values())
    return min(a for a, v in values.items() if v >= best - 1e-9)


class RandomBot:
    name = "random"

    def __init__(self, seed: Optional[int] = 0) -> None:
        self.seed = seed_to_int(seed)

    def act(self, state: State) -> int:
        legal = _legal(state)
        return _random.Random(_public_seed(self.seed, state)).choice(legal)


class GreedyBot:
    """The native rule-based player (easy)."""

    name = "easy"

    def __init__(self, seed: Optional[int] = 0) -> None:
        self.seed = seed_to_int(seed)

    def act(self, state: State) -> int:
        _legal(state)
        return _core.policy_action(state, GREEDY, _public_seed(self.seed, state))


def _decision(bot, state: State):
    """A search player's seed for this decision (from its own seed and the
    public history), its objective in this variant and the equity table
    that objective reads (None but for "match")."""
    objective = bot.objectives[state.variant]
    return _public_seed(bot.seed, state), objective, _equity_of(state, objective)


class MonteCarloBot:
    """Flat Monte Carlo with greedy rollouts, and PIMC double-dummy play in
    the endgame; ``bid_weight`` below 1 weighs the worlds by the auction,
    ``play_weight`` below 1 by the opponents' plays (see
    :meth:`balout.search.Sampler.hands`).

    Budget per decision: ``worlds`` (flat Monte Carlo) or ``endgame_worlds``
    (PIMC) worlds, None for no limit, and/or ``time_budget`` seconds; the
    first reached stops the search, after at least one world. With world
    budgets alone the bot is deterministic under its seed. ``objective``:
    what PIMC averages, each world's card points or their hand score
    (see :meth:`balout.search.Solver.pimc`); ``"match"``: the chance of
    winning the match (:mod:`balout.equity`), in PIMC and in the flat Monte
    Carlo decisions (bids, doubling, the cards before PIMC) alike, which
    otherwise maximise the hand score. One objective for every variant, or a
    mapping of variants to objectives (the variants it leaves out: "points"),
    such as ``{"baloot": "match"}``."""

    def __init__(self, worlds: Optional[int] = 200, endgame_tricks: int = 3, endgame_worlds: Optional[int] = 20,
                 seed: Optional[int] = 0, name: str = "montecarlo", bid_weight: float = 1.0,
                 time_budget: Optional[float] = None, objective: Union[str, Mapping[str, str]] = "points",
                 play_weight: float = 1.0) -> None:
        self.worlds, self.time_budget = _check_budget(worlds, time_budget)
        self.endgame_worlds, _ = _check_budget(endgame_worlds, time_budget, "endgame_worlds")
        self.endgame_tricks = _check_int("endgame_tricks", endgame_tricks, 0, 8)
        self.bid_weight = _check_weight(bid_weight)
        self.play_weight = _check_weight(play_weight, "play_weight")
        self.objectives = _check_objectives(objective)
        self.seed = seed_to_int(seed)
        self.name = name
        self._solver: Optional[_core.DoubleDummy] = None

    def act(self, state: State) -> int:
        legal = _legal(state)
        if len(legal) == 1:
            return legal[0]
        seed, objective, equity = _decision(self, state)
        if state.phase == "play" and 8 - state.tricks_played <= self.endgame_tricks:
            if self._solver is None:
                self._solver = _core.DoubleDummy(16)
            mask, sums, _ = self._solver.pimc(state, self.endgame_worlds, seed, self.bid_weight, self.time_budget,
                                              objective == "score", self.play_weight, equity)
            return _best({c: sums[c] for c in legal})
        return _best(_core.mc_evaluate(state, self.worlds, GREEDY, seed, self.bid_weight, self.time_budget,
                                       self.play_weight, equity))


class PIMCBot:
    """Perfect-information Monte Carlo: in the play, each legal card's
    double-dummy value averaged over ``worlds`` deals sampled from the seat's
    information set; bids and doubling by flat Monte Carlo. Early in the hand
    a double-dummy solve can take a second or more.

    Budget per decision: ``worlds`` deals for a card (None: no limit) or
    ``bid_worlds`` for a bid, and/or ``time_budget`` seconds (None: no
    limit), the first reached stopping the search after at least one deal.
    With world budgets alone the bot is deterministic under its seed.
    ``objective`` as for :class:`MonteCarloBot`."""

    def __init__(self, worlds: Optional[int] = 20, bid_worlds: int = 300, seed: Optional[int] = 0,
                 name: str = "pimc", time_budget: Optional[float] = None,
                 objective: Union[str, Mapping[str, str]] = "points") -> None:
        self.worlds, self.time_budget = _check_budget(worlds, time_budget)
        self.objectives = _check_objectives(objective)
        self.bid_worlds = _check_int("bid_worlds", bid_worlds, 1, 1 << 30)
        self.seed, self.name = seed_to_int(seed), name
        self._solver = _core.DoubleDummy(18)

    def act(self, state: State) -> int:
        legal = _legal(state)
        if len(legal) == 1:
            return legal[0]
        seed, objective, equity = _decision(self, state)
        if state.phase == "play":
            _, sums, _ = self._solver.pimc(state, self.worlds, seed, 1.0, self.time_budget, objective == "score",
                                           1.0, equity)
            return _best({c: sums[c] for c in legal})
        return _best(_core.mc_evaluate(state, self.bid_worlds, GREEDY, seed, 1.0, self.time_budget, 1.0, equity))


class ISMCTSBot:
    """Information-set MCTS (native, greedy playouts) in the play; bids and
    doubling by flat Monte Carlo over ``bid_worlds`` worlds. Budget per
    decision: iterations (worlds for bids) and/or ``time_budget`` seconds."""

    def __init__(self, iterations: Optional[int] = 20_000, time_budget: Optional[float] = None,
                 bid_worlds: int = 300, seed: Optional[int] = 0, name: str = "ismcts") -> None:
        budget = _check_budget(iterations, time_budget, "iterations", 1 << 62)
        self.bid_worlds = _check_int("bid_worlds", bid_worlds, 1, 1 << 30)
        self._search = _core.ISMCTS(iterations=budget[0], time_budget=budget[1])
        self.seed, self.name = seed_to_int(seed), name

    def act(self, state: State) -> int:
        legal = _legal(state)
        if len(legal) == 1:
            return legal[0]
        seed = _public_seed(self.seed, state)
        if state.phase in ("play", "declare"):
            return self._search.search(state, seed)["action"]
        return _best(_core.mc_evaluate(state, self.bid_worlds, GREEDY, seed, 1.0, self._search.time_budget))


class CheatBot:
    """Plays double-dummy with every card visible; bids on the real deal."""

    name = "cheat"

    def __init__(self, seed: Optional[int] = 0, worlds: int = 1) -> None:
        self.seed = seed_to_int(seed)
        self._solver = _core.DoubleDummy(18)

    def act(self, state: State) -> int:
        legal = _legal(state)
        if len(legal) == 1:
            return legal[0]
        if state.phase == "play":
            return _best({int(c): v for c, v in self._solver.moves(state).items()})
        # the real deal, played out greedily after each candidate
        values = {}
        for a in legal:
            t = state.clone()
            t.apply_action(a)
            while not t.is_terminal():
                t.apply_action(_core.policy_action(t, GREEDY, 0))
            team = state.to_act & 1
            hs = t.hand_score
            values[a] = hs[team] - hs[team ^ 1]
        return _best(values)


_FACTORIES: Dict[str, Callable[[Optional[int]], Bot]] = {
    "random": lambda seed: RandomBot(seed),
    "easy": lambda seed: GreedyBot(seed),
    "medium": lambda seed: MonteCarloBot(300, 3, 20, seed, "medium"),
    "hard": lambda seed: MonteCarloBot(3000, 7, 40, seed, "hard", bid_weight=0.0, play_weight=0.0,
                                       objective={"baloot": "match"}),
    "cheat": lambda seed: CheatBot(seed),
    "pimc": lambda seed: PIMCBot(20, 300, seed),
    "ismcts": lambda seed: ISMCTSBot(20_000, None, 300, seed),
}
#: every bot make_bot knows: the levels, and the two search players on their own
BOTS = LEVELS + ("pimc", "ismcts")


def make_bot(name, seed: Optional[int] = 0) -> Bot:
    """A bot by name: the levels random, easy, medium, hard, cheat, the
    search players pimc and ismcts, or your own: a factory (a bot class, or
    any callable; it gets the seed as ``seed=`` if it has such a parameter,
    else as its one argument if it takes one) or ``"FILE.py:NAME"`` /
    ``"module:NAME"`` naming one. A bot is any object with an
    ``act(state) -> action`` method."""
    if isinstance(name, str) and name in _FACTORIES:
        return _FACTORIES[name](seed)
    if is_spec(name):
        factory = load(name, OptionError, "bot factory")
    elif callable(name) and not isinstance(name, str):
        factory = name
    else:
        raise OptionError(f"unknown bot {name!r}; bots are {', '.join(BOTS)}, or your own as FILE.py:NAME "
                          "(NAME a class or function making it from a seed)")
    label = bot_name(name)
    if not callable(factory):
        raise OptionError(f"{label} is of type {type(factory).__name__}, not a bot factory (a class or "
                          "function making a bot from a seed)")
    try:
        bot = _call_factory(factory, seed)
    except Exception as e:  # the user's code: report which factory failed
        raise OptionError(f"bot factory {label} failed: {type(e).__name__}: {e}") from e
    if not callable(getattr(bot, "act", None)):
        raise OptionError(f"bot factory {label} returned a value of type {type(bot).__name__}, not a bot: "
                          "a bot has an act(state) -> action method")
    return bot


def bot_name(name) -> str:
    """A short name for a bot given as make_bot takes it."""
    if is_spec(name):
        return spec_attr(name)
    if isinstance(name, str):
        return name
    return getattr(name, "__name__", type(name).__name__)


def _call_factory(factory, seed):
    """``factory(seed=seed)`` when it has a ``seed`` parameter (every bot
    class here has), else ``factory(seed)``, else ``factory()``."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):     # no signature to read (a builtin): give it the seed
        return factory(seed)
    if "seed" in sig.parameters:
        return factory(seed=seed)
    try:
        sig.bind(seed)
    except TypeError:                   # no room for a seed
        return factory()
    return factory(seed)
