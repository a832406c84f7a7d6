"""Exceptions. Every bad input ends in one of these, never in a crash."""
from __future__ import annotations

from typing import Optional, Sequence


class BaloutError(Exception):
    """Base class of every balout error."""


class CardError(BaloutError, ValueError):
    """A malformed card or card set."""


class OptionError(BaloutError, ValueError):
    """An unknown variant, option name or option value."""


class ActionTypeError(BaloutError, TypeError):
    """An action of a type that is not an action at all."""


class MatchOverError(BaloutError):
    """A hand asked of a match that has already been won."""


class IllegalActionError(BaloutError, ValueError):
    """An action that is malformed or not legal in the current state.

    Attributes: ``action`` (as given), ``legal`` (sorted action names),
    ``kind`` (e.g. 'card not in hand'), ``reason``, ``seat``, and ``place``
    (e.g. 'plays[17]') when raised while replaying a record.
    """

    def __init__(self, action, legal: Sequence[str], kind: str, reason: str,
                 seat: int = -1, place: Optional[str] = None) -> None:
        self.action = action
        self.legal = list(legal)
        self.kind = kind
        self.reason = reason
        self.seat = seat
        self.place = place
        super().__init__(self._message())

    def _message(self) -> str:
        where = f"{self.place}: " if self.place else ""
        legal = ", ".join(self.legal) if self.legal else "nothing"
        return f"{where}{self.action!r} is illegal ({self.kind}): {self.reason}; legal: {legal}"

    def __reduce__(self):   # picklable (to and from worker processes) with its attributes
        return IllegalActionError, (self.action, self.legal, self.kind, self.reason, self.seat, self.place)

    def at(self, place: str) -> "IllegalActionError":
        """The same error, located at a record place such as 'plays[17]'."""
        return IllegalActionError(self.action, self.legal, self.kind, self.reason, self.seat, place)

    def to_dict(self) -> dict:
        return {"place": self.place, "action": self.action, "legal": self.legal,
                "type": self.kind, "reason": self.reason}


class BotError(BaloutError):
    """A bot that chose an action the rules do not allow."""


class RecordError(BaloutError, ValueError):
    """A hand record that is not well formed (RULES.md section 8)."""

    def __init__(self, message: str, place: Optional[str] = None, kind: str = "malformed record",
                 action=None, legal: Sequence[str] = ()) -> None:
        self.place = place
        self.kind = kind
        self.reason = message
        self.action = action
        self.legal = list(legal)
        super().__init__(f"{place}: {message}" if place else message)

    def __reduce__(self):
        return RecordError, (self.reason, self.place, self.kind, self.action, self.legal)

    def to_dict(self) -> dict:
        return {"place": self.place, "action": self.action, "legal": self.legal,
                "type": self.kind, "reason": self.reason}


def legal_names(state) -> list:
    from .actions import ACTION_NAMES

    return sorted(ACTION_NAMES[a] for a in state.legal_actions())


def unknown_action(state, action) -> IllegalActionError:
    """The error for an integer that is no action id at all."""
    from .actions import NUM_ACTIONS

    return IllegalActionError(action, legal_names(state), "unknown action",
                              f"action ids are 0..{NUM_ACTIONS - 1}", state.to_act)


def illegal_action(state, action, a: int) -> IllegalActionError:
    """The error for an action id that the core refused (state unchanged)."""
    from .actions import ACTION_NAMES, NUM_ACTIONS
    from .cards import card_name

    seat = state.to_act
    legal = legal_names(state)
    known = 0 <= a < NUM_ACTIONS
    name = action if isinstance(action, str) else (ACTION_NAMES[a] if known else action)
    if state.is_terminal():
        kind, reason = "hand over", "the hand is over: no action is legal"
    elif not known:
        return unknown_action(state, action)
    elif state.phase == "play":
        if a >= 32:
            kind, reason = "not a card", f"seat {seat} must play a card"
        elif not state.hand_masks[seat] >> a & 1:
            kind, reason = "card not in hand", f"{card_name(a)} is not in the hand of seat {seat}"
        else:
            kind, reason = "card in hand but illegal", f"{card_name(a)} may not be played here"
    elif state.phase == "auction":
        kind, reason = "illegal bid", "not a legal bid here"
    elif state.phase == "doubling":
        kind, reason = "illegal doubling", "not a legal doubling decision here"
    else:
        kind, reason = "illegal declaration decision", f"seat {seat} must say 'declare' or 'pass'"
    return IllegalActionError(name, legal, kind, reason, seat)


def illegal_text(state, text: str) -> IllegalActionError:
    """The error for a string that names no action at all."""
    seat = state.to_act
    legal = legal_names(state)
    if state.is_terminal():
        return IllegalActionError(text, legal, "hand over", "the hand is over: no action is legal", seat)
    if state.phase == "play":
        return IllegalActionError(text, legal, "malformed card", "malformed card", seat)
    if state.phase == "auction":
        return IllegalActionError(text, legal, "malformed bid", "not a legal bid here", seat)
    return IllegalActionError(text, legal, "malformed action", "not a legal action here", seat)
