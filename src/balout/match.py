"""A match: hands in order, scores and the litige pot carried across them."""
from __future__ import annotations

from typing import List, Mapping, Optional, Sequence

from . import rules as _rules
from ._core import DeckStream
from .errors import BaloutError, MatchOverError
from .state import State, _check_int, seed_to_int

__all__ = ["Match"]


class Match:
    """Hands played to the target.

    >>> m = Match("balout", seed=1)
    >>> s = m.new_hand()            # dealt by m.next_dealer, with the match context
    >>> ...                          # play it: s.apply_action(...)
    >>> m.add_hand(s)                # scores, pot and dealer move on
    """

    def __init__(self, variant: str = "balout", *, options: Optional[Mapping] = None,
                 dealer: int = 0, seed=None, score: Sequence[int] = (0, 0), litige_pot: int = 0) -> None:
        self.variant, self.options, _ = _rules.resolve(variant, options)
        self.next_dealer = _check_int("dealer", dealer, 0, 3)
        try:
            s0, s1 = score
        except (TypeError, ValueError):
            raise BaloutError("score must be a pair of integers") from None
        self.score = [_check_int("score[0]", s0, 0, 1 << 30), _check_int("score[1]", s1, 0, 1 << 30)]
        self.litige_pot = _check_int("litige_pot", litige_pot, 0, 1 << 30)
        self.hands: List[State] = []
        self.winner: Optional[int] = None
        self._decks = DeckStream(seed_to_int(seed))

    @property
    def target(self) -> int:
        return self.options["target"]

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def new_hand(self, deck=None, dealer: Optional[int] = None) -> State:
        """The next hand, dealt from ``deck`` or from the match's seeded stream."""
        if self.is_over:
            raise MatchOverError(f"the match is over: team {self.winner} won {self.score[0]}-{self.score[1]}")
        if dealer is None:
            dealer = self.next_dealer
        if deck is None:
            deck = self._decks.next_deck()
        return State(self.variant, deck=deck, dealer=dealer, options=self.options,
                     match_score=self.score, litige_pot=self.litige_pot)

    def add_hand(self, state: State) -> dict:
        """Count a finished hand; returns its replay output (RULES.md section 8)."""
        if not isinstance(state, State):
            raise BaloutError(f"add_hand takes a State, not {type(state).__name__}")
        if self.is_over:
            raise MatchOverError(f"the match is over: team {self.winner} won")
        if not state.is_terminal():
            raise BaloutError(f"the hand is not finished (phase {state.phase!r})")
        if state.variant != self.variant or dict(state.options) != dict(self.options):
            raise BaloutError("the hand was played under other rules than this match")
        if list(state.match_before) != self.score or state.pot_before != self.litige_pot:
            raise BaloutError("the hand was dealt with another match score or litige pot; "
                              "use match.new_hand() for the next hand")
        self.score = list(state.match_score)
        self.litige_pot = state.litige_pot
        self.winner = state.match_winner
        self.next_dealer = (state.dealer + 1) & 3
        self.hands.append(state)
        return state.summary()

    def records(self) -> List[dict]:
        """The hands played so far as hand records, in order."""
        return [h.to_record() for h in self.hands]

    def __repr__(self) -> str:
        status = f"won by team {self.winner}" if self.is_over else f"next dealer {self.next_dealer}"
        return (f"<Match {self.variant} {self.score[0]}-{self.score[1]} pot={self.litige_pot} "
                f"hands={len(self.hands)} {status}>")
