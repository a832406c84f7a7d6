"""balout: exact, fast rules core for Moroccan Balout, café Belote and Gulf Baloot.

>>> import balout
>>> s = balout.State("balout", seed=1)
>>> s.phase, s.to_act, s.legal_action_strings()
('auction', 1, ['pass', 'take'])
"""
__version__ = "0.1.0"

from .cards import CARDS, Card, CardSet, parse_card
from .errors import (ActionTypeError, BaloutError, BotError, CardError, IllegalActionError, MatchOverError,
                     OptionError, RecordError)
from .rules import OPTIONS, VARIANTS, defaults
from .state import Contract, State, View
from .match import Match
from .simulate import simulate, simulate_matches
from . import actions, records

__all__ = [
    "Card", "CardSet", "CARDS", "parse_card", "State", "Contract", "View", "Match",
    "VARIANTS", "OPTIONS", "defaults", "actions", "records", "simulate", "simulate_matches",
    "BaloutError", "CardError", "OptionError", "IllegalActionError", "ActionTypeError",
    "RecordError", "MatchOverError", "BotError",
]
