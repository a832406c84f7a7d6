"""Bad input through the State API (RULES.md section 6).

Every illegal or malformed action raises a clear balout error (which move,
why, what was legal) and leaves the state unchanged; no input ever crashes.
"""
import json
import os
import random
import re
import string
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from helpers import deck_for, state_for  # noqa: E402

import balout  # noqa: E402
from balout import (ActionTypeError, BaloutError, Card, CardError, IllegalActionError,  # noqa: E402
                    OptionError, State)
from balout.cards import card_name  # noqa: E402

VARIANTS = ("balout", "belote", "baloot")
HANDS = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
         "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]


def snapshot(state):
    return (state.clone(), state.summary(), list(state.legal_actions()), bytes(state.action_history),
            state.phase, state.to_act)


def assert_unchanged(state, snap):
    before, summ, legal, hist, phase, to_act = snap
    assert state == before
    assert state.summary() == summ
    assert list(state.legal_actions()) == legal
    assert bytes(state.action_history) == hist
    assert state.phase == phase and state.to_act == to_act


def rejected(state, action, exc=IllegalActionError):
    snap = snapshot(state)
    with pytest.raises(exc) as info:
        state.apply_action(action)
    assert_unchanged(state, snap)
    return info.value


def auction_state():
    # dealer 0, offer AH (not a jack): seat 1 speaks first
    return state_for(HANDS, offer="AH", receiver=1, dealer=0)


def trick_state():
    """Seat 1 took hearts; seat 2 led AD, seat 3 AC, seat 0 7S; seat 1 (void in D) must trump."""
    s = state_for(HANDS, offer="AH", receiver=1, dealer=0, bids=["take"])
    for c in ("AD", "AC", "7S"):
        s.apply_action(c)
    assert s.to_act == 1 and s.legal_action_strings() == ["AH", "JH", "KH", "QH"]
    return s


def finished_state(variant="balout", seed=3):
    s = State(variant, seed=seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def check_message(err, action, legal):
    msg = str(err)
    assert repr(action) in msg or str(action) in msg, msg
    for name in legal:
        assert name in msg, (name, msg)
    assert err.legal == legal
    assert err.action == action


# ---------------------------------------------------------------- play phase

def test_card_not_in_hand():
    s = trick_state()
    err = rejected(s, "7C")
    assert err.kind == "card not in hand" and err.seat == 1
    check_message(err, "7C", ["AH", "JH", "KH", "QH"])
    assert "seat 1" in err.reason


def test_card_already_played_is_not_in_hand():
    s = trick_state()
    err = rejected(s, "AD")
    assert err.kind == "card not in hand"


def test_card_in_hand_but_illegal():
    s = trick_state()
    for c in ("JS", "QS", "KS", "AS"):
        err = rejected(s, c)
        assert err.kind == "card in hand but illegal"
        check_message(err, c, ["AH", "JH", "KH", "QH"])
    # the same card as an id and as a Card object
    err = rejected(s, int(Card("JS")))
    assert err.kind == "card in hand but illegal"
    assert err.action == "JS"
    err = rejected(s, Card("JS"))
    assert err.kind == "card in hand but illegal"


@pytest.mark.parametrize("bad", ["QQ", "1S", "TX", "", " ", "JHH", "J", "AHx", "\x00", "10", "ace"])
def test_malformed_card_in_play(bad):
    s = trick_state()
    err = rejected(s, bad)
    assert err.kind == "malformed card"
    check_message(err, bad, ["AH", "JH", "KH", "QH"])


@pytest.mark.parametrize("bid", ["pass", "take", "take:S", "hokm", "sun", "double", "declare"])
def test_bid_in_play_phase(bid):
    s = trick_state()
    err = rejected(s, bid)
    assert err.kind == "not a card"
    check_message(err, bid, ["AH", "JH", "KH", "QH"])


def test_legal_card_applies_in_every_accepted_spelling():
    # section 1: parsers accept 10 for T, lower case and suit symbols
    spellings = ["JH", "jh", "Jh", "jH", "J♥", "j♥"]
    for sp in spellings:
        s = trick_state()
        s.apply_action(sp)
        assert list(s.trick_winners) == [1], sp
    for sp in ["TH", "th", "10H", "10h", "T♥"]:
        s = state_for(HANDS, offer="AH", receiver=1, dealer=0, bids=["take"])
        s.apply_action("TD")
        s.apply_action("TC")
        s.apply_action(sp)  # seat 0 holds TH: void in D, trumps with TH
        assert str(s.trick[-1][1]) == "TH", sp


# ---------------------------------------------------------------- auction

@pytest.mark.parametrize("card", ["7S", "AH", "JD"])
def test_card_in_the_auction(card):
    s = auction_state()
    err = rejected(s, card)
    assert err.kind == "illegal bid"
    check_message(err, card, ["pass", "take"])


@pytest.mark.parametrize("bad", ["take:H", "take:S", "sun", "hokm", "ashkal", "double", "gahwa"])
def test_illegal_bid(bad):
    s = auction_state()
    err = rejected(s, bad)
    assert err.kind == "illegal bid"
    check_message(err, bad, ["pass", "take"])


@pytest.mark.parametrize("bad", ["QQ", "bid", "PASS", "Take", "take:X", "take:", "pass ", ""])
def test_malformed_bid(bad):
    s = auction_state()
    err = rejected(s, bad)
    assert err.kind == "malformed bid"
    check_message(err, bad, ["pass", "take"])


def test_forced_take_refuses_pass():
    s = state_for(HANDS, offer="JH", receiver=1, dealer=0)
    err = rejected(s, "pass")
    check_message(err, "pass", ["take"])


def test_illegal_doubling_decision():
    s = State("baloot", seed=0)
    for b in ("hokm", "pass", "pass", "pass"):
        s.apply_action(b)
    assert s.phase == "doubling"
    for bad in ("three", "four", "gahwa", "take", "7S"):
        err = rejected(s, bad)
        assert err.kind == "illegal doubling"
        check_message(err, bad, ["double", "pass"])


# ---------------------------------------------------------------- ids and types

@pytest.mark.parametrize("bad", [999, 50, -1, -50, 2 ** 31, 2 ** 63, 2 ** 70, -(2 ** 70)])
def test_unknown_action_id(bad):
    for s in (auction_state(), trick_state()):
        legal = s.legal_action_strings()
        err = rejected(s, bad)
        assert err.kind == "unknown action"
        check_message(err, bad, legal)
        assert "0..49" in err.reason


@pytest.mark.parametrize("bad", [True, False, None, 1.0, 32.0, 1.5, float("nan"), [32], (32,), {32},
                                 {"a": 32}, b"TS", bytearray(b"TS"), 1j, object(),
                                 np.float64(32.0), np.array([32]), np.array([32, 33])])
def test_wrong_type_action(bad):
    for s in (auction_state(), trick_state()):
        err = rejected(s, bad, ActionTypeError)
        assert isinstance(err, TypeError) and isinstance(err, BaloutError)
        msg = str(err)
        assert "int id" in msg and "string" in msg
        assert repr(bad) in msg or type(bad).__name__ in msg


@pytest.mark.parametrize("bad", [None, 1.5, [32], True])
def test_wrong_type_action_message_lists_legal_actions(bad):
    # section 6: a clear error says which move, why, and what was legal
    s = auction_state()
    err = rejected(s, bad, ActionTypeError)
    assert "pass" in str(err) and "take" in str(err)


@pytest.mark.parametrize("make", [np.int64, np.int32, np.int16, np.uint8, np.uint64, int])
def test_numpy_integer_accepted_as_id(make):
    s = auction_state()
    ref = auction_state()
    ref.apply_action(33)
    s.apply_action(make(33))  # take
    assert s == ref
    s = trick_state()
    ref = trick_state()
    jh = int(Card("JH"))
    ref.apply_action(jh)
    s.apply_action(make(jh))
    assert s == ref


@pytest.mark.parametrize("bad", [np.int64(-5), np.int64(999), np.int64(2 ** 62), np.uint64(2 ** 64 - 1),
                                 np.uint64(2 ** 63)])
def test_numpy_out_of_range_id(bad):
    s = trick_state()
    err = rejected(s, bad)
    assert err.kind == "unknown action"


class BigIndex:
    def __index__(self):
        return 2 ** 70


class BigInt(int):
    pass


@pytest.mark.parametrize("bad", [BigIndex(), BigInt(2 ** 70), BigInt(-(2 ** 70)), BigInt(999)])
def test_integer_like_out_of_range(bad):
    s = auction_state()
    err = rejected(s, bad)
    assert err.kind == "unknown action"


def test_bool_is_not_card_1():
    s = trick_state()
    # True == 1 == 8S would be a card id; it must not be taken as one, nor
    # numpy's bools (numpy before 2.x still gives np.True_ an index of 1)
    for b in (True, False, np.True_, np.False_):
        rejected(s, b, ActionTypeError)


def test_numpy_bools_are_refused_as_cards_seats_and_seeds():
    """Every integer argument refuses numpy's bools as it refuses Python's,
    whatever numpy's version."""
    with pytest.raises(CardError, match="a bool is not a card"):
        Card(np.True_)
    for call in (lambda: State("belote", seed=np.True_), lambda: State("belote", seed=1, dealer=np.True_),
                 lambda: State("belote", seed=1).view(np.True_),
                 lambda: State("belote", seed=1).resample(np.False_, seed=1)):
        with pytest.raises(OptionError, match="not a bool"):
            call()


# ---------------------------------------------------------------- hand over, undo

@pytest.mark.parametrize("variant", VARIANTS)
def test_acting_after_the_hand_is_over(variant):
    s = finished_state(variant)
    assert s.is_terminal() and s.legal_actions() == []
    for a in ("7S", "pass", 0, 32, "QQ", 999):
        err = rejected(s, a)
        assert err.kind == "hand over"
        assert err.legal == []
        assert "over" in str(err)
    rejected(s, None, ActionTypeError)


def test_acting_after_a_cancelled_hand():
    s = auction_state()
    for _ in range(8):
        s.apply_action("pass")
    assert s.is_terminal() and s.outcome == "cancelled"
    err = rejected(s, "pass")
    assert err.kind == "hand over"


def test_undo_with_no_history():
    s = auction_state()
    snap = snapshot(s)
    with pytest.raises(BaloutError) as info:
        s.undo()
    assert "nothing to undo" in str(info.value)
    assert_unchanged(s, snap)
    with pytest.raises(BaloutError):
        s.pop()
    assert_unchanged(s, snap)


def test_undo_restores_after_error():
    s = trick_state()
    before = s.clone()
    rejected(s, "QQ")
    s.apply_action("JH")
    s.undo()
    assert s == before


# ---------------------------------------------------------------- constructor

def good_deck():
    return deck_for(HANDS, offer="AH", receiver=1)


@pytest.mark.parametrize("variant", ["bridge", "BALOUT", "", None, 0, ["balout"]])
def test_unknown_variant(variant):
    with pytest.raises(OptionError) as info:
        State(variant, seed=1)
    assert "variant" in str(info.value)
    assert "balout, belote, baloot" in str(info.value)


@pytest.mark.parametrize("deck,words", [
    (lambda d: d[:31], ["32", "31"]),
    (lambda d: d + ["7S"], ["32", "33"]),
    (lambda d: [], ["32", "0"]),
    (lambda d: d[:31] + [d[0]], [None, "twice"]),
    (lambda d: d[:31] + ["ZZ"], ["'ZZ'"]),
    (lambda d: d[:31] + [None], ["NoneType"]),
    (lambda d: d[:31] + [32], ["32", "0..31"]),
    (lambda d: d[:31] + [-1], ["-1"]),
    (lambda d: 5, ["int"]),
    (lambda d: bytes(range(31)) + b"\xc8", ["0..31"]),
])
def test_bad_deck(deck, words):
    d = good_deck()
    with pytest.raises(CardError) as info:
        State("balout", deck=deck(d))
    for w in words:
        if w is None:
            w = d[0]
        assert w in str(info.value), str(info.value)


def test_good_deck_forms_agree():
    d = good_deck()
    ids = [int(Card(c)) for c in d]
    a = State("balout", deck=d)
    assert State("balout", deck=" ".join(d)) == a
    assert State("balout", deck=ids) == a
    assert State("balout", deck=bytes(ids)) == a
    assert [card_name(c) for c in a.deck] == d


@pytest.mark.parametrize("dealer,word", [(4, "4"), (-1, "-1"), ("0", "str"), (True, "bool"),
                                         (1.0, "float"), (None, "NoneType"), (2 ** 70, str(2 ** 70))])
def test_bad_dealer(dealer, word):
    with pytest.raises(OptionError) as info:
        State("balout", seed=1, dealer=dealer)
    assert "dealer" in str(info.value) and word in str(info.value)


@pytest.mark.parametrize("seed,word", [(-1, "-1"), (2 ** 64, str(2 ** 64)), ("x", "str"),
                                       (True, "bool"), (1.5, "float"), ([1], "list")])
def test_bad_seed(seed, word):
    with pytest.raises(OptionError) as info:
        State("balout", seed=seed)
    assert "seed" in str(info.value) and word in str(info.value)


def test_extreme_good_seeds():
    for seed in (0, 2 ** 64 - 1, np.uint64(2 ** 64 - 1), np.int64(5)):
        s = State("balout", seed=seed)
        assert sorted(s.deck) == list(range(32))
    assert State("balout", seed=7) == State("balout", seed=7)
    assert State("balout", seed=np.int64(7)) == State("balout", seed=7)


def test_deck_and_seed_both_given():
    with pytest.raises(OptionError) as info:
        State("balout", deck=good_deck(), seed=1)
    assert "deck" in str(info.value) and "seed" in str(info.value)


@pytest.mark.parametrize("ms,word", [((1,), "pair"), ((1, 2, 3), "pair"), (5, "pair"), (None, "pair"),
                                     ((-1, 0), "match_score[0]"), ((0, 2 ** 40), "match_score[1]"),
                                     (("a", 0), "str"), ((True, 0), "bool"), ((1.5, 0), "float")])
def test_bad_match_score(ms, word):
    with pytest.raises(OptionError) as info:
        State("balout", seed=1, match_score=ms)
    assert word in str(info.value)


@pytest.mark.parametrize("variant", ["belote", "baloot"])
def test_litige_pot_without_the_option(variant):
    with pytest.raises(OptionError) as info:
        State(variant, seed=1, litige_pot=81)
    assert "litige_pot" in str(info.value) and variant in str(info.value)
    assert State(variant, seed=1, litige_pot=0).litige_pot == 0
    with pytest.raises(OptionError):
        State("balout", seed=1, litige_pot=81, options={"litige_pot": False})
    assert State("balout", seed=1, litige_pot=81).litige_pot == 81


@pytest.mark.parametrize("pot", [-1, "81", 1.5, True])
def test_bad_litige_pot_value(pot):
    with pytest.raises(OptionError) as info:
        State("balout", seed=1, litige_pot=pot)
    assert "litige_pot" in str(info.value)


@pytest.mark.parametrize("variant,options,words", [
    ("balout", {"nope": 1}, ["'nope'", "target"]),
    ("balout", {"target": 550}, ["550", "target"]),
    ("belote", {"target": 400}, ["400"]),
    ("baloot", {"target": 51}, ["51"]),
    ("balout", {"doubling": True}, ["'doubling'", "baloot"]),
    ("belote", {"sun_overcall": False}, ["'sun_overcall'"]),
    ("baloot", {"litige_pot": True}, ["'litige_pot'"]),
    ("balout", {"litige_pot": 1}, ["litige_pot"]),
    ("balout", {"first_lead": "me"}, ["'me'"]),
    ("balout", {"capot": "kaboot"}, ["'kaboot'"]),
    ("baloot", {"three_multiplier": 4}, ["4"]),
    ("balout", [("target", 500)], ["mapping"]),
    ("balout", "target", ["mapping"]),
])
def test_bad_options(variant, options, words):
    with pytest.raises(OptionError) as info:
        State(variant, seed=1, options=options)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_errors_are_balout_errors_and_builtin_kinds():
    assert issubclass(IllegalActionError, BaloutError) and issubclass(IllegalActionError, ValueError)
    assert issubclass(ActionTypeError, TypeError)
    assert issubclass(CardError, ValueError) and issubclass(OptionError, ValueError)
    assert issubclass(balout.RecordError, BaloutError)


# ---------------------------------------------------------------- fuzz

_NAMES = ["pass", "take", "hokm", "sun", "ashkal", "double", "three", "four", "gahwa", "declare"] + \
    [f"{a}:{s}" for a in ("take", "hokm") for s in "SHDCX"] + \
    [r + s for r in "789TJQKA" for s in "SHDC"]
_ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \t\n\x00♠♥♦♣é١"


def _garbage(rng):
    k = rng.randrange(12)
    if k == 0:
        return rng.randint(-2 ** 80, 2 ** 80)
    if k == 1:
        return rng.randint(-100, 200)
    if k == 2:
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 8)))
    if k == 3:
        name = rng.choice(_NAMES)
        how = rng.randrange(4)
        if how == 0:
            return name.upper()
        if how == 1:
            return name.lower()
        if how == 2:
            return " " + name
        return name
    if k == 4:
        return rng.choice([None, True, False, 1.0, 33.0, float("inf"), float("nan"), -0.0, 1j,
                           b"pass", b"7S", bytearray(b"x"), [], [33], (), {}, set(), frozenset(),
                           object(), Ellipsis, type, int, str, NotImplemented, range(3), slice(1)])
    if k == 5:
        return rng.choice([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                           np.uint64])(rng.randrange(0, 128))
    if k == 6:
        return rng.choice([np.int64(rng.randint(-2 ** 63, 2 ** 63 - 1)),
                           np.uint64(rng.randint(0, 2 ** 64 - 1)),
                           np.uint32(rng.randint(0, 2 ** 32 - 1)),
                           np.int32(rng.randint(-2 ** 31, 2 ** 31 - 1))])
    if k == 7:
        return rng.choice([np.float32(1.0), np.float64(32.0), np.bool_(True), np.array(5),
                           np.array([1, 2]), np.str_("pass"), np.str_("ZZ")])
    if k == 8:
        return Card(rng.randrange(32))
    if k == 9:
        return rng.choice(["\ud800", "x" * 10000, "10" * 50, "♠" * 3, "٧S", "pass\x00"])
    if k == 10:
        return BigInt(rng.randint(-2 ** 80, 2 ** 80))
    return str(rng.randint(-1000, 1000))


def _random_states(variant, rng, n):
    out = []
    opts = [{}, {"declarations": "choice"}] if variant != "baloot" else [{}, {"declarations": "choice"},
                                                                         {"doubling": False}]
    for _ in range(n):
        s = State(variant, seed=rng.randrange(2 ** 32), dealer=rng.randrange(4),
                  options=rng.choice(opts))
        steps = rng.randrange(0, 45)
        while steps and not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            steps -= 1
        out.append(s)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_fuzz_garbage_actions(variant):
    rng = random.Random(f"fuzz-{variant}")
    crashes = {}
    errors = applied = 0
    for s in _random_states(variant, rng, 150):
        for _ in range(30):
            action = _garbage(rng)
            snap = snapshot(s)
            legal = list(s.legal_actions())
            try:
                s.apply_action(action)
            except BaloutError as e:
                errors += 1
                assert_unchanged(s, snap)
                if isinstance(e, IllegalActionError):
                    assert e.legal == sorted(s.legal_action_strings())
                    assert str(e)
            except Exception as e:  # noqa: BLE001 - this is what the test hunts
                key = (type(e).__name__, type(action).__name__)
                crashes.setdefault(key, (repr(action)[:60], str(e)[:120]))
                # whatever happened, the state must not have moved
                assert_unchanged(s, snap)
            else:
                applied += 1
                assert len(s.action_history) == len(snap[3]) + 1
                assert s.action_history[-1] in legal
                s.undo()
                assert_unchanged(s, snap)
    assert errors > 3000
    assert applied > 0
    assert not crashes, f"non-balout exceptions: {crashes}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_fuzz_garbage_in_records(variant):
    """Garbage actions inside records replay to balout errors only."""
    from balout.records import replay

    rng = random.Random(f"rec-{variant}")
    crashes = {}
    for s in _random_states(variant, rng, 60):
        rec = s.to_record()
        key = rng.choice(["bids", "doubling", "plays"])
        lst = list(rec[key])
        bad = _garbage(rng)
        if isinstance(bad, (np.generic, np.ndarray, BigInt, Card, bytes, bytearray, set, frozenset,
                            type, range, slice, complex)) or bad in (Ellipsis, NotImplemented) \
                or type(bad) is object:
            bad = str(bad)  # records are JSON: keep JSON-like values only
        lst.insert(rng.randrange(len(lst) + 1), bad)
        rec[key] = lst
        try:
            replay([rec])
        except BaloutError:
            pass
        except Exception as e:  # noqa: BLE001
            crashes.setdefault(type(e).__name__, (repr(bad)[:60], str(e)[:120]))
    assert not crashes, f"non-balout exceptions: {crashes}"


def _call_one(calls, rng, crashes) -> int:
    """Make one of the calls, chosen at random: 1 if it raised a balout
    error; any other exception is kept in ``crashes``."""
    name = rng.choice(sorted(calls))
    try:
        calls[name]()
    except BaloutError:
        return 1
    except Exception as e:  # noqa: BLE001 - this is what the tests hunt
        crashes.setdefault((name, type(e).__name__), str(e)[:120])
    return 0


def _budget(value):
    """Garbage for a budget, but a valid large budget made small: the test
    hunts for errors, not for long searches."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and 2 < value < 1 << 40:
        return 2
    return value


def test_action_to_string_names_any_action_id_and_refuses_the_rest():
    s = auction_state()
    assert s.action_to_string(33) == "take" and s.action_to_string(np.int64(32)) == "pass"
    assert s.action_to_string(Card("TS")) == "TS" and s.action_to_string("take:H") == "take:H"
    with pytest.raises(IllegalActionError, match=r"action ids are 0\.\.49; legal: pass, take"):
        s.action_to_string(50)
    with pytest.raises(ActionTypeError, match="1.5 is not an action"):
        s.action_to_string(1.5)


def test_with_hands_takes_card_sets_in_any_spelling_and_refuses_other_cards():
    s = trick_state()
    spelled = [str(h) for h in s.hands]
    swapped = [s.hands[0], s.hands[1], s.hands[3], s.hands[2]]  # seats 2 and 3 hold 7 cards each
    for hands in (spelled, list(s.hand_masks), np.array(s.hand_masks, dtype=np.uint32), [list(h) for h in s.hands]):
        assert s.with_hands(hands) == s
    other = s.with_hands(swapped)
    assert other.hands == tuple(swapped) and other.trick == s.trick
    snap = snapshot(s)
    for bad, words in [(spelled[0], "not one string"), (spelled[:3], "got 3"), (7, "not int"),
                       ([spelled[0] + " 7D", *spelled[1:]], "hand 0 must have 7 cards"),
                       ([*spelled[:3], spelled[2]], "two hands"),
                       ([*spelled[:3], "ZZ"], "ZZ")]:
        with pytest.raises(CardError, match=words):
            s.with_hands(bad)
    assert_unchanged(s, snap)


@pytest.mark.parametrize("variant", VARIANTS)
def test_fuzz_garbage_in_search_and_bot_arguments(variant):
    """Garbage in any argument of the search and bot API (seats, budgets,
    seeds, weights, objectives, bot names, states) or of the state's own
    methods raises a balout error and leaves the state as it was."""
    from balout.bots import ISMCTSBot, MonteCarloBot, PIMCBot, make_bot
    from balout.search import Sampler, Solver, information_set

    rng = random.Random(f"search-{variant}")
    g = lambda: _garbage(rng)  # noqa: E731
    b = lambda: _budget(_garbage(rng))  # noqa: E731
    crashes, errors = {}, 0
    for s in _random_states(variant, rng, 400):
        if s.is_terminal():
            continue
        seat = rng.randrange(4)
        calls = {
            "Sampler": lambda: Sampler(s, g()),
            "Sampler.hands": lambda: Sampler(s, seat).hands(b(), g(), rng.choice([1.0, g()]),
                                                            rng.choice([1.0, g()])),
            "Sampler.worlds": lambda: Sampler(s, seat).worlds(b(), g(), play_weight=g()),
            "information_set": lambda: information_set(s, g()),
            "Solver": lambda: Solver(g()),
            "Solver.value": lambda: Solver(10).value(g()),
            "Solver.reaches": lambda: Solver(10).reaches(s, g(), g()),
            "Solver.pimc": lambda: Solver(10).pimc(
                s, rng.choice([2, b()]), rng.choice([0, g()]), time_budget=rng.choice([None, g()]),
                objective=rng.choice(["points", g()]), bid_weight=rng.choice([1.0, g()]),
                play_weight=rng.choice([1.0, g()])),
            "make_bot": lambda: make_bot(g(), g()),
            "MonteCarloBot": lambda: MonteCarloBot(rng.choice([3, b()]), g(), rng.choice([2, b()]), g(),
                                                   bid_weight=g(), play_weight=g(), objective=g()),
            "PIMCBot": lambda: PIMCBot(b(), b(), g(), time_budget=g()),
            "ISMCTSBot": lambda: ISMCTSBot(b(), g(), b(), g()),
            "act": lambda: make_bot(rng.choice(["random", "easy", "medium"]), 1).act(g()),
            "view": lambda: s.view(g()),
            "information_state_tensor": lambda: s.information_state_tensor(rng.choice([seat, g()]), out=g()),
            "observation_tensor": lambda: s.observation_tensor(rng.choice([seat, g()]), out=g()),
            "information_state_string": lambda: s.information_state_string(g()),
            "observation_string": lambda: s.observation_string(g()),
            "legal_actions_mask": lambda: s.legal_actions_mask(g()),
            "resample": lambda: s.resample(g(), rng.choice([1, g()])),
            "action_to_string": lambda: s.action_to_string(g()),
            "string_to_action": lambda: s.string_to_action(g()),
            "hand": lambda: s.hand(g()),
            "with_hands": lambda: s.with_hands(rng.choice([g(), [g(), *s.hands[1:]], [*s.hands[:3], g()]])),
        }
        snap = snapshot(s)
        errors += _call_one(calls, rng, crashes)
        assert_unchanged(s, snap)
    assert errors > 150
    assert not crashes, f"non-balout exceptions: {crashes}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_fuzz_garbage_in_match_simulation_record_and_card_arguments(variant):
    """Garbage given to Match, simulate, simulate_matches, arena, the record
    readers and CardSet raises a balout error, never another exception."""
    from balout import Match, simulate, simulate_matches
    from balout.arena import arena
    from balout.cards import CardSet
    from balout.records import loads, replay

    rng = random.Random(f"api-{variant}")
    g = lambda: _garbage(rng)  # noqa: E731
    b = lambda: _budget(_garbage(rng))  # noqa: E731

    def threads():  # garbage, or one thread where the garbage is a valid count
        t = g()
        return 1 if isinstance(t, (int, np.integer)) and not isinstance(t, bool) and 1 <= t <= 256 else t

    deck = State(variant, seed=1).to_record()["deck"]
    crashes, errors = {}, 0
    for _ in range(300):
        m = Match(variant, seed=rng.randrange(100))
        calls = {
            "Match": lambda: Match(g(), seed=g()),
            "Match options": lambda: Match(variant, options=g(), score=g()),
            "Match.add_hand": lambda: m.add_hand(g()),
            "Match.add_hand unfinished": lambda: m.add_hand(m.new_hand()),
            "simulate": lambda: simulate(variant, b(), rng.choice(["random", g()]), seed=g(), threads=threads(),
                                         options=rng.choice([None, g()])),
            "simulate_matches": lambda: simulate_matches(variant, rng.choice([3, b(), 2 ** 70]),
                                                         rng.choice(["random", g()]), seed=g(), score=g(),
                                                         max_hands=b()),
            "arena": lambda: arena(variant, (rng.choice(["random", g()]), rng.choice(["easy", g()])),
                                   rng.choice([1, b()]), seed=g(), threads=threads(),
                                   sealed=rng.choice([False, g()]),
                                   partners=rng.choice([None, g(), ("easy", g()), (g(), "random")])),
            "State": lambda: State(variant, deck=g(), dealer=g()),
            "State.from_record": lambda: State.from_record(rng.choice([g(), {"deck": deck}]), match_score=g(),
                                                           litige_pot=g()),
            "replay": lambda: replay(rng.choice([g(), [g()]])),
            "loads": lambda: loads(g()),
            "CardSet": lambda: CardSet(g()),
        }
        errors += _call_one(calls, rng, crashes)
    assert errors > 150
    assert not crashes, f"non-balout exceptions: {crashes}"


def test_native_entry_points_refuse_none_where_a_hand_or_a_buffer_belongs():
    """The extension's typed arguments reject None themselves (a None there
    would be read as a hand or a buffer: memory that is neither)."""
    from balout import _core
    from balout.rules import resolve
    rules = resolve("belote", None)[2]
    calls = [lambda: _core.policy_action(None, 1, 0), lambda: _core.hand_row(None),
             lambda: _core.information_set(None, 0), lambda: _core.WorldSampler(None, 0),
             lambda: _core.DoubleDummy().value(None), lambda: _core.DoubleDummy().moves(None),
             lambda: _core.DoubleDummy().reaches(None, 0, 80), lambda: _core.DoubleDummy().pimc(None, 3),
             lambda: _core.mc_evaluate(None, 3, 1, 0), lambda: _core.bruteforce_value(None),
             lambda: _core.ISMCTS().search(None, 1)]
    for call in calls:
        with pytest.raises(TypeError):
            call()
    policies = np.zeros(4, np.int8)
    out = np.zeros(2, np.int32)
    for call in (lambda: _core.sim_chunk(None, policies, 1, 0, 5),
                 lambda: _core.sim_matches_chunk(None, policies, 1, 0, np.zeros(2, np.int8), out, out, out, 9)):
        with pytest.raises(TypeError):
            call()
    for call in (lambda: _core.sim_chunk(rules, None, 1, 0, 5),
                 lambda: _core.sim_matches_chunk(rules, policies, 1, 0, None, out, out, out, 9)):
        with pytest.raises(TypeError):
            call()


def test_errors_pickle_with_their_attributes():
    """Errors cross process boundaries (arena and simulation workers) whole."""
    import pickle

    from balout.errors import RecordError
    from balout.records import loads

    s = State("balout", seed=1)
    with pytest.raises(IllegalActionError) as info:
        s.apply_action("QZ")
    with pytest.raises(RecordError) as rec:
        loads('{"variant": "balout", "deck": 5}')
    for e in (info.value, info.value.at("plays[3]"), rec.value):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and str(back) == str(e) and back.to_dict() == e.to_dict()


def test_tensors_refuse_an_out_array_they_cannot_fill():
    from balout.state import OBSERVATION_TENSOR_SIZE, TENSOR_SIZE
    s = State("belote", seed=4)
    s.apply_action("take")
    before = s.information_state_tensor(1)
    readonly = np.zeros(TENSOR_SIZE, np.float32)
    readonly.flags.writeable = False
    cases = [(np.zeros(TENSOR_SIZE, np.float64), "not a float64 array of shape"),
             (np.zeros(TENSOR_SIZE + 1, np.float32), r"shape \(2776,\) for the information state tensor, not a "
                                                     r"float32 array of shape \(2777,\)"),
             (np.zeros((2, TENSOR_SIZE), np.float32)[:, 0], "not a float32 array of shape"),
             (np.zeros((2, TENSOR_SIZE), np.float32), "not a float32 array of shape"),
             (readonly, "must be a writable"), ([0.0] * TENSOR_SIZE, "not list")]
    for out, message in cases:
        with pytest.raises(OptionError, match=message):
            s.information_state_tensor(1, out=out)
    with pytest.raises(OptionError, match=rf"shape \({OBSERVATION_TENSOR_SIZE},\) for the observation tensor"):
        s.observation_tensor(1, out=np.zeros(TENSOR_SIZE, np.float32))
    assert np.array_equal(s.information_state_tensor(1), before) and not readonly.any()


def test_openspiel_module_says_what_to_install(monkeypatch):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, "pyspiel", None)          # as if OpenSpiel were not installed
    monkeypatch.delitem(sys.modules, "balout.openspiel", raising=False)
    with pytest.raises(ImportError, match=r"balout.openspiel needs OpenSpiel: pip install open_spiel"):
        importlib.import_module("balout.openspiel")


def test_a_number_given_as_a_file_is_refused_and_its_descriptor_left_open():
    """open() takes an int as a file descriptor and closes it afterwards: a
    number given where a file belongs (say 1, the terminal) must be refused,
    not read from or written to and then closed."""
    from balout import records
    from balout.analysis import run_experiment
    from balout.arena import arena, load as load_arena
    from balout.simulate import load as load_simulation

    sim = balout.simulate("belote", 10, seed=1, threads=1)
    res = arena("belote", ("easy", "random"), matches=1, seed=1, threads=1)
    report = run_experiment("forced-take", "balout", hands=2_000, seed=1, threads=1, progress=False)
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)  # a regression fails here rather than waiting on the pipe
    try:
        for fd in (read_end, write_end):
            calls = {"records.load": lambda: records.load(fd), "records.dump": lambda: records.dump([], fd),
                     "simulate load": lambda: load_simulation(fd), "Simulation.save": lambda: sim.save(fd),
                     "arena load": lambda: load_arena(fd), "ArenaResult.save": lambda: res.save(fd),
                     "analysis save": lambda: report.save(fd)}
            for name, call in calls.items():
                with pytest.raises(BaloutError, match=f"must be given as a path .* not {fd}"):
                    call()
                os.fstat(fd)  # still open
    finally:
        os.close(read_end)
        os.close(write_end)


def test_saving_into_a_missing_folder_names_the_file_asked_for(tmp_path):
    target = tmp_path / "missing" / "run.npz"
    with pytest.raises(FileNotFoundError) as info:
        balout.simulate("belote", 10, seed=1, threads=1).save(str(target))
    assert info.value.filename == str(target) and ".tmp" not in str(info.value)
    assert not target.parent.exists()


def _damaged_copies(folder, good_path, changes):
    """Copies of the .npz at ``good_path``, one per entry of ``changes``
    (name -> arrays to replace, None to drop), plus files that are no
    archive at all. Returns {file name: path}."""
    arrays = dict(np.load(good_path, allow_pickle=False))
    out = {}
    for name, change in changes.items():
        a = dict(arrays)
        for key, value in change.items():
            if value is None:
                del a[key]
            else:
                a[key] = value
        out[name] = str(folder / f"{name}.npz")
        np.savez(out[name], **a)
    (folder / "empty.npz").write_bytes(b"")
    out["empty"] = str(folder / "empty.npz")
    out["truncated"] = str(folder / "truncated.npz")
    (folder / "truncated.npz").write_bytes(open(good_path, "rb").read()[:100])
    out["npy"] = str(folder / "one.npy")
    np.save(out["npy"], np.arange(3))
    out["text"] = str(folder / "text.npz")
    (folder / "text.npz").write_text("deal_keys,deal_diffs\n1,2\n")
    return out


def test_a_damaged_arena_file_is_refused_with_what_is_wrong(tmp_path):
    """balout compare reads saved arena runs: a file that is not one, or one
    whose arrays or summary do not fit (edited, truncated, another tool's),
    is an OptionError naming the file and the fault, never a numpy or JSON
    exception from deep inside the pairing."""
    from balout.arena import arena, load, paired

    good = arena("belote", ("easy", "random"), matches=1, seed=1, threads=1)
    path = good.save(tmp_path / "good.npz")
    n = len(good.deal_diffs)
    expected = {
        "no_summary": ({"summary": None}, r"no summary in it"),
        "not_json": ({"summary": np.array("{variant")}, r"its summary is not JSON"),
        "a_list": ({"summary": np.array("[1, 2]")}, r"its summary is a JSON list, not an object"),
        "no_variant": ({"summary": np.array('{"seed": 1}')}, r"its summary has no 'variant'"),
        "one_bot": ({"summary": np.array(json.dumps({**good.summary(), "bots": ["easy"]}))},
                    r"its summary's 'bots' should be two names, got \['easy'\]"),
        "keys_shape": ({"deal_keys": np.zeros((n, 3), np.int64)}, r"deal_keys should be \(deals, 2\) integers"),
        "keys_float": ({"deal_keys": np.zeros((n, 2))}, r"deal_keys should be \(deals, 2\) integers"),
        "short_diffs": ({"deal_diffs": np.zeros(1)}, rf"deal_diffs should be {n} numbers \(one per deal\)"),
        "text_diffs": ({"card_diffs": np.array(["x"] * n)}, rf"card_diffs should be {n} numbers"),
    }
    files = _damaged_copies(tmp_path, path, {k: v[0] for k, v in expected.items()})
    expected.update({"empty": (None, "EOFError"), "truncated": (None, "BadZipFile|EOFError|ValueError"),
                     "npy": (None, r"a single array \(\.npy\), not an \.npz archive"),
                     "text": (None, "ValueError")})
    for name, (_, why) in expected.items():
        for call in (lambda: load(files[name]), lambda: paired(files[name], good), lambda: paired(good, files[name])):
            with pytest.raises(OptionError, match=rf"{re.escape(files[name])} is not an arena run saved by balout "
                                                  rf"\(.*({why})"):
                call()
    assert paired(path, good)["deals"] == n   # the good file still reads
    out = subprocess.run([sys.executable, "-m", "balout", "compare", path, files["short_diffs"]],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "deal_diffs should be" in out.stderr and "Traceback" not in out.stderr


def test_a_damaged_simulation_file_is_refused_with_what_is_wrong(tmp_path):
    from balout.simulate import load

    path = str(tmp_path / "good.npz")
    balout.simulate("belote", 10, seed=1, threads=1).save(path)
    expected = {
        "no_meta": ({"meta": None}, r"no meta in it"),
        "no_sums": ({"aggregate": None}, r"no aggregate in it"),
        "meta_list": ({"meta": np.array("[]")}, r"its meta is a JSON list, not an object"),
        "meta_text": ({"meta": np.array("variant=belote")}, r"its meta is not JSON"),
        "sums": ({"aggregate": np.zeros(3)}, r"aggregate should be \d+ integers, got shape \(3,\)"),
        "rows": ({"hands": np.zeros(10)}, r"hands should be one row of 40 bytes per hand"),
    }
    files = _damaged_copies(tmp_path, path, {k: v[0] for k, v in expected.items()})
    expected.update({"empty": (None, "EOFError"), "npy": (None, r"a single array \(\.npy\)"),
                     "truncated": (None, "BadZipFile|EOFError|ValueError"), "text": (None, "ValueError")})
    for name, (_, why) in expected.items():
        with pytest.raises(OptionError, match=rf"{re.escape(files[name])} is not a simulation saved by balout "
                                              rf"\(.*({why})"):
            load(files[name])
    assert load(path)["meta"]["variant"] == "belote"
