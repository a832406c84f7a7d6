"""Rule options of RULES.md section 7 for `balout` and `belote`.

Each option is switched away from its default and must change the
behaviour as documented; expected values computed by hand.
"""
import pytest

from balout import Match, OptionError, State, defaults
from balout.rules import resolve
from helpers import play, state_for
from test_rules_balout import (CAPZ, L1, L2, L3, LIT, LIT9, LV, PLAY_CAPZ, PLAY_F9, PLAY_L, PLAY_M,
                               PLAY_S4, MADE, SUITS4, _swapped_deck, full_hand, legal)


def test_defaults():
    d = defaults("balout")
    assert d["target"] == 500 and d["forced_take_on_jack"] is True
    assert d["first_lead"] == "after_taker" and d["declarations"] == "auto"
    assert d["overtrump_when_cutting"] is True and d["undertrump"] is True
    assert d["partner_winning_frees"] is True and d["litige_pot"] is True
    assert d["capot"] == "plus100_zero_points" and d["declaration_order"] == "length_first"
    d = defaults("belote")
    assert d["target"] == 1000 and d["forced_take_on_jack"] is False
    assert d["first_lead"] == "after_dealer" and d["litige_pot"] is False
    assert d["capot"] == "250_all_tricks" and d["declaration_order"] == "value_first"
    assert d["contract_counts_declarations"] is True
    assert "sun_overcall" not in d and "doubling" not in d


# ------------------------------------------------------------------ auction / lead

@pytest.mark.parametrize("value", [False, "off"])
def test_forced_take_on_jack_off(value):
    s = state_for(LIT, "JH", 1, 0, options={"forced_take_on_jack": value})
    assert s.legal_action_strings() == ["pass", "take"]
    s.apply_action("pass")
    assert s.to_act == 2


def test_forced_take_on_jack_on_for_belote():
    s = state_for(LIT, "JH", 1, 0, "belote", options={"forced_take_on_jack": True})
    assert s.legal_action_strings() == ["take"]


def test_first_lead_after_dealer_in_balout():
    s = state_for(LIT, "JH", 1, 0, bids=["take"], options={"first_lead": "after_dealer"})
    assert s.to_act == 1
    s = State("balout", deck=_swapped_deck(), dealer=0, options={"first_lead": "after_dealer"})
    play(s, "pass pass take")
    assert s.to_act == 1


def test_first_lead_after_taker_in_belote():
    s = State("belote", deck=_swapped_deck(), dealer=0, options={"first_lead": "after_taker"})
    play(s, "pass pass take")
    assert s.contract.bidder == 3 and s.to_act == 0


# ------------------------------------------------------------------ legal cards

def test_overtrump_when_cutting_off():
    s = state_for(L1, "JH", 1, 0, bids=["take"], options={"overtrump_when_cutting": False})
    play(s, "AS QH")
    assert legal(s) == ["7H", "AH", "TH"]       # any trump, not only AH TH
    s = state_for(L3, "JH", 1, 0, bids=["take"], options={"overtrump_when_cutting": False})
    play(s, "KH 8H")
    assert legal(s) == ["AH"]                   # trump lead: still must beat


def test_undertrump_off():
    opts = {"undertrump": False}
    s = state_for(L2, "7H", 1, 0, bids=["take"], options=opts)
    play(s, "AS 7S AH")
    assert legal(s) == sorted(L2[1].split())    # cannot beat AH: free
    s = state_for(L2, "7H", 1, 0, bids=["take"], options=opts)
    play(s, "AS 7S AD")
    assert legal(s) == ["7H", "KH", "QH"]       # still must trump a plain winner
    s = state_for(L1, "JH", 1, 0, bids=["take"], options=opts)
    play(s, "AS QH")
    assert legal(s) == ["AH", "TH"]             # can beat: must beat


def test_partner_winning_frees_off():
    s = state_for(L2, "7H", 1, 0, bids=["take"], options={"partner_winning_frees": False})
    play(s, "AS 7S")
    assert legal(s) == ["8H", "AH"]
    s = state_for(L2, "7H", 1, 0, bids=["take"])
    play(s, "AS 7S")
    assert len(legal(s)) == 8


# ------------------------------------------------------------------ declarations

def test_declarations_off():
    s = full_hand(SUITS4, PLAY_S4, options={"declarations": "off"})
    assert tuple(s.declaration_values) == (0, 0, 0, 0)
    assert s.summary()["declarations"] is None
    assert s.hand_score == (0, 162 + 20 + 100)          # belote and capot remain


def _choice_hand(decisions):
    """SUITS4 with declarations='choice'; decisions[seat] is 'declare' or 'pass'."""
    s = state_for(SUITS4, "JH", 1, 0, bids=["take"], options={"declarations": "choice"})
    seen = []
    for card in PLAY_S4.split():
        if s.phase == "declare":
            seat = s.to_act
            assert s.legal_action_strings() == ["declare", "pass"]
            assert seat not in seen
            seen.append(seat)
            s.apply_action(decisions[seat])
            assert s.phase == "play" and s.to_act == seat
        s.apply_action(card)
    assert s.is_terminal()
    return s, seen


def test_declarations_choice_decided_before_first_card():
    s = state_for(SUITS4, "JH", 1, 0, bids=["take"], options={"declarations": "choice"})
    assert s.phase == "declare" and s.to_act == 2
    assert s.legal_action_strings() == ["declare", "pass"]
    with pytest.raises(Exception):
        s.apply_action("7D")
    s, seen = _choice_hand({0: "declare", 1: "declare", 2: "declare", 3: "declare"})
    assert seen == [2, 3, 0, 1]
    assert s.hand_score == (0, 482)


def test_declarations_choice_only_declared_count():
    # trump run of seat 1 not declared: the remaining runs of 8 (all plain, top A) tie
    s, _ = _choice_hand({0: "declare", 1: "pass", 2: "declare", 3: "declare"})
    assert s.summary()["declarations"] is None
    assert s.hand_score == (0, 162 + 20 + 100)
    # only team 0 declares: its 200 score although it took no trick
    s, _ = _choice_hand({0: "declare", 1: "pass", 2: "declare", 3: "pass"})
    assert s.summary()["declarations"] == {"team": 0, "value": 200}
    assert s.hand_score == (200, 162 + 20 + 100)
    # only seat 3 declares
    s, _ = _choice_hand({0: "pass", 1: "pass", 2: "pass", 3: "declare"})
    assert s.hand_score == (0, 162 + 100 + 20 + 100)


def test_declarations_choice_no_decision_without_declarations():
    s = state_for(MADE, "JH", 1, 0, bids=["take"], options={"declarations": "choice"})
    assert s.phase == "play"
    play(s, PLAY_M)
    assert s.hand_score == (66, 96)


# ------------------------------------------------------------------ scoring switches

def test_litige_pot_off():
    s = full_hand(LIT, PLAY_L, options={"litige_pot": False})
    assert list(s.card_points) == [81, 81]
    assert s.outcome == "failed"
    assert s.hand_score == (162, 0)
    assert s.litige_pot == 0
    with pytest.raises(OptionError):
        State("balout", seed=1, options={"litige_pot": False}, litige_pot=5)


def test_capot_250_in_balout():
    s = full_hand(SUITS4, PLAY_S4, options={"capot": "250_all_tricks"})
    assert s.hand_score == (0, 250 + 200 + 20)
    # the defence won a zero-point trick: no capot under the 250 rule
    s = full_hand(CAPZ, PLAY_CAPZ, options={"capot": "250_all_tricks"})
    assert s.hand_score == (0, 162 + 200 + 20)
    assert s.summary()["capot"] is None


def test_capot_plus100_in_belote():
    s = state_for(CAPZ, "JH", 1, 1, "belote", ["pass", "pass", "pass", "take"],
                  options={"capot": "plus100_zero_points"})
    play(s, PLAY_CAPZ)
    assert s.hand_score == (0, 162 + 200 + 20 + 100)
    assert s.summary()["capot"] == 1


def test_declaration_order_switch():
    s = state_for(LV, "JH", 1, 0, bids=["take"], options={"declaration_order": "value_first"})
    assert tuple(s.scoring_declarations) == (1, 150)
    s = state_for(LV, "JH", 1, 0, "belote", ["take"], options={"declaration_order": "length_first"})
    assert tuple(s.scoring_declarations) == (0, 100)


def test_contract_counts_declarations_off_in_belote():
    s = state_for(LIT9, "JH", 1, 1, "belote", ["pass", "pass", "pass", "take"],
                  options={"contract_counts_declarations": False})
    play(s, PLAY_F9)
    assert list(s.card_points) == [91, 71]
    assert s.outcome == "failed"
    assert s.hand_score == (162 + 150, 0)


@pytest.mark.parametrize("variant,target,before,winner", [
    ("balout", 600, (434, 0), None),
    ("balout", 600, (534, 0), 0),
    ("balout", 2000, (1934, 0), 0),
    ("belote", 500, (434, 0), 0),
    ("belote", 500, (433, 0), None),
])
def test_target(variant, target, before, winner):
    bids = ["take"] if variant == "balout" else ["pass", "pass", "pass", "take"]
    dealer = 0 if variant == "balout" else 1
    s = state_for(MADE, "JH", 1, dealer, variant, bids, options={"target": target}, match_score=before)
    play(s, PLAY_M)
    assert s.match_score == (before[0] + 66, before[1] + 96)
    assert s.match_winner == winner
    assert Match(variant, options={"target": target}).target == target


# ------------------------------------------------------------------ bad options

@pytest.mark.parametrize("variant,options,words", [
    ("balout", {"no_such_option": True}, ["no_such_option", "forced_take_on_jack"]),
    ("balout", {"sun_overcall": True}, ["sun_overcall", "baloot"]),
    ("balout", {"doubling": False}, ["doubling", "baloot"]),
    ("belote", {"three_multiplier": 2}, ["three_multiplier", "baloot"]),
    ("balout", {"forced_take_on_jack": "maybe"}, ["forced_take_on_jack", "true/false"]),
    ("balout", {"forced_take_on_jack": 1}, ["forced_take_on_jack", "true/false"]),
    ("belote", {"undertrump": None}, ["undertrump", "true/false"]),
    ("balout", {"first_lead": "after_me"}, ["first_lead", "'after_taker'", "'after_dealer'"]),
    ("balout", {"first_lead": 1}, ["first_lead", "'after_taker'"]),
    ("balout", {"declarations": "manual"}, ["declarations", "'auto'", "'off'", "'choice'"]),
    ("balout", {"capot": "kaboot"}, ["capot", "'plus100_zero_points'", "'250_all_tricks'"]),
    ("belote", {"declaration_order": "random"}, ["declaration_order", "'length_first'", "'value_first'"]),
    ("balout", {"target": 550}, ["target", "500 to 2000 in steps of 100"]),
    ("balout", {"target": 400}, ["target", "500 to 2000"]),
    ("belote", {"target": 2100}, ["target", "500 to 2000"]),
    ("balout", {"target": "500"}, ["target", "500 to 2000"]),
    ("balout", {"target": True}, ["target"]),
    ("balout", {"target": 500.0}, ["target"]),
    ("belote", {"litige_pot": "yes"}, ["litige_pot", "true/false"]),
])
def test_bad_options_raise(variant, options, words):
    for make in (lambda: State(variant, seed=1, options=options),
                 lambda: Match(variant, options=options),
                 lambda: resolve(variant, options)):
        with pytest.raises(OptionError) as e:
            make()
        msg = str(e.value)
        for w in words:
            assert w in msg, (w, msg)


@pytest.mark.parametrize("options", [["target", 500], "target=500", 5])
def test_options_must_be_a_mapping(options):
    with pytest.raises(OptionError):
        State("balout", seed=1, options=options)


def test_unknown_variant():
    with pytest.raises(OptionError) as e:
        State("bridge", seed=1)
    assert "balout" in str(e.value) and "belote" in str(e.value)


def test_option_values_on_off_accepted():
    s = State("balout", seed=1, options={"undertrump": "off", "litige_pot": "on"})
    assert s.options["undertrump"] is False and s.options["litige_pot"] is True


def test_option_cache_does_not_confuse_equal_values_of_other_types():
    """1 == True and 500.0 == 500 in Python; only the bool and the int are valid."""
    State("balout", options={"forced_take_on_jack": True, "target": 500})
    with pytest.raises(OptionError):
        State("balout", options={"forced_take_on_jack": 1})
    with pytest.raises(OptionError):
        State("balout", options={"target": 500.0})
