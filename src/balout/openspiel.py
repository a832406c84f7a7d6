"""balout's hands as OpenSpiel games, for OpenSpiel's algorithms and bots.

>>> import balout.openspiel                     # doctest: +SKIP
>>> game = pyspiel.load_game("python_belote(declarations=choice)")   # doctest: +SKIP

Importing the module registers the three games (``python_balout``,
``python_belote``, ``python_baloot``), as OpenSpiel's own Python games do;
:func:`register` does it again harmlessly and returns their names.

One game is one hand, with the match score at 0-0 and seat ``dealer``
(a game parameter, default 0) dealing. The deal is 32 chance nodes: each
draws the next card of the deck uniformly from the cards left, so the deck,
and with it every hand, the offer and the stock, is a uniform shuffle; the
players' actions are then balout's action ids (0-31 the cards, 32-49 the
bids, doubling and declaring decisions). Every rule option of the variant is
a game parameter with the variant's default.

Returns are zero-sum, per seat: its team's hand score minus the other
team's. The information state and observation (strings and tensors) are
:meth:`balout.State.information_state_string` / ``_tensor`` and
:meth:`~balout.State.observation_string` / ``_tensor``, seen by one player
(OpenSpiel's default observation type, and its perfect-recall one).
``resample_from_infostate`` is :meth:`balout.State.resample`, so OpenSpiel's
ISMCTS runs on these games.

Bots cross both ways: :class:`OpenSpielBot` makes an OpenSpiel bot a balout
bot (for :func:`balout.arena.arena`), and :func:`as_openspiel_bot` makes a
balout bot (``hard``, say) an OpenSpiel one.

Needs OpenSpiel (``pip install open_spiel``, Python 3.11 or newer).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

try:
    import pyspiel
except ImportError as e:   # pragma: no cover - depends on the environment
    raise ImportError("balout.openspiel needs OpenSpiel: pip install open_spiel (Python 3.11 or newer)") from e

from . import _core
from .actions import NUM_ACTIONS, action_name
from .cards import card_name
from .errors import OptionError
from .rules import VARIANTS, defaults
from .state import OBSERVATION_TENSOR_SIZE, TENSOR_SIZE, State

__all__ = ["register", "GAME_NAMES", "game_of", "OpenSpielBot", "as_openspiel_bot", "HandGame", "BaloutGame",
           "BeloteGame", "BalootGame", "BaloutState"]

GAME_NAMES = {v: f"python_{v}" for v in VARIANTS}
_DECK_SIZE = 32


def _max_utility(variant: str, options) -> int:
    """A bound on a team's hand score, so on the difference of the two.

    Trump games: 162 card points + 100 for a capot (or 250 in their place),
    + 550 in declarations (a team's 16 cards as the carrés of J, 9 and two
    more), + 20 for the belote. Baloot: a gahwa scores the target; else a
    kaboot doubled four times, (44 + 100 in projects) x 4, + 2 for the
    baloot."""
    if variant == "baloot":
        return max(int(options["target"]), (44 + 100) * 4 + 2)
    return 162 + 100 + 550 + 20


def _game_type(variant: str) -> "pyspiel.GameType":
    params = {"dealer": 0, **dict(defaults(variant))}
    return pyspiel.GameType(
        short_name=GAME_NAMES[variant],
        long_name=f"balout {variant}, one hand",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=4,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)


class HandGame(pyspiel.Game):
    """One hand of a balout variant (see the module's docstring); one
    subclass per variant."""

    variant = ""

    def __init__(self, params=None):
        variant = self.variant
        given = dict(params or {})
        dealer = given.pop("dealer", 0)
        if not isinstance(dealer, int) or not 0 <= dealer <= 3:
            raise OptionError(f"dealer must be a seat from 0 to 3, got {dealer!r}")
        options = {**dict(defaults(variant)), **given}
        State(variant, seed=0, options=options)        # the options checked by balout, with its messages
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=_DECK_SIZE,
            num_players=4,
            min_utility=-float(_max_utility(variant, options)),
            max_utility=float(_max_utility(variant, options)),
            utility_sum=0.0,
            max_game_length=_DECK_SIZE + _core.MAX_HAND_ACTIONS)
        super().__init__(_game_type(variant), info, dict(params or {}))
        self.dealer, self.options = dealer, options

    def new_initial_state(self) -> "BaloutState":
        return BaloutState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "BaloutObserver":
        return BaloutObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BaloutState(pyspiel.State):
    """A hand being dealt (chance), then played: ``hand`` is the balout
    :class:`~balout.State` once the deck is complete."""

    def __init__(self, game: HandGame):
        super().__init__(game)
        self.deck: List[int] = []
        self.hand: Optional[State] = None   # None while the deck is being dealt

    @classmethod
    def of(cls, game: HandGame, hand: State) -> "BaloutState":
        """The OpenSpiel state of a balout hand, with its history: the deck
        dealt by chance, then the hand's actions (at the hand's own match
        score, which may be other than the game's 0-0)."""
        s = cls(game)
        for card in hand.deck:
            s.apply_action(card)
        s.hand = hand.initial_state()
        for action in hand.action_history:
            s.apply_action(action)
        return s

    def current_player(self) -> int:
        if self.hand is None:
            return pyspiel.PlayerId.CHANCE
        if self.hand.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.hand.to_act

    def _dealt(self) -> State:
        """The balout hand; an OptionError while the deck is being dealt."""
        if self.hand is None:
            raise OptionError(f"the deck is being dealt ({len(self.deck)} of {_DECK_SIZE} cards): no hand yet")
        return self.hand

    def _legal_actions(self, player) -> list:
        hand = self._dealt()
        return hand.legal_actions() if player == hand.to_act else []

    def chance_outcomes(self) -> list:
        left = sorted(set(range(_DECK_SIZE)) - set(self.deck))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action) -> None:
        if self.hand is None:
            if action in self.deck or not 0 <= action < _DECK_SIZE:
                raise OptionError(f"the deal draws a card not yet dealt, not {action!r}")
            self.deck.append(action)
            if len(self.deck) == _DECK_SIZE:
                game = self.get_game()
                self.hand = State(game.variant, deck=self.deck, dealer=game.dealer, options=game.options)
        else:
            self.hand.apply_action(action)

    def _action_to_string(self, player, action) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.is_terminal()

    def returns(self) -> list:
        if not self.is_terminal():
            return [0.0] * 4
        a, b = self._dealt().hand_score
        return [float(a - b), float(b - a)] * 2

    def resample_from_infostate(self, player_id, probability_sampler) -> "BaloutState":
        """A state ``player_id`` cannot tell from this one (balout's
        :meth:`~balout.State.resample`), seeded from ``probability_sampler``."""
        if self.hand is None:
            raise pyspiel.SpielError("nothing to resample while the cards are being dealt")
        seed = int(probability_sampler() * 2 ** 53)
        return BaloutState.of(self.get_game(), self.hand.resample(player_id, seed))

    def __str__(self) -> str:
        """The deck dealt so far, then every action (the whole state, hidden cards included)."""
        text = "deck " + " ".join(card_name(c) for c in self.deck)
        if self.hand is None:
            return text
        return text + " | " + " ".join(action_name(a) for a in self.hand.action_history)


class BaloutObserver:
    """OpenSpiel's PyObserver for one player: private cards and the public
    history, with perfect recall (the information state) or without (the
    observation)."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("balout observes one player's view: its own cards and the public history "
                             "(private_info=SINGLE_PLAYER, public_info=True)")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(TENSOR_SIZE if self.perfect_recall else OBSERVATION_TENSOR_SIZE, np.float32)
        self.dict: Dict[str, np.ndarray] = {"observation": self.tensor}

    def set_from(self, state: BaloutState, player: int) -> None:
        if state.hand is None:
            self.tensor.fill(0)
        elif self.perfect_recall:
            state.hand.information_state_tensor(player, out=self.tensor)
        else:
            state.hand.observation_tensor(player, out=self.tensor)

    def string_from(self, state: BaloutState, player: int) -> str:
        if state.hand is None:
            return f"seat {player}, dealing ({len(state.deck)} of 32 cards)"
        if self.perfect_recall:
            return state.hand.information_state_string(player)
        return state.hand.observation_string(player)


class BaloutGame(HandGame):
    variant = "balout"


class BeloteGame(HandGame):
    variant = "belote"


class BalootGame(HandGame):
    variant = "baloot"


_GAMES = {"balout": BaloutGame, "belote": BeloteGame, "baloot": BalootGame}


def register() -> Tuple[str, ...]:
    """Register the three variants with OpenSpiel (once; calling again does
    nothing). Returns their names: ``python_balout``, ``python_belote``,
    ``python_baloot``."""
    known = set(pyspiel.registered_names())
    for variant in VARIANTS:
        if GAME_NAMES[variant] not in known:   # once, even if the module is reloaded
            pyspiel.register_game(_game_type(variant), _GAMES[variant])
    return tuple(GAME_NAMES[v] for v in VARIANTS)


def game_of(state: State) -> HandGame:
    """The OpenSpiel game of a balout hand: its variant, options and dealer."""
    register()
    params = {"dealer": state.dealer, **dict(state.options)}
    return pyspiel.load_game(GAME_NAMES[state.variant], params)


class OpenSpielBot:
    """A balout bot (``act(state) -> action``) that asks an OpenSpiel bot:
    ``bot.step`` sees the hand as a state of :func:`game_of`, history and all.

    ``bot``: an OpenSpiel bot, or a function of the game that makes one
    (a bot is made per variant and options met). For the arena, a factory
    of the seed such as ``lambda seed: OpenSpielBot(lambda game:
    ISMCTSBot(game, ...))``."""

    def __init__(self, bot, name: str = "openspiel"):
        self.name = name
        self._bot = bot
        self._bots: Dict[str, Any] = {}   # a factory's bot per game (its string)

    def act(self, state: State) -> int:
        game = game_of(state)
        bot = self._bot
        if not isinstance(bot, pyspiel.Bot):
            key = str(game)
            if key not in self._bots:
                self._bots[key] = bot(game)
            bot = self._bots[key]
        return int(bot.step(BaloutState.of(game, state)))


class _BaloutBot(pyspiel.Bot):
    def __init__(self, bot):
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def step(self, state: BaloutState) -> int:
        return int(self.bot.act(state._dealt().clone()))

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass


def as_openspiel_bot(bot) -> "pyspiel.Bot":
    """An OpenSpiel bot that plays as the balout ``bot`` (a level's name such
    as ``"hard"``, or any object with ``act(state)``)."""
    from .bots import make_bot
    return _BaloutBot(make_bot(bot) if isinstance(bot, str) else bot)


register()
