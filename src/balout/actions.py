"""Action ids and their names.

Ids 0..31 play a card; 32.. are decisions. Names are those of the hand
records (RULES.md section 8): ``pass``, ``take``, ``take:H``, ``hokm``,
``hokm:H``, ``sun``, ``ashkal``, ``double``, ``three``, ``four``, ``gahwa``,
and ``declare`` (only with the option ``declarations='choice'``).
"""
from __future__ import annotations

import operator

from .cards import BOOLS, SUITS, card_name, parse_card
from .errors import ActionTypeError, illegal_text, legal_names

PASS = 32
TAKE = 33
TAKE_SUIT = 34  # + suit index, round 2 of balout / belote
HOKM = 38
HOKM_SUIT = 39  # + suit index, round 2 of baloot
SUN = 43
ASHKAL = 44
DOUBLE = 45
THREE = 46
FOUR = 47
GAHWA = 48
DECLARE = 49
NUM_ACTIONS = 50

_DECISIONS = {
    PASS: "pass", TAKE: "take", HOKM: "hokm", SUN: "sun", ASHKAL: "ashkal",
    DOUBLE: "double", THREE: "three", FOUR: "four", GAHWA: "gahwa", DECLARE: "declare",
}
for _i, _s in enumerate(SUITS):
    _DECISIONS[TAKE_SUIT + _i] = "take:" + _s
    _DECISIONS[HOKM_SUIT + _i] = "hokm:" + _s

ACTION_NAMES = tuple(card_name(a) if a < 32 else _DECISIONS[a] for a in range(NUM_ACTIONS))
_BY_NAME = {name: a for a, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    """Record name of an action id ('TS', 'take:H', 'pass', ...)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} out of range: ids are 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def parse_action(text: str) -> int:
    """Action id of a record name. Raises ValueError if the text names nothing."""
    a = _BY_NAME.get(text)
    if a is not None:
        return a
    return int(parse_card(text))  # raises CardError (a ValueError) if not a card


def is_card_text(text: str) -> bool:
    try:
        parse_card(text)
    except ValueError:
        return False
    return True


def to_action(state, action) -> int:
    """Slow path of HandState.apply_action: anything but a plain int.

    Returns an action id, or -1 for an integer out of range (the caller
    reports it as an unknown action)."""
    if isinstance(action, str):
        try:
            return parse_action(action)
        except ValueError:
            raise illegal_text(state, action) from None
    if not isinstance(action, BOOLS) and action is not None:
        try:
            a = operator.index(action)
        except TypeError:
            pass
        else:
            return a if 0 <= a < NUM_ACTIONS else -1
    what = repr(action) if isinstance(action, (*BOOLS, float, type(None))) else f"a {type(action).__name__}"
    raise ActionTypeError(
        f"{what} is not an action: an action is an int id (0..{NUM_ACTIONS - 1}), a Card or a "
        f"string such as 'TS' or 'take:H'; legal now: {', '.join(legal_names(state)) or 'nothing'}"
    )
