"""Cards and card sets.

A card is an int 0..31: ``suit * 8 + rank`` with ranks in sequence order
``7 8 9 T J Q K A`` and suits ``S H D C``. A hand is a 32-bit mask with one
bit per card; :class:`CardSet` wraps such a mask like python-chess's
``SquareSet`` wraps a bitboard.
"""
from __future__ import annotations

import operator
from typing import Iterable, Iterator, Union

import numpy as np

from .errors import CardError

__all__ = [
    "SUITS", "RANKS", "Card", "CardSet", "CARDS", "parse_card", "card_name",
    "SPANISH_RANKS", "SPANISH_SUITS", "SUIT_SYMBOLS", "ARABIC_SUITS",
]

SUITS = "SHDC"
RANKS = "789TJQKA"
SUIT_SYMBOLS = "♠♥♦♣"
#: Spanish-style numbers used by Moroccan Balout players (RULES.md section 1)
SPANISH_RANKS = {"7": "4", "8": "5", "9": "6", "T": "7", "J": "10", "Q": "11", "K": "12", "A": "1"}
SPANISH_SUITS = {"S": "espadas", "H": "copas", "D": "oros", "C": "bastos"}
ARABIC_SUITS = {"S": "سيوف", "H": "كؤوس", "D": "ذهب", "C": "عصي"}

_SPANISH_TO_RANK = {v: k for k, v in SPANISH_RANKS.items()}
_SUIT_WORDS = {
    **{s: s for s in SUITS},
    **{sym: s for sym, s in zip(SUIT_SYMBOLS, SUITS)},
    **{word: s for s, word in SPANISH_SUITS.items()},
    **{word: s for s, word in ARABIC_SUITS.items()},
}

CardLike = Union["Card", int, str]
#: bools, Python's and numpy's, are never numbers here: numpy before 2.x
#: still gives np.True_ an index of 1, so it would pass for a card or a seat
BOOLS = (bool, np.bool_)
_BY_NAME: dict = {}   # canonical name -> Card, filled once the cards exist


def _bad_card(text: object, why: str) -> ValueError:
    return CardError(
        f"malformed card {text!r}: {why}; cards are a rank (7 8 9 T J Q K A, or 10) "
        f"followed by a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'TS' or 'JH'"
    )


def parse_card(text: str, *, spanish: bool = False) -> "Card":
    """Parse ``'TS'``, ``'10s'``, ``'J♥'``; with ``spanish=True`` the rank is a
    Spanish label (``'7S'`` is the canonical ten, ``'1 oros'`` the ace of D)."""
    if not spanish and type(text) is str:
        card = _BY_NAME.get(text)   # a canonical name, as records have them: no parsing
        if card is not None:
            return card
    if not isinstance(text, str):
        raise CardError(f"a card must be given as a string or a card id, not {type(text).__name__}")
    t = text.strip()
    if spanish:
        t = t.replace(" de ", " ")
        for word in sorted(_SUIT_WORDS, key=len, reverse=True):
            if t.lower().endswith(word.lower()) and len(t) > len(word):
                rank = t[: len(t) - len(word)].strip()
                if rank in _SPANISH_TO_RANK:
                    return Card(SUITS.index(_SUIT_WORDS[word]) * 8 + RANKS.index(_SPANISH_TO_RANK[rank]))
        raise _bad_card(text, "not a Spanish label (ranks 1 4 5 6 7 10 11 12)")
    if len(t) < 2:
        raise _bad_card(text, "too short")
    rank, mark = t[:-1].upper(), t[-1]
    suit = _SUIT_WORDS.get(mark.upper(), _SUIT_WORDS.get(mark))
    if rank == "10":
        rank = "T"
    if suit is None or len(rank) != 1 or rank not in RANKS:
        raise _bad_card(text, "unknown rank or suit")
    return Card(SUITS.index(suit) * 8 + RANKS.index(rank))


def card_name(card: int) -> str:
    """Canonical two-character name of a card id."""
    return RANKS[card & 7] + SUITS[card >> 3]


class Card(int):
    """One of the 32 cards; an ``int`` so it can index arrays and masks."""

    __slots__ = ()

    def __new__(cls, value: CardLike) -> "Card":
        if isinstance(value, Card):
            return value
        if isinstance(value, str):
            return parse_card(value)
        if isinstance(value, BOOLS):
            raise _bad_card(value, "a bool is not a card")
        try:
            v = operator.index(value)
        except TypeError:
            raise CardError(f"a card must be a string or an int 0..31, not {type(value).__name__}") from None
        if not 0 <= v < 32:
            raise CardError(f"card id {v} out of range: card ids are 0..31")
        return _CARDS[v] if _CARDS else int.__new__(cls, v)

    @property
    def suit(self) -> str:
        return SUITS[self >> 3]

    @property
    def rank(self) -> str:
        return RANKS[self & 7]

    @property
    def suit_index(self) -> int:
        return self >> 3

    @property
    def rank_index(self) -> int:
        """Index in sequence order 7 8 9 T J Q K A (0..7)."""
        return self & 7

    @property
    def mask(self) -> int:
        return 1 << self

    def label(self, style: str = "canonical") -> str:
        """``'canonical'`` (TS), ``'spanish'`` (7 espadas), ``'symbol'`` (T♠),
        ``'arabic'`` (عشرة سبيت, the Baloot names)."""
        if style == "canonical":
            return card_name(self)
        if style == "spanish":
            return f"{SPANISH_RANKS[self.rank]} {SPANISH_SUITS[self.suit]}"
        if style == "symbol":
            return self.rank + SUIT_SYMBOLS[self >> 3]
        if style == "arabic":
            from .names import card_label_ar

            return card_label_ar(self)
        raise ValueError(f"unknown label style {style!r}; styles are 'canonical', 'spanish', 'symbol', 'arabic'")

    def points(self, trump: bool) -> int:
        """Card points of this card, as a trump or as a plain card."""
        return _POINTS[bool(trump)][self & 7]

    def __str__(self) -> str:
        return card_name(self)

    def __repr__(self) -> str:
        return f"Card('{card_name(self)}')"

    def __reduce__(self):
        return (Card, (int(self),))


_POINTS = ((0, 0, 0, 10, 2, 3, 4, 11), (0, 0, 14, 10, 20, 3, 4, 11))
_CARDS: tuple = ()
_CARDS = tuple(Card(i) for i in range(32))
CARDS = _CARDS
_BY_NAME = {card_name(c): c for c in _CARDS}


def _mask_of(cards) -> int:
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, str):
        return _mask_of(cards.split())
    if isinstance(cards, BOOLS):
        raise CardError("a bool is not a card set")
    try:
        mask = operator.index(cards)  # int, numpy integers
    except TypeError:
        pass
    else:
        if not 0 <= mask < 1 << 32:
            raise CardError(f"card mask {mask:#x} out of range: masks are 32-bit (0 to 0xffffffff)")
        return mask
    try:
        items = iter(cards)
    except TypeError:
        raise CardError(f"a card set is a 32-bit mask, a string such as 'AS TH' or cards, "
                        f"not {type(cards).__name__}") from None
    mask = 0
    for c in items:
        mask |= 1 << Card(c)
    return mask


class CardSet:
    """A set of cards backed by a 32-bit mask.

    >>> hand = CardSet("JH 9H AS")
    >>> len(hand), Card("JH") in hand, int(hand)
    (3, True, ...)
    """

    __slots__ = ("mask",)

    def __init__(self, cards: Union[int, str, Iterable[CardLike], "CardSet"] = 0) -> None:
        self.mask = _mask_of(cards)

    @classmethod
    def from_mask(cls, mask: int) -> "CardSet":
        s = cls.__new__(cls)
        s.mask = mask
        return s

    def __iter__(self) -> Iterator[Card]:
        m = self.mask
        while m:
            low = m & -m
            yield _CARDS[low.bit_length() - 1]
            m ^= low

    def __len__(self) -> int:
        return bin(self.mask).count("1")

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __contains__(self, card: object) -> bool:
        try:
            return bool(self.mask >> Card(card) & 1)  # type: ignore[arg-type]  # anything: not a card is not in
        except (ValueError, TypeError):
            return False

    def __int__(self) -> int:
        return self.mask

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        if isinstance(other, int) and not isinstance(other, bool):
            return self.mask == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def _other(self, other) -> int:
        return _mask_of(other)

    def __or__(self, other):
        return CardSet.from_mask(self.mask | self._other(other))

    def __and__(self, other):
        return CardSet.from_mask(self.mask & self._other(other))

    def __sub__(self, other):
        return CardSet.from_mask(self.mask & ~self._other(other))

    def __xor__(self, other):
        return CardSet.from_mask(self.mask ^ self._other(other))

    __ror__, __rand__, __rxor__ = __or__, __and__, __xor__

    def __invert__(self):
        return CardSet.from_mask(~self.mask & 0xFFFFFFFF)

    def __le__(self, other) -> bool:
        return self.mask & ~self._other(other) == 0

    def __ge__(self, other) -> bool:
        return self._other(other) & ~self.mask == 0

    def issubset(self, other) -> bool:
        return self <= other

    def add(self, card: CardLike) -> None:
        self.mask |= 1 << Card(card)

    def discard(self, card: CardLike) -> None:
        self.mask &= ~(1 << Card(card))

    def copy(self) -> "CardSet":
        return CardSet.from_mask(self.mask)

    def suit(self, suit: Union[str, int]) -> "CardSet":
        """The cards of one suit (``'H'`` or 1)."""
        s = SUITS.index(suit) if isinstance(suit, str) else suit
        if not 0 <= s < 4:
            raise ValueError(f"suit {suit!r} unknown; suits are S H D C")
        return CardSet.from_mask(self.mask & (0xFF << (8 * s)))

    def labels(self, style: str = "canonical") -> list:
        return [c.label(style) for c in self]

    def __str__(self) -> str:
        return " ".join(card_name(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet('{self}')"


for _c in _CARDS:
    globals()[card_name(_c)] = _c
__all__ += [card_name(c) for c in _CARDS]
