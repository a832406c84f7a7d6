"""Gulf Baloot (variant ``baloot``), RULES.md section 5 (and 8 for the output).

Every expected value below was worked out by hand from RULES.md; the hands
are built so that the play is easy to follow (trick-by-trick comments give
the winner and the card points of each trick).
"""
from __future__ import annotations

import pytest

import balout._core as core
from balout import CardSet, Match, State
from balout.errors import BaloutError, IllegalActionError, MatchOverError
from balout.rules import resolve
from helpers import deck_for, play, state_for

RULES = resolve("baloot", {})[2]
HOKM, SUN = 1, 2
S, H, D, C = range(4)


def mask(cards: str) -> int:
    return int(CardSet(cards))


def decl(cards: str, kind: int, trump: int = -1) -> int:
    """Value of the best project set of a hand (RULES.md 5, Projects)."""
    return core.declarations_of(mask(cards), RULES, kind, trump)[0]


def rotate(hands, k):
    """The same deal with every seat moved k places on (seat s -> s+k)."""
    return [hands[(s - k) % 4] for s in range(4)]


def assert_hands(state, hands):
    for seat in range(4):
        assert state.hand(seat) == CardSet(hands[seat]), seat


# ---------------------------------------------------------------------------
# Hand sets used by several tests (dealer 0: seat 1 speaks first and leads).
# ---------------------------------------------------------------------------

# No projects anywhere (2 cards of each suit per hand; seat 3's four 7s score
# nothing).  Used for the Sun examples 95 and 54 and for the Hokm 76-86 hand.
EX1 = ["QD 9D AS TH QH 7S 9C 7C", "AD TD 9S 9H 7H KS TC QC",
       "JD 8D TS KH JH QS 8C JC", "KD 7D 8S 8H AH JS AC KC"]
# Sun by seat 1, every trick one suit:
#  1 s1 AD JD KD QD  -> s1 20     2 s1 TD 8D 7D 9D -> s1 10
#  3 s1 9S TS 8S AS  -> s0 21     4 s0 TH 9H KH 8H -> s0 14
#  5 s0 QH 7H JH AH  -> s3 16     6 s3 JS 7S KS QS -> s1 9
#  7 s1 TC 8C AC 9C  -> s3 21     8 s3 KC 7C QC JC -> s3 9 + 10
#  buyers (team 1) 95, defence 35
EX1_SUN95 = ("AD JD KD QD TD 8D 7D 9D 9S TS 8S AS TH 9H KH 8H QH 7H JH AH "
             "JS 7S KS QS TC 8C AC 9C KC 7C QC JC")
EX1_SUN95_WINNERS = [1, 1, 0, 0, 3, 1, 3, 3]
# Hokm D by seat 1 (trump J 20, 9 14, A 11, T 10, K 4, Q 3):
#  1 s1 9H JH 8H TH -> s0 12      2 s0 7C TC 8C KC -> s1 14
#  3 s1 TD JD 7D 9D -> s2 44      4 s2 TS 8S 7S KS -> s2 14
#  5 s2 8D KD QD AD -> s1 18      6 s1 9S QS JS AS -> s0 16
#  7 s0 QH 7H KH AH -> s3 18      8 s3 AC 9C QC JC -> s3 16 + 10
#  buyers (team 1) 76, defence 86
EX1_HOKM76 = ("9H JH 8H TH 7C TC 8C KC TD JD 7D 9D TS 8S 7S KS 8D KD QD AD "
              "9S QS JS AS QH 7H KH AH AC 9C QC JC")
EX1_HOKM76_WINNERS = [0, 1, 2, 2, 1, 0, 3, 3]

# No projects; Sun by seat 1, buyers 54:
#  1 s1 KS JS 7S QS -> s1 9       2 s1 KD QD JD AD -> s0 20
#  3 s0 9D 8D TD 7D -> s2 10      4 s2 AS 8S TS 9S -> s2 21
#  5 s2 JH 7H AH QH -> s0 16      6 s0 KC QC JC 7C -> s0 9
#  7 s0 KH 9H 8H TH -> s3 14      8 s3 AC TC 9C 8C -> s3 21 + 10
#  buyers 9 + 14 + 31 = 54, defence 76
EX2 = ["AD 9D TC KC TS QS KH AH", "KD 8D 9C QC 9S KS 9H QH",
       "QD TD 8C JC AS JS 8H JH", "JD 7D AC 7C 8S 7S TH 7H"]
EX2_PLAYS = ("KS JS 7S QS KD QD JD AD 9D 8D TD 7D AS 8S TS 9S JH 7H AH QH "
             "KC QC JC 7C KH 9H 8H TH AC TC 9C 8C")
EX2_WINNERS = [1, 0, 2, 2, 0, 0, 3, 3]

# Seat 3 holds a fifty (7S 8S 9S TS); nobody else has a project.
# Sun by seat 1: buyers 60, defence 70.
EX3 = ["JS AS 7H 9H JD KD 7C TC", "QS 8H TH AH 7D 9D QD 8C",
       "KS JH KH 8D TD JC QC AC", "7S 8S 9S TS QH AD 9C KC"]
#  1 s1 8C QC 9C 7C -> s2 3       2 s2 JH QH 7H 8H -> s3 5
#  3 s3 KC TC 9D JC -> s0 16      4 s0 JS QS KS 9S -> s2 9
#  5 s2 AC TS AS TH -> s2 42      6 s2 8D AD JD 7D -> s3 13
#  7 s3 8S KD QD TD -> s3 17      8 s3 7S 9H AH KH -> s3 15 + 10
#  defence (team 0) 3 + 16 + 9 + 42 = 70, buyers 5 + 13 + 17 + 25 = 60
EX3_PLAYS = ("8C QC 9C 7C JH QH 7H 8H KC TC 9D JC JS QS KS 9S AC TS AS TH "
             "8D AD JD 7D 8S KD QD TD 7S 9H AH KH")
EX3_WINNERS = [2, 3, 0, 2, 2, 3, 3, 3]

# Hokm H by seat 1; seat 1 holds KH QH (baloot) and 7C 8C 9C (sira).
EX4 = ["7H 9H 8S TS 7D AD TC QC", "KH QH 7C 8C 9C 7S JD AS",
       "8H TH 9S JS 8D TD JC KC", "JH AH QS KS 9D QD KD AC"]
#  1 s1 KH TH AH 9H -> s0 39      2 s0 7D JD TD 9D -> s2 12
#  3 s2 8H JH 7H QH -> s3 23      4 s3 AC QC 7C JC -> s3 16
#  5 s3 KS 8S 7S JS -> s3 6       6 s3 QD AD AS 8D -> s0 25
#  7 s0 TS 8C 9S QS -> s0 13      8 s0 TC 9C KC KD -> s0 18 + 10
#  buyers (team 1) 23 + 16 + 6 = 45, defence 117
EX4_PLAYS = ("KH TH AH 9H 7D JD TD 9D 8H JH 7H QH AC QC 7C JC KS 8S 7S JS "
             "QD AD AS 8D TS 8C 9S QS TC 9C KC KD")
EX4_WINNERS = [0, 2, 3, 3, 3, 0, 0, 0]

# Kaboot, Sun: seat 1 leads AS TS KS AH TH KH AC TC and wins every trick.
# Seat 0 holds 7D..JD (hundred, 20 in Sun: the best project), seat 3 holds
# 7C 8C 9C (sira, 4).
KAB_SUN = ["7D 8D 9D TD JD JC KD AD", "AS TS KS AH TH KH AC TC",
           "QS JS 9S QH JH 9H KC QC", "7C 8C 9C 7S 8S 7H 8H QD"]
KAB_SUN_PLAYS = ("AS 9S 7S 7D TS JS 8S 8D KS QS QD 9D AH 9H 7H TD TH JH 8H JD "
                 "KH QH 9C KD AC KC 7C JC TC QC 8C AD")
# Kaboot, Hokm H: seat 1 draws the trumps with JH 9H then wins every trick.
# Seat 0: hundred 7D..JD (10, the best project); seat 1: 9H TH JH sira (2);
# seat 3: 7C 8C 9C sira (2); seat 2: KH QH (baloot).
KAB_HOKM = ["7D 8D 9D TD JD KD AD 7H", "JH 9H AH TH AS TS AC TC",
            "KH QH KS QS 9S KC JC QD", "7C 8C 9C 8H 7S 8S JS QC"]
KAB_HOKM_PLAYS = ("JH QH 8H 7H 9H KH 7S 7D AH 9S 8S 8D TH QD JS 9D AS KS QC TD "
                  "TS QS 7C JD AC KC 8C KD TC JC 9C AD")


def ex1_sun(**kw):
    return state_for(EX1, "AD", 1, 0, variant="baloot", bids=["sun"], **kw)


def ex1_hokm(doubling=("pass",), **kw):
    s = state_for(EX1, "TD", 1, 0, variant="baloot",
                  bids=["hokm", "pass", "pass", "pass"], **kw)
    for d in doubling:
        s.apply_action(d)
    return s


def ex3_sun(**kw):
    return state_for(EX3, "8H", 1, 0, variant="baloot", bids=["sun"], **kw)


def ex4_hokm(doubling=("pass",), **kw):
    s = state_for(EX4, "QH", 1, 0, variant="baloot",
                  bids=["hokm", "pass", "pass", "pass"], **kw)
    for d in doubling:
        s.apply_action(d)
    return s


# ---------------------------------------------------------------------------
# The four worked examples of RULES.md section 5
# ---------------------------------------------------------------------------

def test_worked_example_sun_95_gives_19_7():
    s = ex1_sun()
    assert s.phase == "play" and s.to_act == 1
    assert s.contract == (1, "sun", None, 1, False)
    play(s, EX1_SUN95)
    out = s.summary()
    assert out["trick_winners"] == EX1_SUN95_WINNERS
    assert out["card_points"] == [35, 95]
    assert out["outcome"] == "made"
    assert out["declarations"] is None and out["belote"] is None and out["capot"] is None
    assert out["hand_score"] == [7, 19]
    assert out["match_score"] == [7, 19]
    assert out["next"] is None


def test_worked_example_sun_54_fails_0_26():
    s = state_for(EX2, "KS", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (0, 0, 0, 0)      # four 7s are nothing
    play(s, EX2_PLAYS)
    out = s.summary()
    assert out["trick_winners"] == EX2_WINNERS
    assert out["card_points"] == [76, 54]
    # buyers 54 -> 10, defence 26 - 10 = 16: failed, defence takes 26
    assert out["outcome"] == "failed"
    assert out["hand_score"] == [26, 0]
    assert out["declarations"] is None


def test_worked_example_sun_60_plus_fifty_gives_22_14():
    s = ex3_sun()
    assert s.declaration_values == (0, 0, 0, 10)
    play(s, EX3_PLAYS)
    out = s.summary()
    assert out["trick_winners"] == EX3_WINNERS
    assert out["card_points"] == [70, 60]
    # buyers 60 -> 12 + fifty 10 = 22; defence 26 - 12 = 14
    assert out["outcome"] == "made"
    assert out["declarations"] == {"team": 1, "value": 10}
    assert out["hand_score"] == [14, 22]


def test_worked_example_hokm_45_sira_baloot_fails_0_20():
    s = ex4_hokm()
    assert s.contract == (1, "hokm", "H", 1, False)
    assert s.declaration_values == (0, 2, 0, 0)
    assert s.belote_seat == 1
    play(s, EX4_PLAYS)
    out = s.summary()
    assert out["trick_winners"] == EX4_WINNERS
    assert out["card_points"] == [117, 45]
    # buyers 4 + 2 + 2 = 8 against 12: failed, defence 16 + 2 + 2 = 20
    assert out["outcome"] == "failed"
    assert out["declarations"] == {"team": 1, "value": 2}
    assert out["belote"] == 1
    assert out["hand_score"] == [20, 0]


def test_failed_sun_defence_scores_its_own_project():
    # the EX3 deal and play, but seat 0 buys Sun: the fifty is the defence's.
    # buyers 70 -> 14; defence 26 - 14 = 12 + 10 = 22: failed, 26 + 10 = 36
    s = state_for(EX3, "JS", 0, 0, variant="baloot", bids=["pass", "pass", "pass", "sun"])
    assert s.contract == (0, "sun", None, 1, False) and s.to_act == 1
    play(s, EX3_PLAYS)
    out = s.summary()
    assert out["card_points"] == [70, 60]
    assert out["outcome"] == "failed"
    assert out["declarations"] == {"team": 1, "value": 10}
    assert out["hand_score"] == [0, 36]


# EX3 deal, Sun bought by seat 0, another play:
#  1 s1 7D TD AD JD -> s3 23      2 s3 TS AS QS KS -> s0 28
#  3 s0 7C 8C JC 9C -> s2 2       4 s2 8D 7S KD QD -> s0 7
#  5 s0 JS 9D QC 9S -> s0 5       6 s0 TC AH AC KC -> s2 36
#  7 s2 KH QH 7H TH -> s1 17      8 s1 8H JH 8S 9H -> s2 2 + 10
#  buyers (team 0) 90, defence 40
EX3_PLAYS_90 = ("7D TD AD JD TS AS QS KS 7C 8C JC 9C 8D 7S KD QD JS 9D QC 9S "
                "TC AH AC KC KH QH 7H TH 8H JH 8S 9H")


def test_made_on_equal_totals_defence_scores_its_project():
    # buyers 90 -> 18; defence 26 - 18 = 8 + fifty 10 = 18: at least equal, made
    s = state_for(EX3, "JS", 0, 0, variant="baloot", bids=["pass", "pass", "pass", "sun"])
    play(s, EX3_PLAYS_90)
    out = s.summary()
    assert out["trick_winners"] == [3, 0, 2, 0, 0, 2, 1, 2]
    assert out["card_points"] == [90, 40]
    assert out["outcome"] == "made"
    assert out["declarations"] == {"team": 1, "value": 10}
    assert out["hand_score"] == [18, 18]


# ---------------------------------------------------------------------------
# Game points and rounding
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("m, sun_pts, hokm_pts", [
    (0, 10, 5), (1, 10, 5), (2, 10, 5), (3, 10, 5), (4, 10, 5),
    (5, 11, 5), (6, 12, 6), (7, 12, 6), (8, 12, 6), (9, 12, 6),
])
def test_game_points_every_remainder(m, sun_pts, hokm_pts):
    assert core.game_points(50 + m, True) == sun_pts
    assert core.game_points(50 + m, False) == hokm_pts


def test_game_points_extremes():
    assert core.game_points(0, True) == 0
    assert core.game_points(130, True) == 26
    assert core.game_points(0, False) == 0
    assert core.game_points(162, False) == 16
    assert core.game_points(95, True) == 19
    assert core.game_points(45, False) == 4
    assert core.game_points(76, False) == 8
    assert core.game_points(86, False) == 9   # would give 17 in all: defence gets 16 - 8


def test_hokm_both_raw_scores_end_in_6():
    """76 against 86: buyers 76 -> 8, defence 16 - 8 = 8 (not 9): made 8-8."""
    s = ex1_hokm()
    assert s.contract == (1, "hokm", "D", 1, False)
    assert s.declaration_values == (0, 0, 0, 0) and s.belote_seat == -1
    play(s, EX1_HOKM76)
    out = s.summary()
    assert out["trick_winners"] == EX1_HOKM76_WINNERS
    assert out["card_points"] == [86, 76]
    assert out["outcome"] == "made"
    assert out["hand_score"] == [8, 8]


# ---------------------------------------------------------------------------
# Auction
# ---------------------------------------------------------------------------

def test_round1_legal_bids_and_ashkal_seats():
    s = state_for(EX1, "AD", 1, 0, variant="baloot")
    seen = {}
    for _ in range(4):
        seen[s.to_act] = s.legal_action_strings()
        s.apply_action("pass")
    assert seen == {1: ["hokm", "pass", "sun"], 2: ["hokm", "pass", "sun"],
                    3: ["ashkal", "hokm", "pass", "sun"], 0: ["ashkal", "hokm", "pass", "sun"]}


def test_round1_ashkal_seats_follow_the_dealer():
    s = State("baloot", seed=5, dealer=2)
    seen = {}
    for _ in range(4):
        seen[s.to_act] = "ashkal" in s.legal_action_strings()
        s.apply_action("pass")
    assert seen == {3: False, 0: False, 1: True, 2: True}


@pytest.mark.parametrize("seat", [1, 2])
def test_ashkal_illegal_for_first_two_speakers(seat):
    s = state_for(EX1, "AD", 1, 0, variant="baloot", bids=["pass"] * (seat - 1))
    assert s.to_act == seat
    with pytest.raises(IllegalActionError):
        s.apply_action("ashkal")
    assert s.to_act == seat and s.phase == "auction" and s.contract is None


def test_round1_hokm_then_three_passes_stands():
    s = state_for(EX1, "TD", 1, 0, variant="baloot", bids=["hokm"])
    assert s.phase == "auction" and s.contract is None
    assert s.to_act == 2 and s.legal_action_strings() == ["pass", "sun"]
    s.apply_action("pass")
    assert s.to_act == 3 and s.legal_action_strings() == ["ashkal", "pass", "sun"]
    s.apply_action("pass")
    assert s.to_act == 0 and s.legal_action_strings() == ["ashkal", "pass", "sun"]
    s.apply_action("pass")
    assert s.contract == (1, "hokm", "D", 1, False)
    assert s.receiver == 1
    assert_hands(s, EX1)
    assert s.phase == "doubling" and s.to_act == 2


def test_round1_hokm_by_later_seat_passed_players_may_overcall():
    # seat 1 passes, seat 2 says hokm; then 3, 0 and 1 (who passed) may say sun
    s = state_for(EX1, "TS", 2, 0, variant="baloot", bids=["pass", "hokm", "pass", "pass"])
    assert s.to_act == 1 and s.legal_action_strings() == ["pass", "sun"]
    s.apply_action("pass")
    assert s.contract == (2, "hokm", "S", 1, False)


@pytest.mark.parametrize("bids, bidder", [
    (["hokm", "sun"], 2),
    (["hokm", "pass", "sun"], 3),
    (["hokm", "pass", "pass", "sun"], 0),
])
def test_sun_overcalls_hokm(bids, bidder):
    offer = {2: "JD", 3: "KD", 0: "QD"}[bidder]
    s = state_for(EX1, offer, bidder, 0, variant="baloot", bids=bids)
    assert s.contract == (bidder, "sun", None, 1, False)
    assert s.receiver == bidder
    assert_hands(s, EX1)
    # Sun at 0-0: no doubling decision, seat d+1 leads
    assert s.phase == "play" and s.to_act == 1


def test_ashkal_overcalls_hokm():
    # seat 1 says hokm; seat 3 says ashkal: seat 3 buys, seat 1 gets the offer
    s = state_for(EX1, "AD", 1, 0, variant="baloot", bids=["hokm", "pass", "ashkal"])
    assert s.contract == (3, "sun", None, 1, False)
    assert s.receiver == 1
    assert_hands(s, EX1)


def test_sun_ends_the_auction_at_once():
    s = state_for(EX1, "JD", 2, 0, variant="baloot", bids=["pass", "sun"])
    assert s.contract == (2, "sun", None, 1, False)
    assert s.receiver == 2
    assert s.phase == "play"
    assert_hands(s, EX1)


@pytest.mark.parametrize("bids, caller, partner, offer", [
    (["pass", "pass", "ashkal"], 3, 1, "AD"),
    (["pass", "pass", "pass", "ashkal"], 0, 2, "JD"),
    (["pass"] * 4 + ["pass", "pass", "ashkal"], 3, 1, "AD"),
    (["pass"] * 4 + ["pass", "pass", "pass", "ashkal"], 0, 2, "JD"),
])
def test_ashkal_offer_goes_to_callers_partner(bids, caller, partner, offer):
    s = state_for(EX1, offer, partner, 0, variant="baloot", bids=bids)
    assert s.contract == (caller, "sun", None, 1, False)
    assert s.receiver == partner
    assert offer in s.hand(partner)
    assert_hands(s, EX1)
    assert s.phase == "play" and s.to_act == 1


def test_ashkal_scores_for_callers_team():
    # dealer 0, seat 3 calls ashkal, seat 1 receives the offer (AD).  The play
    # is the Sun 95 hand: team 1 (seats 1 and 3) are the buyers -> 19-7.
    s = state_for(EX1, "AD", 1, 0, variant="baloot", bids=["pass", "pass", "ashkal"])
    assert s.contract.bidder == 3
    play(s, EX1_SUN95)
    assert s.outcome == "made"
    assert s.hand_score == (7, 19)


def test_round2_legal_bids():
    s = state_for(EX1, "TD", 1, 0, variant="baloot", bids=["pass"] * 4)
    assert s.phase == "auction" and s.to_act == 1
    assert s.legal_action_strings() == ["hokm:C", "hokm:H", "hokm:S", "pass", "sun"]
    for bad in ("hokm:D", "hokm"):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    s.apply_action("pass")
    s.apply_action("pass")
    assert s.to_act == 3
    assert s.legal_action_strings() == ["ashkal", "hokm:C", "hokm:H", "hokm:S", "pass", "sun"]


def test_round2_hokm_other_suit_then_overcall_passes():
    s = state_for(EX1, "JD", 2, 0, variant="baloot",
                  bids=["pass"] * 4 + ["pass", "hokm:S"])
    assert s.contract is None and s.to_act == 3
    assert s.legal_action_strings() == ["ashkal", "pass", "sun"]
    for _ in range(3):
        s.apply_action("pass")
    assert s.contract == (2, "hokm", "S", 1, False)
    assert s.receiver == 2
    assert_hands(s, EX1)
    assert s.phase == "doubling" and s.to_act == 3


def test_round2_hokm_overcalled_by_sun():
    s = state_for(EX1, "KD", 3, 0, variant="baloot",
                  bids=["pass"] * 4 + ["hokm:C", "pass", "sun"])
    assert s.contract == (3, "sun", None, 1, False)


def test_round2_sun():
    s = state_for(EX1, "AD", 1, 0, variant="baloot", bids=["pass"] * 4 + ["sun"])
    assert s.contract == (1, "sun", None, 1, False)
    assert s.phase == "play" and s.to_act == 1


def test_sun_overcall_off_hokm_ends_auction():
    s = state_for(EX1, "TD", 1, 0, variant="baloot", bids=["hokm"],
                  options={"sun_overcall": False})
    assert s.contract == (1, "hokm", "D", 1, False)
    assert s.phase == "doubling" and s.to_act == 2


def test_two_full_passes_cancel_the_hand():
    s = state_for(EX1, "AD", 1, 0, variant="baloot", bids=["pass"] * 7)
    assert s.phase == "auction"
    s.apply_action("pass")
    assert s.phase == "done" and s.is_terminal()
    assert s.outcome == "cancelled"
    assert s.contract is None
    assert s.hand_score == (0, 0)
    out = s.summary()
    assert out["outcome"] == "cancelled" and out["contract"] is None and out["next"] is None
    with pytest.raises(BaloutError):
        s.apply_action("pass")


def test_cancelled_hand_passes_the_deal_in_a_match():
    m = Match("baloot", dealer=0)
    s = m.new_hand(deck=deck_for(EX1, "AD", 1, 0))
    play(s, ["pass"] * 8)
    m.add_hand(s)
    assert m.score == [0, 0] and m.next_dealer == 1 and m.winner is None


# ---------------------------------------------------------------------------
# Doubling
# ---------------------------------------------------------------------------

def test_hokm_doubling_ladder_and_who_decides():
    s = ex4_hokm(doubling=())
    assert s.phase == "doubling"
    assert s.to_act == 2 and s.legal_action_strings() == ["double", "pass"]
    s.apply_action("double")
    assert s.contract.multiplier == 2
    assert s.to_act == 1 and s.legal_action_strings() == ["pass", "three"]
    s.apply_action("three")
    assert s.contract.multiplier == 3
    assert s.to_act == 2 and s.legal_action_strings() == ["four", "pass"]
    s.apply_action("four")
    assert s.contract.multiplier == 4
    assert s.to_act == 1 and s.legal_action_strings() == ["gahwa", "pass"]
    s.apply_action("gahwa")
    assert s.contract == (1, "hokm", "H", 4, True)
    assert s.phase == "play" and s.to_act == 1


def test_doubling_decisions_follow_the_bidder():
    # bidder seat 2 (round-2 hokm:S): defence decides at seat 3, buyers at 2
    s = state_for(EX1, "JD", 2, 0, variant="baloot",
                  bids=["pass"] * 4 + ["pass", "hokm:S", "pass", "pass", "pass"])
    assert s.phase == "doubling" and s.to_act == 3
    s.apply_action("double")
    assert s.to_act == 2
    s.apply_action("three")
    assert s.to_act == 3
    s.apply_action("pass")
    assert s.phase == "play" and s.contract.multiplier == 3
    assert s.to_act == 1                      # first lead d+1, not bidder+1


@pytest.mark.parametrize("raises, mult", [((), 1), (("double",), 2),
                                          (("double", "three"), 3),
                                          (("double", "three", "four"), 4)])
def test_pass_ends_the_doubling(raises, mult):
    s = ex4_hokm(doubling=raises)
    assert s.phase == "doubling"
    s.apply_action("pass")
    assert s.phase == "play" and s.to_act == 1
    assert s.contract.multiplier == mult and not s.contract.gahwa


def test_doubling_option_off():
    s = ex4_hokm(doubling=(), options={"doubling": False})
    assert s.phase == "play" and s.to_act == 1
    assert s.contract.multiplier == 1


def test_three_multiplier_option():
    s = ex4_hokm(doubling=("double", "three", "pass"), options={"three_multiplier": 2})
    assert s.contract.multiplier == 2
    play(s, EX4_PLAYS)
    # defence wins: (16 + sira 2) x 2 + baloot 2 = 38
    assert s.hand_score == (38, 0)


@pytest.mark.parametrize("score", [(0, 0), (0, 99), (100, 100), (150, 120)])
def test_sun_without_the_100_condition_has_no_doubling(score):
    # buyers are team 1 (seat 1); the condition needs team 1 >= 100 and team 0 < 100
    s = ex1_sun(match_score=score)
    assert s.phase == "play" and s.to_act == 1
    assert s.contract.multiplier == 1


@pytest.mark.parametrize("score", [(0, 100), (99, 100), (50, 140)])
def test_sun_doubling_when_buyers_100_and_defence_below(score):
    s = ex1_sun(match_score=score)
    assert s.phase == "doubling" and s.to_act == 2
    assert s.legal_action_strings() == ["double", "pass"]
    s.apply_action("double")
    # Sun is doubled once only: no 'three' decision
    assert s.phase == "play" and s.to_act == 1
    assert s.contract == (1, "sun", None, 2, False)


def test_sun_doubling_pass():
    s = ex1_sun(match_score=(0, 100))
    s.apply_action("pass")
    assert s.phase == "play" and s.contract.multiplier == 1


def test_sun_doubled_scoring():
    s = ex1_sun(match_score=(20, 100))
    s.apply_action("double")
    play(s, EX1_SUN95)
    # buyers 19 > 7: buyers take 26 x 2
    assert s.outcome == "made"
    assert s.hand_score == (0, 52)
    assert s.match_score == (20, 152)
    assert s.match_winner == 1


def test_sun_doubled_scoring_with_project():
    s = ex3_sun(match_score=(0, 100))
    s.apply_action("double")
    play(s, EX3_PLAYS)
    # buyers 22 > 14: (26 + fifty 10) x 2 = 72; projects shown unmultiplied
    out = s.summary()
    assert out["hand_score"] == [0, 72]
    assert out["declarations"] == {"team": 1, "value": 10}
    assert out["contract"]["multiplier"] == 2


@pytest.mark.parametrize("raises, expected", [
    (("double", "pass"), (38, 0)),                       # (16 + 2) x 2 + 2
    (("double", "three", "pass"), (56, 0)),              # (16 + 2) x 3 + 2
    (("double", "three", "four", "pass"), (74, 0)),      # (16 + 2) x 4 + 2
])
def test_doubled_failed_hokm(raises, expected):
    s = ex4_hokm(doubling=raises)
    play(s, EX4_PLAYS)
    out = s.summary()
    assert out["outcome"] == "failed"
    assert out["hand_score"] == list(expected)
    assert out["declarations"] == {"team": 1, "value": 2}
    assert out["belote"] == 1


@pytest.mark.parametrize("raises, outcome, expected", [
    # totals 8 - 8: the tie is lost by the team that raised last
    (("double", "pass"), "made", (0, 32)),                    # defence raised last
    (("double", "three", "pass"), "failed", (48, 0)),         # buyers raised last
    (("double", "three", "four", "pass"), "made", (0, 64)),   # defence raised last
])
def test_doubled_tie_lost_by_last_raiser(raises, outcome, expected):
    s = ex1_hokm(doubling=raises)
    play(s, EX1_HOKM76)
    assert s.card_points == (86, 76)
    assert s.outcome == outcome
    assert s.hand_score == expected


def test_gahwa_defence_wins_the_match():
    s = ex4_hokm(doubling=("double", "three", "four", "gahwa"), match_score=(10, 30))
    assert s.contract.multiplier == 4 and s.contract.gahwa
    play(s, EX4_PLAYS)
    assert s.outcome == "failed"
    assert s.hand_score == (152, 0)
    assert s.match_score == (162, 30)
    assert s.match_winner == 0


def test_gahwa_tie_lost_by_buyers():
    s = ex1_hokm(doubling=("double", "three", "four", "gahwa"))
    play(s, EX1_HOKM76)
    assert s.hand_score == (152, 0)
    assert s.match_winner == 0


def test_gahwa_buyers_win_the_match_with_kaboot():
    s = state_for(KAB_HOKM, "TH", 1, 0, variant="baloot",
                  bids=["hokm", "pass", "pass", "pass", "double", "three", "four", "gahwa"])
    play(s, KAB_HOKM_PLAYS)
    assert s.hand_score == (0, 152)
    assert s.match_winner == 1
    out = s.summary()
    assert out["contract"] == {"bidder": 1, "kind": "hokm", "trump": "H",
                               "multiplier": 4, "gahwa": True}


def test_gahwa_ends_the_match_in_a_match_object():
    m = Match("baloot", dealer=0)
    s = m.new_hand(deck=deck_for(EX4, "QH", 1, 0))
    play(s, "hokm pass pass pass double three four gahwa")
    play(s, EX4_PLAYS)
    m.add_hand(s)
    assert m.score == [152, 0] and m.winner == 0
    with pytest.raises(MatchOverError):
        m.new_hand()


# ---------------------------------------------------------------------------
# Projects
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cards, sun, hokm", [
    ("7S 8S 9S JH KH 7D 9D QC", 4, 2),            # sira
    ("7S 8S 9S TS QH AH 7D 9D", 10, 5),           # fifty
    ("7S 8S 9S TS JS KH AH 7D", 20, 10),          # hundred (5)
    ("7S 8S 9S TS JS QS 7D 9D", 20, 10),          # run of 6
    ("7S 8S 9S TS JS QS KS 9D", 20, 10),          # run of 7
    ("7S 8S 9S TS JS QS KS AS", 20, 10),          # run of 8: one project
    ("7S 8S 9S JS QS KS 7D 9D", 8, 4),            # two siras
    ("AS AH AD AC 7S 9H JD KC", 40, 10),          # four aces
    ("KS KH KD KC 7S 9H JD AC", 20, 10),          # four kings
    ("QS QH QD QC 7S 9H JD AC", 20, 10),
    ("JS JH JD JC 7S 9H QD AC", 20, 10),
    ("TS TH TD TC 7S 9H QD AC", 20, 10),
    ("9S 9H 9D 9C 7S JH QD AC", 0, 0),            # four 9s: nothing
    ("8S 8H 8D 8C 7S JH QD AC", 0, 0),
    ("7S 7H 7D 7C 9S JH QD AC", 0, 0),
    ("AS AH AD AC KS KH KD KC", 60, 20),          # two four-of-a-kinds
    ("7S 9S JS KS 8H TH QH AH", 0, 0),            # nothing
    ("QS KS AS 7H 9H JD KD 8C", 4, 2),            # Q K A: no wrap-around
    ("KS AS 7S 8H TH QD 9C JC", 0, 0),            # K A 7 is not a run
])
def test_project_values(cards, sun, hokm):
    assert decl(cards, SUN) == sun
    assert decl(cards, HOKM, H) == hokm


def test_one_card_per_project_maximise_total():
    # four K with T J Q K of hearts: four-K (20) + T J Q sira (4) = 24 beats
    # fifty alone (10); in Hokm 10 + 2 = 12 beats 5
    cards = "KS KH KD KC QH JH TH 7D"
    assert decl(cards, SUN) == 24
    assert decl(cards, HOKM, S) == 12
    # four T with 7..J of hearts: four-T (20) + 7 8 9 sira (4) beats hundred (20)
    cards = "TS TD TC 7H 8H 9H TH JH"
    assert decl(cards, SUN) == 24
    assert decl(cards, HOKM, C) == 12
    # the used cards: the four kings and the three hearts T J Q
    _, _, used = core.declarations_of(mask("KS KH KD KC QH JH TH 7D"), RULES, SUN, -1)
    assert used == mask("KS KH KD KC QH JH TH")


def _hokm_state(hands, offer, bidder=1):
    return state_for(hands, offer, bidder, 0, variant="baloot",
                     bids=["hokm", "pass", "pass", "pass"])


def test_baloot_kq_of_trump():
    s = ex4_hokm()
    assert s.belote_seat == 1
    assert s.summary()["belote"] == 1


def test_baloot_kq_inside_a_sira_still_counts():
    hands = ["7H 9H 8S TS 7D AD TC QC", "KH QH JH 8C 9C 7S JD AS",
             "8H TH 9S JS 8D TD JC KC", "7C AH QS KS 9D QD KD AC"]
    s = _hokm_state(hands, "QH")
    assert s.declaration_values[1] == 2      # J Q K sira
    assert s.belote_seat == 1


def test_baloot_kq_inside_a_fifty_still_counts():
    hands = ["7H 9H 8S TS 7D AD TC QC", "KH QH JH TH 9C 7S JD AS",
             "8H 8C 9S JS 8D TD JC KC", "7C AH QS KS 9D QD KD AC"]
    s = _hokm_state(hands, "QH")
    assert s.declaration_values[1] == 5      # T J Q K fifty
    assert s.belote_seat == 1


def test_no_baloot_when_kq_inside_a_hundred():
    hands = ["7H 8H 8S TS 7D AD TC QC", "KH QH JH TH 9H 7S JD AS",
             "AH 8C 9S JS 8D TD JC KC", "7C 9C QS KS 9D QD KD AC"]
    s = _hokm_state(hands, "QH")
    assert s.declaration_values[1] == 10     # 9 T J Q K hundred
    assert s.belote_seat == -1
    assert s.summary()["belote"] is None


def test_no_baloot_in_sun():
    s = state_for(EX4, "QH", 1, 0, variant="baloot", bids=["sun"])
    assert s.belote_seat == -1
    assert s.declaration_values == (0, 4, 0, 0)     # the sira is 4 in Sun
    assert s.summary()["belote"] is None


# Best-project comparison ----------------------------------------------------

# seat 1: fifty 7S-TS + sira 7H-9H (total 14, best fifty with top T);
# seat 2: fifty JD-AD (top A).  Team 0 holds the best single project.
BEST_TOP = ["QS AS TH QH 7D 9D 8C JC", "7S 8S 9S TS 7H 8H 9H QC",
            "JD QD KD AD JS AH 7C 9C", "KS JH KH 8D TD TC KC AC"]


def test_best_project_higher_top_card_beats_larger_total():
    s = state_for(BEST_TOP, "QC", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (0, 14, 10, 0)
    assert s.scoring_declarations == (0, 10)


# seat 0: four K (20, top K); seat 3: hundred 7D-JD (20, top J)
FOUR_K = ["KS KH KD KC 7S 9S AH 8C", "7H 9H JH 8S JS QD 9C JC",
          "8H TH TS QS AD TC QC AC", "7D 8D 9D TD JD AS QH 7C"]


def test_best_project_equal_value_higher_top_card():
    s = state_for(FOUR_K, "7H", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (20, 0, 0, 20)
    assert s.scoring_declarations == (0, 20)
    s = state_for(FOUR_K, "7H", 1, 0, variant="baloot", bids=["hokm", "pass", "pass", "pass"])
    assert s.declaration_values == (10, 0, 0, 10)
    assert s.scoring_declarations == (0, 10)


def test_best_project_higher_value_wins():
    # Sun: four aces (40) beat a hundred (20)
    hands = ["AS AH AD AC 7S 9S KH 8C", "7H 9H JH 8S JS QD 9C JC",
             "8H TH TS QS KD TC QC KC", "7D 8D 9D TD JD KS QH 7C"]
    s = state_for(hands, "7H", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (40, 0, 0, 20)
    assert s.scoring_declarations == (0, 40)
    # Hokm: four aces are a hundred (10) and beat the run by the top card
    s = state_for(hands, "7H", 1, 0, variant="baloot", bids=["hokm", "pass", "pass", "pass"])
    assert s.declaration_values == (10, 0, 0, 10)
    assert s.scoring_declarations == (0, 10)


def test_best_project_fifty_beats_two_siras():
    # seat 1: two siras (8 in all, best 4); seat 2: fifty (10)
    hands = ["QS AS TH QH 7D 9D 8C JC", "7S 8S 9S 7H 8H 9H KS QC",
             "JD QD KD AD JS AH 7C 9C", "TS JH KH 8D TD TC KC AC"]
    s = state_for(hands, "QC", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (0, 8, 10, 0)
    assert s.scoring_declarations == (0, 10)


# seat 0: sira 7S 8S 9S; seat 3: sira 7H 8H 9H (equal value and top card)
TIE = ["7S 8S 9S JH KH AD QC TD", "8C TC KC 7D JD TS AS QH",
       "9C JC AC 8D KD QS TH AH", "7H 8H 9H JS KS 9D QD 7C"]


@pytest.mark.parametrize("dealer, team", [(0, 1), (1, 1), (2, 1), (3, 0)])
def test_best_project_tie_first_in_order_from_first_leader(dealer, team):
    first = (dealer + 1) % 4
    offer = TIE[first].split()[0]
    s = state_for(TIE, offer, first, dealer, variant="baloot", bids=["sun"])
    assert s.declaration_values == (4, 0, 0, 4)
    assert s.scoring_declarations == (team, 4)


def test_team_scores_both_players_projects():
    # team 1: seat 1 fifty + sira (14), seat 3 four-K (20, the best);
    # team 0: seat 2 T J Q sira (4, worthless)
    hands = ["QS AS TH QH 7D 9D 8C JC", "7S 8S 9S TS 7H 8H 9H QC",
             "JD QD AD JS AH 7C 9C TD", "KS KH KD KC JH 8D TC AC"]
    s = state_for(hands, "QC", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (0, 14, 4, 20)
    assert s.scoring_declarations == (1, 34)


# ---------------------------------------------------------------------------
# Kaboot
# ---------------------------------------------------------------------------

def test_kaboot_sun_by_buyers():
    s = state_for(KAB_SUN, "AS", 1, 0, variant="baloot", bids=["sun"])
    assert s.declaration_values == (20, 0, 0, 4)
    assert s.scoring_declarations == (0, 20)     # defence holds the best one
    play(s, KAB_SUN_PLAYS)
    out = s.summary()
    assert out["trick_winners"] == [1] * 8
    assert out["card_points"] == [0, 130]
    assert out["outcome"] == "made"
    assert out["capot"] == 1
    # 44 + own sira 4; the defence's hundred is worthless
    assert out["hand_score"] == [0, 48]
    assert out["declarations"] == {"team": 1, "value": 4}


def test_kaboot_sun_by_defence():
    s = state_for(KAB_SUN, "7D", 0, 0, variant="baloot", bids=["pass", "pass", "pass", "sun"])
    assert s.contract.bidder == 0 and s.phase == "play" and s.to_act == 1
    play(s, KAB_SUN_PLAYS)
    out = s.summary()
    assert out["outcome"] == "failed"
    assert out["capot"] == 1
    assert out["hand_score"] == [0, 48]


def test_kaboot_hokm_by_buyers():
    s = state_for(KAB_HOKM, "TH", 1, 0, variant="baloot", bids=["hokm", "pass", "pass", "pass", "pass"])
    assert s.declaration_values == (10, 2, 0, 2)
    assert s.belote_seat == 2
    assert s.scoring_declarations == (0, 10)
    play(s, KAB_HOKM_PLAYS)
    out = s.summary()
    assert out["card_points"] == [0, 162]
    assert out["outcome"] == "made"
    assert out["capot"] == 1
    # 25 + own siras 2 + 2; defence's hundred and baloot are worthless
    assert out["hand_score"] == [0, 29]
    assert out["declarations"] == {"team": 1, "value": 4}


def test_kaboot_hokm_by_defence():
    s = state_for(KAB_HOKM, "7H", 0, 0, variant="baloot",
                  bids=["pass", "pass", "pass", "hokm", "pass", "pass", "pass", "pass"])
    assert s.contract == (0, "hokm", "H", 1, False)
    play(s, KAB_HOKM_PLAYS)
    out = s.summary()
    assert out["outcome"] == "failed"
    assert out["capot"] == 1
    # defence: 25 + its siras 4; buyers' hundred and baloot are worthless
    assert out["hand_score"] == [0, 29]


def test_kaboot_doubled():
    s = state_for(KAB_HOKM, "TH", 1, 0, variant="baloot",
                  bids=["hokm", "pass", "pass", "pass", "double", "pass"])
    play(s, KAB_HOKM_PLAYS)
    assert s.hand_score == (0, 58)             # (25 + 4) x 2


# Kaboot, Hokm H, the kaboot team holding the baloot (seat 3: KH QH).
# Team 0: seat 0 hundred (10) + seat 2 J Q K of spades sira (2) = the best;
# team 1: seat 1 sira 9H TH JH (2), seat 3 sira 7C 8C 9C (2) and baloot.
KAB_HOKM2 = ["7D 8D 9D TD JD KD AD 7H", "JH 9H AH TH AS TS AC TC",
             "8H JS KS QS 9S KC JC QD", "KH QH 7C 8C 9C 7S 8S QC"]
KAB_HOKM2_PLAYS = ("JH 8H QH 7H 9H 9S KH 7D AH JS 7S 8D TH QD 8S 9D AS KS QC TD "
                   "TS QS 7C JD AC KC 8C KD TC JC 9C AD")


@pytest.mark.parametrize("raises, expected", [
    (["pass"], (0, 31)),               # 25 + 2 + 2 + baloot 2
    (["double", "pass"], (0, 60)),     # (25 + 4) x 2 + baloot 2 (not doubled)
])
def test_kaboot_hokm_with_own_baloot(raises, expected):
    s = state_for(KAB_HOKM2, "TH", 1, 0, variant="baloot",
                  bids=["hokm", "pass", "pass", "pass"] + raises)
    assert s.declaration_values == (10, 2, 2, 2)
    assert s.belote_seat == 3
    assert s.scoring_declarations == (0, 12)
    play(s, KAB_HOKM2_PLAYS)
    out = s.summary()
    assert out["trick_winners"] == [1] * 8
    assert out["capot"] == 1 and out["belote"] == 1
    assert out["hand_score"] == list(expected)


# ---------------------------------------------------------------------------
# Match to 152
# ---------------------------------------------------------------------------

def test_match_reaching_152():
    s = ex1_sun(match_score=(145, 100))
    play(s, EX1_SUN95)
    assert s.match_score == (152, 119)
    assert s.match_winner == 0


def test_match_not_reached():
    s = ex1_sun(match_score=(144, 132))
    play(s, EX1_SUN95)
    assert s.match_score == (151, 151)
    assert s.match_winner is None


def test_match_both_over_higher_wins():
    s = ex1_sun(match_score=(150, 140))
    play(s, EX1_SUN95)
    assert s.match_score == (157, 159)
    assert s.match_winner == 1


def test_match_both_over_equal_plays_on():
    s = ex1_sun(match_score=(160, 148))
    play(s, EX1_SUN95)
    assert s.match_score == (167, 167)
    assert s.match_winner is None


def test_match_object_two_hands():
    m = Match("baloot", dealer=0, score=(140, 130))
    s = m.new_hand(deck=deck_for(EX1, "AD", 1, 0))
    play(s, "sun")
    play(s, EX1_SUN95)
    m.add_hand(s)
    assert m.score == [147, 149] and m.winner is None and m.next_dealer == 1
    # same deal one seat on, dealt by seat 1: seat 2 buys, team 0 takes 19
    hands = rotate(EX1, 1)
    s = m.new_hand(deck=deck_for(hands, "AD", 2, 1))
    assert s.dealer == 1 and s.to_act == 2
    play(s, "sun")
    assert s.to_act == 2
    play(s, EX1_SUN95)
    assert s.hand_score == (19, 7)
    m.add_hand(s)
    assert m.score == [166, 156]
    assert m.winner == 0
    with pytest.raises(MatchOverError):
        m.new_hand()


# ---------------------------------------------------------------------------
# Play legality and first lead
# ---------------------------------------------------------------------------

def test_sun_follow_suit_else_anything():
    s = state_for(KAB_SUN, "AS", 1, 0, variant="baloot", bids=["sun"])
    assert s.to_act == 1
    assert s.legal_action_strings() == sorted(KAB_SUN[1].split())
    play(s, "AS")
    assert s.legal_action_strings() == ["9S", "JS", "QS"]
    play(s, "QS")
    assert s.legal_action_strings() == ["7S", "8S"]
    play(s, "7S")
    # seat 0 has no spade: anything
    assert s.legal_action_strings() == sorted(KAB_SUN[0].split())
    play(s, "AD")
    assert s.trick_winners[0] == 1
    # a higher card of another suit never wins in Sun; no trumping
    assert s.card_points == (0, 11 + 3 + 0 + 11)


# Hokm H, seat 1 leads.
LEG = ["TS 9S 8S 7S KH JD TD 9D", "AS KS QS JS TH AD KD QD",
       "JH 7H AH AC KC QC JC TC", "9H 8H QH 9C 8C 7C 8D 7D"]


def leg_state(**options):
    return state_for(LEG, "TH", 1, 0, variant="baloot",
                     bids=["hokm", "pass", "pass", "pass", "pass"], options=options)


def test_hokm_void_must_trump():
    s = leg_state()
    play(s, "AS")
    assert s.legal_action_strings() == ["7H", "AH", "JH"]


@pytest.mark.parametrize("cut, legal", [
    ("7H", ["8H", "9H", "QH"]),
    ("AH", ["9H"]),                # must beat the opponent's trump
    ("JH", ["8H", "9H", "QH"]),    # cannot beat: must still trump
])
def test_hokm_overtrump_and_undertrump_when_cutting(cut, legal):
    s = leg_state()
    play(s, ["AS", cut])
    assert s.legal_action_strings() == legal
    # seat 0 has spades: follows, with no duty to beat
    play(s, legal[0])
    assert s.legal_action_strings() == ["7S", "8S", "9S", "TS"]


def test_hokm_overtrump_option_off():
    s = leg_state(overtrump_when_cutting=False)
    play(s, "AS AH")
    assert s.legal_action_strings() == ["8H", "9H", "QH"]


def test_hokm_undertrump_option_off():
    s = leg_state(undertrump=False)
    play(s, "AS JH")
    assert s.legal_action_strings() == sorted(LEG[3].split())


def test_hokm_partner_winning_frees():
    s = leg_state()
    play(s, "AS JH 8H 7S")                 # seat 2 wins with JH
    assert s.trick_winners[0] == 2 and s.to_act == 2
    play(s, "AC 7C")
    # seat 0: no club, partner winning with AC: anything
    assert s.legal_action_strings() == sorted(["TS", "9S", "8S", "KH", "JD", "TD", "9D"])


def test_hokm_partner_winning_frees_option_off():
    s = leg_state(partner_winning_frees=False)
    play(s, "AS JH 8H 7S AC 7C")
    assert s.legal_action_strings() == ["KH"]


def test_hokm_trump_lead_must_overtrump():
    s = leg_state()
    play(s, "AS JH 8H 7S")
    play(s, "AH")                          # seat 2 leads a trump
    assert s.legal_action_strings() == ["9H"]          # QH does not beat AH
    play(s, "9H")
    assert s.legal_action_strings() == ["KH"]          # cannot beat: any trump
    play(s, "KH")
    assert s.legal_action_strings() == ["TH"]
    play(s, "TH")
    assert s.trick_winners[1] == 3


def test_hokm_trump_lead_void_in_trump_anything():
    s = leg_state()
    play(s, "AS JH 8H 7S AH 9H KH TH")     # seat 3 wins trick 2
    play(s, "QH")                          # seat 3 leads his last trump
    # seat 0 and seat 1 have no trump left: anything
    assert s.legal_action_strings() == sorted(["TS", "9S", "8S", "JD", "TD", "9D"])
    play(s, "JD")
    assert s.legal_action_strings() == sorted(["KS", "QS", "JS", "AD", "KD", "QD"])


def test_hokm_must_follow_suit_before_trumping():
    s = leg_state()
    play(s, "AS JH 8H 7S AC")              # trick 2 led by seat 2 with AC
    assert s.legal_action_strings() == ["7C", "8C", "9C"]


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
@pytest.mark.parametrize("contract", ["sun", "hokm"])
def test_first_trick_led_by_seat_after_dealer(dealer, contract):
    # the bidder is the dealer's left-hand seat + 2 (d+3); leader stays d+1
    s = State("baloot", seed=11 + dealer, dealer=dealer)
    s.apply_action("pass")
    s.apply_action("pass")
    assert s.to_act == (dealer + 3) % 4
    if contract == "sun":
        s.apply_action("sun")
    else:
        s.apply_action("hokm")
        for _ in range(3):
            s.apply_action("pass")
        assert s.phase == "doubling" and s.to_act == dealer   # bidder + 1
        s.apply_action("pass")
    assert s.contract.bidder == (dealer + 3) % 4
    assert s.phase == "play"
    assert s.to_act == (dealer + 1) % 4
    assert all(len(h) == 8 for h in s.hands)


def test_first_lead_option_after_taker():
    s = State("baloot", seed=3, dealer=0, options={"first_lead": "after_taker"})
    play(s, "pass pass sun")
    assert s.contract.bidder == 3 and s.to_act == 0
