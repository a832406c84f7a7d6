"""`belote` (RULES.md section 4): the differences from `balout`.

The deals come from test_rules_balout. Here they are dealt by seat 1
(dealer 1, offer JH): seats 2, 3, 0 pass and seat 1 takes, so that the
first lead is seat 2 (d+1) exactly as in the `balout` plays.
Expected values computed by hand from RULES.md.
"""
import pytest

from balout import Match, OptionError, State
from helpers import deck_for, play, state_for
from test_rules_balout import (BEL, DCAP_BIDS, LIT, LIT9, LITT, LV, LV4, MADE, MADEB, PLAY_DCAP, PLAY_F,
                               PLAY_F9, PLAY_FB, PLAY_FT, PLAY_L, PLAY_L9, PLAY_LB, PLAY_LT, PLAY_M,
                               PLAY_MB, SUITS4, _swapped_deck)

BIDS_D1 = ["pass", "pass", "pass", "take"]


def belote_hand(hands, plays, **kw):
    s = state_for(hands, "JH", 1, 1, "belote", BIDS_D1, **kw)
    assert s.phase == "play" and s.contract.bidder == 1 and s.to_act == 2
    play(s, plays)
    assert s.is_terminal()
    return s


def test_no_forced_take_on_jack():
    s = state_for(LIT, "JH", 1, 0, "belote")
    assert s.to_act == 1
    assert s.legal_action_strings() == ["pass", "take"]
    s.apply_action("pass")
    assert s.to_act == 2


def test_first_lead_after_dealer_whoever_took():
    s = State("belote", deck=_swapped_deck(), dealer=0)
    play(s, "pass pass take")           # seat 3 takes
    assert s.contract.bidder == 3
    assert s.to_act == 1                # d+1, not taker+1 (seat 0)
    s = state_for(LIT, "JH", 1, 0, "belote", ["take"])
    assert s.to_act == 1                # the taker itself leads when it is d+1


def test_round2_still_names_another_suit():
    s = State("belote", deck=_swapped_deck(), dealer=0)   # offer TD
    play(s, ["pass"] * 4)
    assert s.legal_action_strings() == ["pass", "take:C", "take:H", "take:S"]


def test_contract_made_plain():
    s = belote_hand(MADE, PLAY_M)
    assert list(s.card_points) == [66, 96]
    assert s.outcome == "made"
    assert s.hand_score == (66, 96)


def test_contract_made_thanks_to_declarations():
    # takers 71 card points + carré of 9 (150) = 221 >= 82
    s = belote_hand(LIT9, PLAY_F9)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "made"
    assert s.hand_score == (91, 71 + 150)
    assert s.summary()["declarations"] == {"team": 1, "value": 150}


def test_81_with_declarations_is_made():
    s = belote_hand(LIT9, PLAY_L9)
    assert list(s.card_points) == [81, 81]
    assert s.outcome == "made"
    assert s.hand_score == (81, 81 + 150)


def test_81_81_without_declarations_fails_no_litige():
    s = belote_hand(LIT, PLAY_L)
    assert list(s.card_points) == [81, 81]
    assert s.outcome == "failed"
    assert s.hand_score == (162, 0)
    assert s.litige_pot == 0


def test_no_litige_pot_in_belote():
    with pytest.raises(OptionError):
        State("belote", seed=1, litige_pot=10)


def test_dedans_162():
    s = belote_hand(LIT, PLAY_F)
    assert s.outcome == "failed"
    assert s.hand_score == (162, 0)


def test_dedans_162_plus_defence_declarations():
    s = belote_hand(LITT, PLAY_FT)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "failed"
    assert s.hand_score == (162 + 100, 0)
    s = belote_hand(LITT, PLAY_LT)       # 81 for the takers, declarations are the defence's
    assert s.outcome == "failed"
    assert s.hand_score == (162 + 100, 0)


def test_belote_in_failed_hand_scores_for_holder():
    # 71 + belote 20 = 91 >= 82 would make it: belote never counts toward the 82
    s = belote_hand(BEL, PLAY_FB)
    assert s.outcome == "failed"
    assert s.hand_score == (162, 20)
    s = belote_hand(BEL, PLAY_LB)        # 81 + belote: still failed
    assert s.outcome == "failed"
    assert s.hand_score == (162, 20)


def test_belote_in_made_hand_for_defence():
    s = belote_hand(MADEB, PLAY_MB)
    assert s.outcome == "made"
    assert s.hand_score == (66 + 20, 96)


def test_value_first_declaration_order():
    s = state_for(LV, "JH", 1, 0, "belote", ["take"])
    assert tuple(s.declaration_values) == (100, 150, 0, 0)
    assert tuple(s.scoring_declarations) == (1, 150)      # carré of 9 beats a run of 5
    s = state_for(LV4, "JH", 1, 0, "belote", ["take"])
    assert tuple(s.scoring_declarations) == (1, 150)


# seat 0: run 7D-JD (100); seat 1: carré of Q (100): equal value, the longer wins
VL = ["7D 8D 9D TD JD 7S 9S JH",
      "QS QH QD QC 7H 9H KD 7C",
      "8S TS KS 8H TH AD 8C TC",
      "JS AS KH AH 9C JC KC AC"]


def test_value_first_then_longer():
    s = state_for(VL, "QH", 1, 0, "belote", ["take"])
    assert tuple(s.declaration_values) == (100, 100, 0, 0)
    assert tuple(s.scoring_declarations) == (0, 100)


def test_capot_250_for_takers():
    s = state_for(SUITS4, "JH", 1, 0, "belote", ["take"])
    assert s.to_act == 1
    play(s, PLAY_DCAP)                   # seat 1 leads all 8 trumps
    assert list(s.trick_winners) == [1] * 8
    assert s.outcome == "made"
    # 250 instead of 162 + declarations (runs of 8 of seats 1 and 3) + belote
    assert s.hand_score == (0, 250 + 200 + 20)
    assert s.summary()["capot"] == 1


def test_capot_250_for_defence_when_takers_win_no_trick():
    s = state_for(SUITS4, "7S", 0, 0, "belote", DCAP_BIDS)
    assert s.contract.bidder == 0 and s.contract.trump == "H" and s.to_act == 1
    play(s, PLAY_DCAP)
    assert s.outcome == "failed"
    assert s.hand_score == (0, 250 + 200 + 20)
    assert s.summary()["capot"] == 1


def test_no_capot_bonus_without_all_tricks():
    # the defence won one zero-point trick: no 250 (the balout rule would give +100)
    from test_rules_balout import CAPZ, PLAY_CAPZ
    s = belote_hand(CAPZ, PLAY_CAPZ)
    assert list(s.card_points) == [0, 162]
    assert s.hand_score == (0, 162 + 200 + 20)
    assert s.summary()["capot"] is None


@pytest.mark.parametrize("before,after,winner", [
    ((934, 0), (1000, 96), 0),
    ((500, 0), (566, 96), None),
    ((933, 904), (999, 1000), 1),
    ((934, 904), (1000, 1000), None),
])
def test_match_target_1000(before, after, winner):
    s = belote_hand(MADE, PLAY_M, match_score=before)
    assert s.match_score == after
    assert s.match_winner == winner


def test_match_object_target_1000():
    m = Match("belote", score=(500, 0))
    assert m.target == 1000
    s = m.new_hand(deck=deck_for(MADE, "JH", 1, 1), dealer=1)
    play(s, BIDS_D1)
    play(s, PLAY_M)
    m.add_hand(s)
    assert m.score == [566, 96] and not m.is_over
