"""Cards and card sets (RULES.md section 1)."""
import numpy as np
import pytest

from balout import CARDS, Card, CardError, CardSet, parse_card
from balout.cards import RANKS, SUITS, card_name

# --------------------------------------------------------------- parsing

ALL_NAMES = [r + s for s in "SHDC" for r in "789TJQKA"]


def test_card_ids_are_suit_times_8_plus_rank():
    assert int(Card("7S")) == 0
    assert int(Card("AS")) == 7
    assert int(Card("7H")) == 8
    assert int(Card("JH")) == 12
    assert int(Card("TD")) == 19
    assert int(Card("AC")) == 31
    assert [card_name(i) for i in range(32)] == ALL_NAMES


@pytest.mark.parametrize("name", ALL_NAMES)
def test_parse_canonical_round_trip(name):
    c = parse_card(name)
    assert str(c) == name
    assert c.label() == name
    assert Card(name) == c
    assert Card(int(c)) == c


@pytest.mark.parametrize("text,expected", [
    ("10S", "TS"), ("10h", "TH"), ("10D", "TD"), ("10c", "TC"),
    ("ts", "TS"), ("jh", "JH"), ("qd", "QD"), ("ac", "AC"), ("7s", "7S"), ("Kc", "KC"),
    ("J♥", "JH"), ("T♠", "TS"), ("A♦", "AD"), ("9♣", "9C"), ("10♠", "TS"), ("q♦", "QD"),
    (" AS ", "AS"),
])
def test_parse_variants(text, expected):
    assert card_name(parse_card(text)) == expected
    assert card_name(Card(text)) == expected


SPANISH = [  # canonical rank -> Spanish label (section 1 table)
    ("7", "4"), ("8", "5"), ("9", "6"), ("T", "7"), ("J", "10"), ("Q", "11"), ("K", "12"), ("A", "1"),
]
SPANISH_SUIT = {"S": "espadas", "H": "copas", "D": "oros", "C": "bastos"}


@pytest.mark.parametrize("rank,label", SPANISH)
@pytest.mark.parametrize("suit", "SHDC")
def test_spanish_labels(rank, label, suit):
    c = Card(rank + suit)
    assert c.label("spanish") == f"{label} {SPANISH_SUIT[suit]}"
    assert parse_card(f"{label} {SPANISH_SUIT[suit]}", spanish=True) == c
    assert parse_card(f"{label}{suit}", spanish=True) == c


def test_spanish_seven_is_canonical_ten():
    assert card_name(parse_card("7S", spanish=True)) == "TS"
    assert card_name(parse_card("7S")) == "7S"
    assert card_name(parse_card("1 oros", spanish=True)) == "AD"
    assert card_name(parse_card("10 copas", spanish=True)) == "JH"
    assert card_name(parse_card("11 bastos", spanish=True)) == "QC"
    assert card_name(parse_card("12 de copas", spanish=True)) == "KH"


def test_spanish_arabic_suit_words():
    assert card_name(parse_card("1 ذهب", spanish=True)) == "AD"
    assert card_name(parse_card("10 سيوف", spanish=True)) == "JS"
    assert card_name(parse_card("12 كؤوس", spanish=True)) == "KH"
    assert card_name(parse_card("4 عصي", spanish=True)) == "7C"


@pytest.mark.parametrize("bad", ["8 espadas", "9 copas", "3 oros", "2 bastos", "13 copas", "TS", "JH", ""])
def test_spanish_bad_labels(bad):
    with pytest.raises(CardError):
        parse_card(bad, spanish=True)


def test_symbol_label():
    assert Card("TS").label("symbol") == "T♠"
    assert Card("JH").label("symbol") == "J♥"
    with pytest.raises(ValueError):
        Card("TS").label("klingon")


@pytest.mark.parametrize("bad", ["", "X", "1S", "11S", "ZS", "TX", "T", "S", "JJ", "10", "7SS", "AS AH", "10 S x"])
def test_bad_card_strings(bad):
    with pytest.raises(CardError):
        parse_card(bad)
    with pytest.raises(CardError):
        Card(bad)


@pytest.mark.parametrize("bad", [-1, 32, 100, 1 << 40, True, False, 1.5, None, [1]])
def test_bad_card_values(bad):
    with pytest.raises(CardError):
        Card(bad)


def test_card_error_is_value_error():
    assert issubclass(CardError, ValueError)


def test_card_properties():
    c = Card("QD")
    assert (c.suit, c.rank, c.suit_index, c.rank_index, c.mask) == ("D", "Q", 2, 5, 1 << 21)
    assert repr(c) == "Card('QD')"
    assert isinstance(c, int)
    assert CARDS[21] == c and len(CARDS) == 32


# --------------------------------------------------------------- card sets

def test_cardset_parse_len_in_int():
    s = CardSet("JH 9H AS")
    assert len(s) == 3
    assert "JH" in s and Card("9H") in s and 7 in s
    assert "TH" not in s and "garbage" not in s and 99 not in s
    assert int(s) == (1 << 12) | (1 << 10) | (1 << 7)
    assert s == CardSet(["AS", "9H", "JH"]) == CardSet(int(s)) == int(s)
    assert CardSet("9h j♥ as") == s and CardSet("10h") == CardSet("TH")


def test_cardset_iteration_order_is_by_id():
    s = CardSet("AC 7S JH TD 8S QH")
    assert [str(c) for c in s] == ["7S", "8S", "JH", "QH", "TD", "AC"]
    assert str(s) == "7S 8S JH QH TD AC"
    assert all(isinstance(c, Card) for c in s)
    assert [str(c) for c in CardSet(0xFFFFFFFF)] == ALL_NAMES


def test_cardset_operations():
    a = CardSet("7S 8S 9S JH")
    b = CardSet("9S JH AC")
    assert a | b == CardSet("7S 8S 9S JH AC")
    assert a & b == CardSet("9S JH")
    assert a - b == CardSet("7S 8S")
    assert a ^ b == CardSet("7S 8S AC")
    assert len(~a) == 28 and "7S" not in ~a and "TS" in ~a
    assert CardSet("9S") <= a and not (b <= a) and a >= "7S 9S"
    assert CardSet("9S").issubset(a)
    assert a | "AD" == CardSet("7S 8S 9S JH AD")
    c = a.copy()
    c.add("AD")
    c.discard("7S")
    assert c == CardSet("8S 9S JH AD") and a == CardSet("7S 8S 9S JH")
    assert a.suit("S") == CardSet("7S 8S 9S") and a.suit(1) == CardSet("JH")
    assert not CardSet() and bool(a)
    assert a.labels("spanish") == ["4 espadas", "5 espadas", "6 espadas", "10 copas"]


def test_cardset_errors():
    with pytest.raises(CardError):
        CardSet("JH XX")
    for bad, words in (((1 << 32), "out of range: masks are 32-bit"), (-1, "out of range"),
                       (True, "a bool is not a card set"), (np.bool_(True), "a bool is not a card set"),
                       (2.5, "a 32-bit mask, a string such as 'AS TH' or cards, not float")):
        with pytest.raises(CardError, match=words):
            CardSet(bad)
    with pytest.raises(ValueError):
        CardSet("JH").suit("X")


def test_cardset_from_numpy_masks():
    """A numpy integer is a mask like an int (hands come back as numpy arrays)."""
    for kind in (np.uint32, np.int64, np.uint64):
        assert CardSet(kind(0b101)) == CardSet("7S 9S")
    assert CardSet(np.uint32(0xFFFFFFFF)) == CardSet(CARDS)


# --------------------------------------------------------------- points and orders

TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


@pytest.mark.parametrize("rank", "789TJQKA")
def test_card_points_tables(rank):
    for suit in "SHDC":
        assert Card(rank + suit).points(True) == TRUMP_POINTS[rank]
        assert Card(rank + suit).points(False) == PLAIN_POINTS[rank]


def test_card_points_sum():
    assert sum(c.points(False) for c in CARDS) == 120
    for trump in "SHDC":
        total = sum(c.points(c.suit == trump) for c in CARDS)
        assert total == 152
        assert total + 10 == 162
    assert sum(c.points(False) for c in CardSet("7S 8S 9S TS JS QS KS AS")) == 30
    assert sum(c.points(True) for c in CardSet("7S 8S 9S TS JS QS KS AS")) == 62


def test_sequence_order_is_rank_index():
    assert RANKS == "789TJQKA" and SUITS == "SHDC"
    assert [Card(r + "H").rank_index for r in "789TJQKA"] == list(range(8))
