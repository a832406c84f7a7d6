"""Rules of RULES.md sections 2 (seats, dealing) and 3 (`balout`), and section 6 (errors).

Every expected value below was computed by hand from RULES.md; the
positions are built with tests/helpers.py and played card by card (each
card must be legal, apply_action raises otherwise).

Card points used in the comments: trump J20 9:14 A11 T10 K4 Q3; plain A11
T10 K4 Q3 J2; last trick 10.
"""
import pytest

from balout import IllegalActionError, Match, MatchOverError, State, CardSet
from balout import _core
from balout.cards import card_name
from balout.rules import resolve
from helpers import deck_for, play, state_for

# ------------------------------------------------------------------ deals
# Unless said otherwise: dealer 0, offer JH, seat 1 (d+1) must take, trump
# H, first lead seat 2 (taker + 1).

# 2 cards of each suit per seat; no declarations, no belote (QH s0, KH s2).
LIT = ["9S JS TH QH TD QD TC QC",
       "TS QS JH AH 8D JD 8C JC",
       "AS 7S KH 8H AD KD AC KC",
       "8S KS 9H 7H 7D 9D 7C 9C"]
# litige play: team 0 21+21+21+9+9 = 81; team 1 9 + 37 + 25 + 10 = 81
PLAY_L = ("AS 8S 9S TS  AD 7D TD 8D  AC 7C TC 8C  KD 9D QD JD  KC 9C QC JC  "
          "7S KS JS QS  9H QH JH 8H  AH KH 7H TH")
WIN_L = [2, 2, 2, 2, 2, 3, 1, 1]
# failing play of the same deal: team 1 9 + 37 + 25 = 71, team 0 21*3 + 9 + 9 + 10 = 91
PLAY_F = ("7S KS JS QS  9H QH JH 8H  AH KH 7H TH  TS AS 8S 9S  AD 7D TD 8D  "
          "AC 7C TC 8C  KD 9D QD JD  KC 9C QC JC")
WIN_F = [3, 1, 1, 2, 2, 2, 2, 2]

# LIT with 9S <-> 8S between seats 0 and 3: seat 3 (takers) holds a carré of 9 (150)
LIT9 = ["8S JS TH QH TD QD TC QC", LIT[1], LIT[2], "9S KS 9H 7H 7D 9D 7C 9C"]
PLAY_L9 = PLAY_L.replace("AS 8S 9S TS", "AS 9S 8S TS")
PLAY_F9 = PLAY_F.replace("TS AS 8S 9S", "TS AS 9S 8S")
# LIT with 9S <-> TS between seats 0 and 1: seat 0 (defence) holds a carré of T (100)
LITT = ["TS JS TH QH TD QD TC QC", "9S QS JH AH 8D JD 8C JC", LIT[2], LIT[3]]
PLAY_LT = PLAY_L.replace("AS 8S 9S TS", "AS 8S TS 9S")
PLAY_FT = PLAY_F.replace("TS AS 8S 9S", "9S AS 8S TS")

# made deal: team 1 25 + 23 + 39 + 9 = 96, team 0 21 + 21 + 9 + 5 + 10 = 66
MADE = ["9S JS TH QH TD QD TC QC",
        "TS QS JH AH 8D JD AC JC",
        "AS 7S KH 8H AD KD 8C KC",
        "8S KS 9H 7H 7D 9D 7C 9C"]
PLAY_M = ("AS 8S 9S TS  AD 7D TD 8D  KC 7C TC AC  JH 8H 7H QH  AH KH 9H TH  "
          "9D QD JD KD  7S KS JS QS  9C QC JC 8C")
WIN_M = [2, 2, 1, 1, 3, 2, 3, 0]
MADE9 = ["8S JS TH QH TD QD TC QC", MADE[1], MADE[2], "9S KS 9H 7H 7D 9D 7C 9C"]
PLAY_M9 = PLAY_M.replace("AS 8S 9S TS", "AS 9S 8S TS")
MADET = ["TS JS TH QH TD QD TC QC", "9S QS JH AH 8D JD AC JC", MADE[2], MADE[3]]
PLAY_MT = PLAY_M.replace("AS 8S 9S TS", "AS 8S TS 9S")
# seat 0 (defence) holds KH QH: belote for team 0
MADEB = ["9S JS KH QH TD QD TC QC", MADE[1], "AS 7S TH 8H AD KD 8C KC", MADE[3]]
PLAY_MB = PLAY_M.replace("AH KH 9H TH", "AH TH 9H KH")

# seat 3 (takers) holds KH QH: belote for team 1
BEL = ["9S JS AH 7H TD QD TC QC",
       "TS QS JH 9H 8D JD 8C JC",
       "AS 7S TH 8H AD KD AC KC",
       "8S KS KH QH 7D 9D 7C 9C"]
PLAY_FB = ("7S KS JS QS  KH AH 9H 8H  JH TH QH 7H  TS AS 8S 9S  AD 7D TD 8D  "
           "AC 7C TC 8C  KD 9D QD JD  KC 9C QC JC")          # 91 - 71
PLAY_LB = ("AS 8S 9S TS  AD 7D TD 8D  AC 7C TC 8C  KD 9D QD JD  KC 9C QC JC  "
           "7S KS JS QS  KH AH 9H 8H  JH TH QH 7H")          # 81 - 81

# one suit per seat: seat 1 (taker) has all trumps and wins every trick
SUITS4 = ["7S 8S 9S TS JS QS KS AS", "7H 8H 9H TH JH QH KH AH",
          "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
PLAY_S4 = ("7D 7C 7S 7H  8H 8D 8C 8S  9H 9D 9C 9S  TH TD TC TS  JH JD JC JS  "
           "QH QD QC QS  KH KD KC KS  AH AD AC AS")

# defence wins trick 1 (9D 7C 8D 7D: zero points), the takers the 7 others
CAPZ = ["8D 7H AS KS QS JS TS 9S",
        "JH 9H AH TH KH QH 8H 7D",
        "9D TD JD QD KD AD 8S 7S",
        "7C 8C 9C TC JC QC KC AC"]
PLAY_CAPZ = ("9D 7C 8D 7D  7S 8C 9S 8H  JH 8S 9C 7H  9H TD TC TS  AH JD JC JS  "
             "TH QD QC QS  KH KD KC KS  QH AD AC AS")

# capot; the capot team (0) holds KH QH
CAPB = ["KH QH KS QS JS TS 9S 8S",
        "JH 9H AH TH 8H 7H AS AD",
        "7S KD QD JD TD 9D 8D 7D",
        "7C 8C 9C TC JC QC KC AC"]
PLAY_CAPB = ("7D 7C 8S AD  JH 8D 8C QH  9H 9D 9C KH  AH TD TC 9S  TH JD JC TS  "
             "8H QD QC JS  7H KD KC QS  AS 7S AC KS")

# seat 0 takes H in round 2 (offer 7S) but seat 1 holds every heart
DCAP_BIDS = ["pass"] * 7 + ["take:H"]
PLAY_DCAP = ("7H 7D 7C 7S  8H 8D 8C 8S  9H 9D 9C 9S  TH TD TC TS  JH JD JC JS  "
             "QH QD QC QS  KH KD KC KS  AH AD AC AS")


def full_hand(hands, plays, variant="balout", offer="JH", receiver=1, dealer=0, bids=("take",), **kw):
    s = state_for(hands, offer, receiver, dealer, variant, bids, **kw)
    assert s.phase == "play"
    play(s, plays)
    assert s.phase == "done" and s.is_terminal()
    return s


def rotate(hands, r):
    """The same deal with every seat moved r places on."""
    out = [None] * 4
    for s in range(4):
        out[(s + r) % 4] = hands[s]
    return out


def names(cardset):
    return sorted(card_name(c) for c in cardset)


def legal(s):
    return sorted(str(c) for c in s.legal_cards())


# ------------------------------------------------------------------ section 2: dealing

def canonical_deck():
    return [card_name(i) for i in range(32)]


def test_deal_order_3_then_2_offer_at_21():
    # dealer 2: seats 3, 0, 1, 2 get 3 cards, then 2 cards; position 21 (id 20 = JD) is the offer
    s = State("balout", deck=canonical_deck(), dealer=2)
    assert s.phase == "auction"
    assert str(s.offer) == "JD"
    assert s.to_act == 3
    assert str(s.hand(3)) == "7S 8S 9S JH QH"
    assert str(s.hand(0)) == "TS JS QS KH AH"
    assert str(s.hand(1)) == "KS AS 7H 7D 8D"
    assert str(s.hand(2)) == "8H 9H TH 9D TD"
    assert all(len(h) == 5 for h in s.hands)


def test_deal_rest_after_contract_receiver_gets_offer_plus_2():
    # dealer 2, J offer: seat 3 must take and receives JD + 2 cards, the others 3 each
    s = State("balout", deck=canonical_deck(), dealer=2)
    s.apply_action("take")
    assert s.phase == "play"
    assert names(s.hand(3)) == sorted("7S 8S 9S JH QH JD QD KD".split())
    assert names(s.hand(0)) == sorted("TS JS QS KH AH AD 7C 8C".split())
    assert names(s.hand(1)) == sorted("KS AS 7H 7D 8D 9C TC JC".split())
    assert names(s.hand(2)) == sorted("8H 9H TH 9D TD QC KC AC".split())
    assert s.to_act == 0          # taker + 1 leads


def _swapped_deck():
    d = canonical_deck()
    d[19], d[20] = d[20], d[19]   # offer TD (not a J)
    return d


def test_deal_rest_when_third_seat_takes():
    s = State("balout", deck=_swapped_deck(), dealer=0)
    assert str(s.offer) == "TD"
    play(s, "pass pass take")      # seats 1, 2 pass, seat 3 takes
    assert s.contract.bidder == 3 and s.contract.trump == "D" and s.contract.kind == "trump"
    assert names(s.hand(1)) == sorted("7S 8S 9S JH QH QD KD AD".split())
    assert names(s.hand(2)) == sorted("TS JS QS KH AH 7C 8C 9C".split())
    assert names(s.hand(3)) == sorted("KS AS 7H 7D 8D TD TC JC".split())
    assert names(s.hand(0)) == sorted("8H 9H TH 9D JD QC KC AC".split())


def test_first_lead_after_taker():
    s = State("balout", deck=_swapped_deck(), dealer=0)
    play(s, "pass pass take")
    assert s.phase == "play" and s.to_act == 0
    s = state_for(LIT, "JH", 1, 0, bids=["take"])
    assert s.to_act == 2


def test_helpers_deal_matches_given_hands():
    s = state_for(rotate(LIT, 2), "JH", 3, 2, bids=["take"])
    assert [names(h) for h in s.hands] == [sorted(h.split()) for h in rotate(LIT, 2)]


def test_auction_starts_with_d_plus_1_and_goes_round():
    s = State("balout", deck=_swapped_deck(), dealer=1)
    seats = []
    for _ in range(4):
        seats.append(s.to_act)
        s.apply_action("pass")
    assert seats == [2, 3, 0, 1]
    assert s.phase == "auction" and s.to_act == 2


def test_auction_round1_pass_or_take():
    s = State("balout", deck=_swapped_deck(), dealer=0)
    assert s.legal_action_strings() == ["pass", "take"]
    with pytest.raises(IllegalActionError):
        s.apply_action("take:S")
    s.apply_action("take")
    assert s.contract.bidder == 1 and s.contract.trump == "D"
    assert s.contract.multiplier == 1 and s.contract.gahwa is False
    assert s.phase == "play"


def test_auction_forced_take_on_jack():
    s = state_for(LIT, "JH", 1, 0)
    assert s.to_act == 1
    assert s.legal_action_strings() == ["take"]
    assert s.legal_actions() == [33]
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("pass")
    assert e.value.legal == ["take"]
    assert s.phase == "auction" and s.to_act == 1 and s.action_history == ()


def test_auction_no_forced_take_on_other_ranks():
    s = state_for(LIT, "AH", 1, 0)
    assert s.legal_action_strings() == ["pass", "take"]


def test_auction_round2_names_other_suit():
    s = State("balout", deck=_swapped_deck(), dealer=0)   # offer TD
    play(s, "pass pass pass pass")
    assert s.to_act == 1
    assert s.legal_action_strings() == ["pass", "take:C", "take:H", "take:S"]
    for bad in ("take", "take:D"):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    play(s, "pass take:S")
    c = s.contract
    assert (c.bidder, c.trump) == (2, "S")
    # seat 2 receives the offer + 2 cards; 11 cards dealt from seat 1
    assert names(s.hand(1)) == sorted("7S 8S 9S JH QH QD KD AD".split())
    assert names(s.hand(2)) == sorted("TS JS QS KH AH TD 7C 8C".split())
    assert names(s.hand(3)) == sorted("KS AS 7H 7D 8D 9C TC JC".split())
    assert names(s.hand(0)) == sorted("8H 9H TH 9D JD QC KC AC".split())
    assert s.phase == "play" and s.to_act == 3


def test_all_pass_twice_cancels_and_keeps_pot():
    s = state_for(LIT, "AH", 1, 0, match_score=(120, 40), litige_pot=33)
    play(s, ["pass"] * 8)
    assert s.phase == "done" and s.outcome == "cancelled"
    assert s.hand_score == (0, 0)
    assert s.match_score == (120, 40)
    assert s.litige_pot == 33
    assert s.contract is None
    summ = s.summary()
    assert summ["outcome"] == "cancelled" and summ["next"] is None and summ["litige_pot"] == 33


def test_cancelled_hand_passes_the_deal():
    m = Match("balout", dealer=3)
    s = m.new_hand(deck=deck_for(LIT, "AH", 1, 3))
    assert s.dealer == 3 and s.to_act == 0
    play(s, ["pass"] * 8)
    m.add_hand(s)
    assert m.next_dealer == 0 and m.score == [0, 0]


# ------------------------------------------------------------------ legal cards

# L1: seat 2 holds all spades; seats 3, 0, 1 are void in spades
L1 = ["AH TH 7H AD KD AC KC QC",
      "JH 9H KH QD JD TD JC TC",
      "7S 8S 9S TS JS QS KS AS",
      "QH 8H 9D 8D 7D 9C 8C 7C"]
# L2: offer 7H; seat 0 and seat 1 void in spades, seat 1 holds only low trumps
L2 = ["AH 8H AD KD QD AC KC QC",
      "KH QH 7H JD TD 9D JC TC",
      "AS KS QS JS TS 9S 9H TH",
      "8S 7S JH 8D 7D 9C 8C 7C"]
# L3: 2 cards of each suit per seat
L3 = ["AH 7H AS 7S AD 7D AC 7C",
      "JH 9H KS 8S KD 8D KC 8C",
      "KH TH QS 9S QD 9D QC 9C",
      "QH 8H TS JS TD JD TC JC"]


def test_legal_follow_suit():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    assert s.to_act == 2
    assert legal(s) == sorted(L3[2].split())
    s.apply_action("QS")
    assert legal(s) == ["JS", "TS"]
    s.apply_action("JS")              # seat 3 takes the lead; no duty to beat in a plain suit
    assert legal(s) == ["7S", "AS"]
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("AD")
    assert e.value.kind == "card in hand but illegal"
    s.apply_action("7S")
    assert legal(s) == ["8S", "KS"]


def test_legal_must_overtrump_on_trump_lead():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    s.apply_action("KH")
    assert legal(s) == ["8H", "QH"]     # seat 3 cannot beat KH: any trump
    s.apply_action("8H")
    assert legal(s) == ["AH"]           # seat 0 must beat KH although its partner wins
    s.apply_action("AH")
    assert legal(s) == ["9H", "JH"]


def test_legal_must_overtrump_on_trump_lead_ace_over_ten():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    play(s, "TH QH")
    assert legal(s) == ["AH"]


def test_legal_must_trump_when_void():
    s = state_for(L1, "JH", 1, 0, bids=["take"])
    s.apply_action("AS")
    assert legal(s) == ["8H", "QH"]     # void in spades, opponent winning: any trump
    s = state_for(L2, "7H", 1, 0, bids=["take"])
    play(s, "AS 7S AD")
    assert legal(s) == ["7H", "KH", "QH"]


def test_legal_partner_winning_frees():
    s = state_for(L2, "7H", 1, 0, bids=["take"])
    s.apply_action("AS")
    assert legal(s) == ["7S", "8S"]
    s.apply_action("7S")
    assert legal(s) == sorted(L2[0].split())    # partner's AS wins: any card, trumps included


def test_legal_overtrump_when_cutting():
    s = state_for(L1, "JH", 1, 0, bids=["take"])
    play(s, "AS QH")
    assert legal(s) == ["AH", "TH"]     # must beat QH (not 7H, not a plain card)
    s2 = s.clone()
    s.apply_action("TH")
    assert legal(s) == ["9H", "JH"]     # KH does not beat TH
    s2.apply_action("AH")
    assert legal(s2) == ["9H", "JH"]


def test_legal_undertrump():
    s = state_for(L2, "7H", 1, 0, bids=["take"])
    play(s, "AS 7S AH")                 # seat 0 trumps its partner's trick
    assert legal(s) == ["7H", "KH", "QH"]  # cannot beat AH, still must trump


def test_legal_any_card_when_void_and_no_trump():
    s = state_for(SUITS4, "JH", 1, 0, bids=["take"])
    s.apply_action("7D")
    assert legal(s) == sorted(SUITS4[3].split())


def test_legal_action_ids_match_cards():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    s.apply_action("QS")
    assert sorted(s.legal_actions()) == [3, 4]     # TS = 3, JS = 4


def test_trick_winner_highest_trump_else_led_suit():
    s = state_for(L2, "7H", 1, 0, bids=["take"])
    play(s, "AS 7S AD 7H")              # a 7 of trump beats the ace led
    assert list(s.trick_winners) == [1]
    assert s.to_act == 1                # the winner leads
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    play(s, "QS TS AS KS")              # no trump: highest spade
    assert list(s.trick_winners) == [0] and s.to_act == 0
    s = state_for(L1, "JH", 1, 0, bids=["take"])
    play(s, "AS QH AH 9H")              # trump order 9 > A > Q
    assert list(s.trick_winners) == [1]
    assert list(s.card_points) == [0, 11 + 3 + 11 + 14]


def test_trick_winners_and_rank_orders_in_full_hands():
    s = full_hand(MADE, PLAY_M)
    assert list(s.trick_winners) == WIN_M
    s = full_hand(LIT, PLAY_F)
    assert list(s.trick_winners) == WIN_F
    s = full_hand(BEL, PLAY_FB)
    assert list(s.trick_winners) == [3, 1, 1, 2, 2, 2, 2, 2]


# ------------------------------------------------------------------ declarations

RULES = resolve("balout", {})[2]
RULES_VALUE_FIRST = resolve("balout", {"declaration_order": "value_first"})[2]


def decl(cards, trump="H", rules=RULES):
    return _core.declarations_of(int(CardSet(cards)), rules, 1, "SHDC".index(trump))


@pytest.mark.parametrize("cards,value", [
    ("7S 8S 9S JH KH 7D 9D QC", 20),
    ("9H TH JH QH 7S 9S 7D 9D", 50),
    ("TD JD QD KD AD 7S 9S 7C", 100),
    ("7C 8C 9C TC JC QC 9S JH", 100),
    ("8S 9S TS JS QS KS AS 7H", 100),
    ("7S 8S 9S TS JS QS KS AS", 100),
    ("7S 8S 9S JS QS KS 7H 9H", 40),
    ("7S 8S 9S TH JH QH KH 7D", 70),
    ("JS QS KS AS 7H 9H 7D 9D", 50),
    ("7S 8S TS JS 7H 9H 7D 9D", 0),
    ("QS KS AS 7S 9H JD 8C TC", 20),
])
def test_declaration_sequences(cards, value):
    assert decl(cards)[0] == value


@pytest.mark.parametrize("rank,value", [
    ("J", 200), ("9", 150), ("A", 100), ("T", 100), ("K", 100), ("Q", 100), ("8", 0), ("7", 0),
])
def test_declaration_carres(rank, value):
    four = [rank + s for s in "SHDC"]
    filler = {"J": "7S 9H 7D 9C", "9": "7S JH 7D JC", "8": "TS QH TD QC", "7": "9S JH 9D JC"}
    cards = " ".join(four) + " " + filler.get(rank, "7S 9H 7D 9C")
    v, _key, used = decl(cards)
    assert v == value
    if value:
        assert used == int(CardSet(four))
    else:
        assert used == 0


def test_declaration_two_carres():
    assert decl("JS JH JD JC 9S 9H 9D 9C")[0] == 350


def test_run_of_8_is_one_100():
    v, _k, used = decl("7D 8D 9D TD JD QD KD AD")
    assert v == 100 and used == int(CardSet("7D 8D 9D TD JD QD KD AD"))


def test_carre_of_7_does_not_stop_a_run():
    # carré of 7 (0) would leave 8S 9S; the run 7S 8S 9S (20) is better
    assert decl("7S 8S 9S 7H 7D 7C JH KD")[0] == 20


def test_carre_and_run_sharing_card_carre_plus_rest_larger():
    # run 9S-KS (100) vs carré Q (100) + run 9S TS JS of what it leaves (20) = 120
    v, _k, used = decl("9S TS JS QS KS QH QD QC")
    assert v == 120
    assert used == int(CardSet("9S TS JS QS QH QD QC"))


def test_carre_and_run_sharing_card_run_larger():
    # run 7S-JS (100) vs carré of 8 (0) + 9S TS JS (20)
    v, _k, used = decl("7S 8S 9S TS JS 8H 8D 8C")
    assert v == 100 and used == int(CardSet("7S 8S 9S TS JS"))


def test_carre_j_and_run_sharing_card():
    # carré J (200) + 8S 9S TS (20) = 220 vs run 8S-QS (100)
    assert decl("8S 9S TS JS QS JH JD JC")[0] == 220


def test_carre_and_run_equal_totals_pick_stronger_best():
    # run TS-AS (100) or carré Q (100) + nothing: equal; the run of 5 is stronger (longer)
    v, _k, used = decl("TS JS QS KS AS QH QD QC")
    assert v == 100 and used == int(CardSet("TS JS QS KS AS"))


def test_length_beats_value_run5_beats_carre_j():
    run5 = decl("7D 8D 9D TD JD 7S 9S 7C", trump="C")
    carre_j = decl("JS JH JD JC 7S 9H 7D 9C", trump="C")
    assert (run5[0], carre_j[0]) == (100, 200)
    assert run5[1] > carre_j[1]
    run5v = decl("7D 8D 9D TD JD 7S 9S 7C", trump="C", rules=RULES_VALUE_FIRST)
    carre_jv = decl("JS JH JD JC 7S 9H 7D 9C", trump="C", rules=RULES_VALUE_FIRST)
    assert run5v[1] < carre_jv[1]


# Deals for team comparisons (checked after the deal, no play needed).
# seat 0: run 7S-9S (20); seat 1: run 7D-9D (20)
TIE = ["7S 8S 9S JH KH JD KD AC",
       "7D 8D 9D JS KS JC KC 7H",
       "TS QS AS TH QH AH 8C QD",
       "8H 9H AD 7C TD 9C TC QC"]
# seat 0: run TS-AS (100); seat 1: carré of 9 (150)
LV = ["TS JS QS KS AS 7H 7D 8C",
      "9S 9H 9D 9C JH KH JD KD",
      "7S 8H TH 8D TD 7C TC KC",
      "8S QH AH QD AD JC QC AC"]
# seat 0: run TS-KS (50, top K); seat 1: carré of 9 (150, length 4 top 9)
LV4 = ["7S TS JS QS KS 7H 7D 8C",
       "9S 9H 9D 9C JH KH JD KD",
       "AS 8H TH 8D TD 7C TC KC",
       "8S QH AH QD AD JC QC AC"]
# seat 0: plain run QD KD AD (top A); seat 1: trump run 7H 8H 9H (top 9)
TOP = ["QD KD AD 7S 9S JH 7C 9C",
       "7H 8H 9H JS KS JC KC JD",
       "8S TS TH QH 7D 9D 8C TC",
       "QS AS KH AH 8D TD QC AC"]


def dealt(hands, offer, variant="balout", **kw):
    s = state_for(hands, offer, 1, 0, variant, ["take"], **kw)
    assert s.phase == "play"
    return s


def test_declaration_tie_between_teams_scores_nothing():
    s = dealt(TIE, "JC")               # trump C: two plain runs of 3 topped by a 9
    assert tuple(s.declaration_values) == (20, 20, 0, 0)
    assert tuple(s.scoring_declarations)[0] == -1
    assert s.summary()["declarations"] is None


def test_trump_sequence_beats_plain_at_equal_length_and_top():
    s = dealt(TIE, "7D")               # trump D: seat 1's run is trump
    assert tuple(s.scoring_declarations) == (1, 20)
    assert s.summary()["declarations"] == {"team": 1, "value": 20}


def test_higher_top_beats_trump_sequence():
    s = dealt(TOP, "7H")
    assert tuple(s.declaration_values) == (20, 20, 0, 0)
    assert tuple(s.scoring_declarations) == (0, 20)


def test_length_beats_value_between_teams():
    s = dealt(LV, "JH")
    assert tuple(s.declaration_values) == (100, 150, 0, 0)
    assert tuple(s.scoring_declarations) == (0, 100)


def test_equal_length_carre_vs_run_compared_by_top_card():
    s = dealt(LV4, "JH")
    assert tuple(s.declaration_values) == (50, 150, 0, 0)
    assert tuple(s.scoring_declarations) == (0, 50)   # top K beats a carré of 9


def test_winning_team_scores_both_players_declarations():
    s = dealt(SUITS4, "JH")
    assert tuple(s.declaration_values) == (100, 100, 100, 100)
    assert tuple(s.scoring_declarations) == (1, 200)   # runs of 8, the trump one is best
    assert s.belote_seat == 1


# ------------------------------------------------------------------ belote

def test_belote_scores_in_made_hand_for_defence():
    s = full_hand(MADEB, PLAY_MB)
    assert list(s.card_points) == [66, 96]
    assert s.outcome == "made"
    assert s.hand_score == (66 + 20, 96)
    assert s.summary()["belote"] == 0 and s.belote_seat == 0


def test_belote_scores_in_failed_hand_and_never_counts_toward_making():
    # takers 71 + belote 20 = 91 would equal the defence's 91: still a plain chute
    s = full_hand(BEL, PLAY_FB)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "failed"
    assert s.hand_score == (162, 20)
    assert s.summary()["belote"] == 1


def test_belote_scores_in_litige_hand():
    s = full_hand(BEL, PLAY_LB)
    assert list(s.card_points) == [81, 81]
    assert s.outcome == "litige"
    assert s.hand_score == (81, 20)
    assert s.litige_pot == 81


def test_belote_scores_when_capot():
    s = full_hand(CAPB, PLAY_CAPB)
    assert list(s.card_points) == [0, 162]
    assert list(s.trick_winners) == [1] * 8
    # takers: 162 + declarations (run of 5 + run of 8 clubs = 200) + capot 100; capot team keeps belote
    assert tuple(s.scoring_declarations) == (1, 200)
    assert s.hand_score == (20, 462)
    summ = s.summary()
    assert summ["capot"] == 1 and summ["belote"] == 0


# ------------------------------------------------------------------ scoring

def test_score_made():
    s = full_hand(MADE, PLAY_M)
    assert list(s.card_points) == [66, 96]
    assert s.outcome == "made"
    assert s.hand_score == (66, 96)
    assert s.match_score == (66, 96)
    summ = s.summary()
    assert summ["declarations"] is None and summ["belote"] is None and summ["capot"] is None
    assert summ["contract"] == {"bidder": 1, "kind": "trump", "trump": "H", "multiplier": 1, "gahwa": False}


def test_score_made_with_takers_declarations():
    s = full_hand(MADE9, PLAY_M9)
    assert list(s.card_points) == [66, 96]
    assert s.hand_score == (66, 96 + 150)
    assert s.summary()["declarations"] == {"team": 1, "value": 150}


def test_score_made_with_defence_declarations():
    s = full_hand(MADET, PLAY_MT)
    assert s.outcome == "made"
    assert s.hand_score == (66 + 100, 96)
    assert s.summary()["declarations"] == {"team": 0, "value": 100}


def test_score_chute():
    s = full_hand(LIT, PLAY_F)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "failed"
    assert s.hand_score == (162, 0)


def test_score_chute_162_plus_takers_declarations():
    s = full_hand(LIT9, PLAY_F9)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "failed"
    assert s.hand_score == (162 + 150, 0)
    assert s.summary()["declarations"] == {"team": 1, "value": 150}


def test_score_chute_162_plus_defence_declarations():
    s = full_hand(LITT, PLAY_FT)
    assert list(s.card_points) == [91, 71]
    assert s.hand_score == (162 + 100, 0)


def test_litige_defence_scores_81_takers_81_to_pot():
    s = full_hand(LIT, PLAY_L)
    assert list(s.trick_winners) == WIN_L
    assert list(s.card_points) == [81, 81]
    assert s.outcome == "litige"
    assert s.hand_score == (81, 0)
    assert s.match_score == (81, 0)
    assert s.litige_pot == 81
    assert s.summary()["litige_pot"] == 81


def test_litige_takers_declarations_go_to_pot():
    s = full_hand(LIT9, PLAY_L9)
    assert s.outcome == "litige"
    assert s.hand_score == (81, 0)
    assert s.litige_pot == 81 + 150


def test_litige_defence_keeps_its_declarations():
    s = full_hand(LITT, PLAY_LT)
    assert s.outcome == "litige"
    assert s.hand_score == (81 + 100, 0)
    assert s.litige_pot == 81


def test_litige_adds_to_existing_pot():
    s = full_hand(LIT, PLAY_L, litige_pot=40, match_score=(10, 20))
    assert s.hand_score == (81, 0)
    assert s.litige_pot == 121
    assert s.match_score == (91, 20)


def test_pot_paid_to_takers_when_made():
    s = full_hand(MADE, PLAY_M, litige_pot=50, match_score=(100, 100))
    assert s.hand_score == (66, 96 + 50)
    assert s.litige_pot == 0
    assert s.match_score == (166, 246)
    assert s.summary()["hand_score"] == [66, 146]


def test_pot_paid_to_defence_when_failed():
    s = full_hand(LIT, PLAY_F, litige_pot=50)
    assert s.hand_score == (162 + 50, 0)
    assert s.litige_pot == 0


def _match_hand(m, hands, plays, r):
    s = m.new_hand(deck=deck_for(rotate(hands, r), "JH", (1 + r) % 4, r))
    assert s.dealer == r
    s.apply_action("take")
    assert s.contract.bidder == (1 + r) % 4
    play(s, plays)
    return m.add_hand(s)


def test_pot_carried_over_two_litiges():
    m = Match("balout")
    out = _match_hand(m, LIT, PLAY_L, 0)      # takers team 1, defence team 0 scores 81
    assert (out["outcome"], m.score, m.litige_pot) == ("litige", [81, 0], 81)
    out = _match_hand(m, LIT, PLAY_L, 1)      # takers team 0 (seat 2), defence team 1
    assert (out["outcome"], m.score, m.litige_pot) == ("litige", [81, 81], 162)
    out = _match_hand(m, MADE, PLAY_M, 2)     # takers team 1 (seat 3) make it: 96 + 162
    assert out["outcome"] == "made"
    assert out["hand_score"] == [66, 96 + 162]
    assert m.score == [147, 339] and m.litige_pot == 0 and not m.is_over


def test_pot_carried_over_three_litiges_then_failed():
    m = Match("balout")
    _match_hand(m, LIT, PLAY_L, 0)
    _match_hand(m, LIT, PLAY_L, 1)
    out = _match_hand(m, LIT, PLAY_L, 2)      # takers team 1, defence team 0 + 81
    assert m.score == [162, 81] and m.litige_pot == 243 and out["litige_pot"] == 243
    out = _match_hand(m, LIT, PLAY_F, 3)      # takers team 0 (seat 0) fail: defence team 1 162 + 243
    assert out["outcome"] == "failed"
    assert out["hand_score"] == [0, 405]
    assert m.score == [162, 486] and m.litige_pot == 0 and m.winner is None


def test_pot_kept_through_cancelled_hand():
    m = Match("balout")
    _match_hand(m, LIT, PLAY_L, 0)
    s = m.new_hand(deck=deck_for(rotate(LIT, 1), "AH", 2, 1))
    play(s, ["pass"] * 8)
    out = m.add_hand(s)
    assert out["outcome"] == "cancelled" and out["hand_score"] == [0, 0]
    assert m.score == [81, 0] and m.litige_pot == 81 and m.next_dealer == 2
    out = _match_hand(m, MADE, PLAY_M, 2)
    assert out["hand_score"] == [66, 96 + 81]
    assert m.score == [147, 177] and m.litige_pot == 0


# ------------------------------------------------------------------ capot

def test_capot_plus_100():
    s = full_hand(SUITS4, PLAY_S4)
    assert list(s.trick_winners) == [1] * 8
    assert list(s.card_points) == [0, 162]
    # 162 + declarations (two runs of 8: 200) + belote 20 + capot 100
    assert s.hand_score == (0, 482)
    summ = s.summary()
    assert summ["capot"] == 1 and summ["belote"] == 1
    assert summ["declarations"] == {"team": 1, "value": 200}


def test_capot_team_that_won_zero_point_trick():
    s = full_hand(CAPZ, PLAY_CAPZ)
    assert list(s.trick_winners) == [2, 1, 1, 1, 1, 1, 1, 1]
    assert list(s.card_points) == [0, 162]
    assert s.hand_score == (0, 162 + 200 + 20 + 100)
    assert s.summary()["capot"] == 1


def test_capot_of_the_takers_in_a_chute():
    s = full_hand(SUITS4, PLAY_DCAP, offer="7S", receiver=0, bids=DCAP_BIDS)
    assert s.contract.bidder == 0 and s.contract.trump == "H"
    assert list(s.trick_winners) == [1] * 8
    assert s.outcome == "failed"
    # defence: 162 + declarations 200 + its belote 20 + capot 100
    assert s.hand_score == (0, 482)
    assert s.summary()["capot"] == 1


# ------------------------------------------------------------------ match

@pytest.mark.parametrize("before,after,winner", [
    ((434, 0), (500, 96), 0),            # reaching 500 exactly wins
    ((433, 0), (499, 96), None),
    ((0, 404), (66, 500), 1),
    ((450, 404), (516, 500), 0),         # both reach: the higher total
    ((400, 420), (466, 516), 1),
    ((440, 430), (506, 526), 1),
    ((450, 420), (516, 516), None),      # equal: play on
])
def test_match_to_500(before, after, winner):
    s = full_hand(MADE, PLAY_M, match_score=before)
    assert s.match_score == after
    assert s.match_winner == winner


def test_match_object_stops_at_winner():
    m = Match("balout", score=(434, 0))
    assert m.target == 500
    _match_hand(m, MADE, PLAY_M, 0)
    assert m.score == [500, 96] and m.winner == 0 and m.is_over
    with pytest.raises(MatchOverError):
        m.new_hand()


def test_match_equal_totals_play_on():
    m = Match("balout", score=(450, 420))
    _match_hand(m, MADE, PLAY_M, 0)
    assert m.score == [516, 516] and m.winner is None and not m.is_over
    m.new_hand()


def test_match_deal_passes_on():
    m = Match("balout")
    _match_hand(m, MADE, PLAY_M, 0)
    assert m.next_dealer == 1
    _match_hand(m, MADE, PLAY_M, 1)
    assert m.next_dealer == 2
    # rotated by 1: takers team 0 make 96, defence team 1 66
    assert m.score == [66 + 96, 96 + 66]


# ------------------------------------------------------------------ section 6: errors

def _snapshot(s):
    return (s.phase, s.to_act, s.action_history, s.hand_masks, tuple(s.card_points), s.legal_action_strings())


def test_error_illegal_card_state_unchanged():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    s.apply_action("QS")
    before = _snapshot(s)
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("TD")
    assert e.value.kind == "card in hand but illegal"
    assert e.value.legal == ["JS", "TS"]
    assert _snapshot(s) == before


def test_error_card_not_in_hand():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    before = _snapshot(s)
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("JH")
    assert e.value.kind == "card not in hand"
    assert _snapshot(s) == before


@pytest.mark.parametrize("bad", ["XX", "", "11S", "take:X", "double", 99, -1])
def test_error_malformed_action(bad):
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    before = _snapshot(s)
    with pytest.raises(IllegalActionError):
        s.apply_action(bad)
    assert _snapshot(s) == before


def test_error_bid_in_play_and_card_in_auction():
    s = state_for(L3, "9H", 1, 0)
    with pytest.raises(IllegalActionError):
        s.apply_action("JH")
    s.apply_action("take")
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("pass")
    assert e.value.kind == "not a card"


def test_error_after_hand_end():
    s = full_hand(MADE, PLAY_M)
    before = _snapshot(s)
    with pytest.raises(IllegalActionError) as e:
        s.apply_action("AS")
    assert e.value.kind == "hand over"
    assert e.value.legal == []
    assert _snapshot(s) == before


def test_undo_restores_previous_position():
    s = state_for(L3, "JH", 1, 0, bids=["take"])
    before = _snapshot(s)
    s.apply_action("QS")
    s.undo()
    assert _snapshot(s) == before
