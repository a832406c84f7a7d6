"""Hand records (RULES.md section 8): load, dump, export, replay, validation."""
import io
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from helpers import deck_for  # noqa: E402

import balout  # noqa: E402
from balout import Match, RecordError, State  # noqa: E402
from balout.cards import card_name  # noqa: E402
from balout.records import (ReplayError, check_record, dump, load, loads, replay,  # noqa: E402
                            replay_states)

VARIANTS = ("balout", "belote", "baloot")
FIELDS = {"variant", "options", "dealer", "deck", "bids", "doubling", "plays"}


def play_random(state, rng, max_actions=None):
    n = 0
    while not state.is_terminal() and (max_actions is None or n < max_actions):
        state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return state


def played(variant, seed, **kw):
    return play_random(State(variant, seed=seed, **kw), random.Random(seed))


def deck_names(state):
    return [card_name(c) for c in state.deck]


def full_record(variant="balout", seed=1):
    return played(variant, seed).to_record()


def replay_error(records):
    with pytest.raises(ReplayError) as info:
        replay(records)
    return info.value


# ---------------------------------------------------------------- load / dump

def test_dump_load_round_trip_file(tmp_path):
    recs = [full_record(v, s) for v in VARIANTS for s in range(2)]
    path = tmp_path / "hands.jsonl"
    dump(recs, path)
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == len(recs)
    assert [json.loads(line) for line in text.splitlines()] == recs
    assert load(path) == recs
    assert load(str(path)) == recs


def test_dump_load_round_trip_stream():
    recs = [full_record("belote", 3), full_record("belote", 4)]
    buf = io.StringIO()
    dump(recs, buf)
    buf.seek(0)
    assert load(buf) == recs
    assert loads(buf.getvalue()) == recs


def test_loads_json_array_and_blank_lines():
    recs = [full_record("balout", 5), full_record("balout", 6)]
    assert loads(json.dumps(recs)) == recs
    assert loads("  \n" + json.dumps(recs, indent=2) + "\n\n") == recs
    text = "\n\n" + json.dumps(recs[0]) + "\n   \n\t\n" + json.dumps(recs[1]) + "\n\n"
    assert loads(text) == recs
    assert loads("") == []
    assert loads(" \n\n ") == []
    assert loads("[]") == []


def test_loads_single_pretty_printed_object():
    # section 8: "A hand is exchanged and replayed as JSON (one object ...)"
    rec = full_record("baloot", 2)
    assert loads(json.dumps(rec)) == [rec]
    assert loads(json.dumps(rec, indent=2)) == [rec]


def test_loads_fills_defaults_and_canonicalises():
    rec = full_record("balout", 7)
    minimal = {"deck": [c.lower().replace("t", "10") for c in rec["deck"]]}
    (out,) = loads(json.dumps(minimal))
    assert out == {"variant": "balout", "options": {}, "deck": rec["deck"],
                   "bids": [], "doubling": [], "plays": []}


def test_loads_invalid_json_names_line():
    rec = json.dumps(full_record("balout", 1))
    with pytest.raises(RecordError) as info:
        loads(rec + "\n\n" + '{"deck": [1, 2,' + "\n" + rec + "\n")
    assert info.value.place == "line 3"
    assert "line 3" in str(info.value)
    assert "JSON" in str(info.value)


@pytest.mark.parametrize("as_list", [False, True])
def test_loads_bad_field_names_the_record(as_list):
    """A bad field deep in a file (JSON lines or a JSON list) says which
    record, as a replay error does, and where in it."""
    good = full_record("balout", 1)
    bad = dict(good, deck=good["deck"][:3] + ["XX"] + good["deck"][4:])
    if as_list:
        text = json.dumps([good, good, bad])
    else:
        text = "\n".join([json.dumps(good), "", json.dumps(good), json.dumps(bad)]) + "\n"
    with pytest.raises(RecordError) as info:
        loads(text)
    err = info.value
    assert err.place == "deck[3]" and err.action == "XX" and err.kind == "malformed card"
    assert str(err).startswith("record 2: deck[3]: ")
    assert err.to_dict()["record"] == 2
    with pytest.raises(RecordError, match="^record 1: deck: deck must be a list"):
        loads(json.dumps(good) + "\n" + json.dumps({"variant": "balout"}))


def test_loads_bad_record_names_line():
    good = json.dumps(full_record("balout", 1))
    with pytest.raises(RecordError) as info:
        loads(good + "\n" + good + "\n" + json.dumps({"deck": [], "x": 1}) + "\n")
    assert "line 3" in str(info.value)
    assert "'x'" in str(info.value)


@pytest.mark.parametrize("text", [
    "[" * 100000,
    '{"deck": ' + "[" * 100000,
    '{"dealer": ' + "9" * 5000 + "}",
    "[" + "1" * 5000 + "]",
])
def test_loads_hostile_json_is_a_record_error(text):
    # section 6: no input ever crashes; garbage JSON is a RecordError, not
    # RecursionError / a plain ValueError from the json module
    with pytest.raises(RecordError):
        loads(text)


def test_load_missing_and_non_utf8(tmp_path):
    with pytest.raises(RecordError) as info:
        load(tmp_path / "nope.jsonl")
    assert "nope.jsonl" in str(info.value)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError) as info:
        load(bad)
    assert "UTF-8" in str(info.value)


# ---------------------------------------------------------------- dealer

def _match_records(variant, dealer, seed, hands=3):
    m = Match(variant, dealer=dealer, seed=seed)
    rng = random.Random(seed)
    summaries = []
    while len(m.hands) < hands and not m.is_over:
        summaries.append(m.add_hand(play_random(m.new_hand(), rng)))
    return m, m.records(), summaries


@pytest.mark.parametrize("variant", VARIANTS)
def test_dealer_omitted_defaults_to_0_then_previous_plus_1(variant):
    m, recs, summaries = _match_records(variant, 0, seed=11)
    assert [r["dealer"] for r in recs] == list(range(len(recs)))
    stripped = [{k: v for k, v in r.items() if k != "dealer"} for r in recs]
    assert replay(stripped) == summaries
    assert [s.dealer for s in replay_states(stripped)] == list(range(len(recs)))


def test_dealer_omitted_follows_explicit_previous_with_wrap():
    m, recs, summaries = _match_records("balout", 2, seed=12, hands=3)
    assert [r["dealer"] for r in recs] == [2, 3, 0]
    stripped = [recs[0]] + [{k: v for k, v in r.items() if k != "dealer"} for r in recs[1:]]
    assert replay(stripped) == summaries
    assert [s.dealer for s in replay_states(stripped)] == [2, 3, 0]
    # dealer null counts as omitted
    nulls = [recs[0]] + [dict(r, dealer=None) for r in recs[1:]]
    assert [s.dealer for s in replay_states(nulls)] == [2, 3, 0]


def test_dealer_omitted_on_first_record_is_seat_0():
    rec = {k: v for k, v in full_record("belote", 9).items() if k != "dealer"}
    (st,) = list(replay_states([rec]))
    assert st.dealer == 0
    # the auction starts with seat d+1 = 1
    partial = dict(rec, bids=[], plays=[])
    assert replay([partial])[0]["next"]["seat"] == 1
    assert replay([dict(partial, dealer=3)])[0]["next"]["seat"] == 0


# ---------------------------------------------------------------- export and replay

@pytest.mark.parametrize("variant", VARIANTS)
def test_export_and_replay_random_hands(variant):
    outcomes = set()
    for seed in range(60):
        s = played(variant, seed)
        rec = s.to_record()
        assert set(rec) == FIELDS
        assert rec["variant"] == variant and rec["dealer"] == 0 and rec["options"] == {}
        assert rec["deck"] == deck_names(s)
        assert len(rec["plays"]) in (0, 32)
        assert replay([rec]) == [s.summary()]
        assert replay(json.loads(json.dumps([rec]))) == [s.summary()]
        assert State.from_record(rec) == s
        outcomes.add(s.summary()["outcome"])
    assert {"made", "failed"} <= outcomes


@pytest.mark.parametrize("variant,options", [
    ("balout", {"target": 1000, "first_lead": "after_dealer"}),
    ("balout", {"litige_pot": False, "capot": "250_all_tricks"}),
    ("belote", {"declaration_order": "length_first", "contract_counts_declarations": False}),
    ("baloot", {"sun_overcall": False, "three_multiplier": 2}),
    ("baloot", {"doubling": False, "target": 100}),
])
def test_export_and_replay_with_options(variant, options):
    for seed in range(15):
        s = played(variant, seed, options=options, dealer=seed % 4)
        rec = s.to_record()
        assert rec["options"] == options
        assert rec["dealer"] == seed % 4
        assert replay([rec]) == [s.summary()]
        assert State.from_record(rec) == s


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_match_exports_and_replays(variant):
    m = Match(variant, seed=21)
    rng = random.Random(21)
    summaries = []
    while not m.is_over:
        summaries.append(m.add_hand(play_random(m.new_hand(), rng)))
    recs = m.records()
    assert replay(recs) == summaries
    assert summaries[-1]["match_score"] == m.score
    assert max(m.score) >= m.target


def test_export_with_match_context_replays_hand_score():
    s = played("balout", 4, match_score=(120, 300), litige_pot=0)
    rec = s.to_record()
    # a record carries no match score: alone it replays from 0-0 with the same hand score
    (out,) = replay([rec])
    assert out["hand_score"] == s.summary()["hand_score"]
    assert out["match_score"] == out["hand_score"]
    s2 = State.from_record(rec, match_score=(120, 300))
    assert s2 == s
    assert s2.summary() == s.summary()


# ---------------------------------------------------------------- partial records

@pytest.mark.parametrize("variant", VARIANTS)
def test_partial_records_replay_to_their_position(variant):
    checked = 0
    for seed in range(30):
        full = played(variant, seed)
        actions = full.action_history
        rng = random.Random(seed)
        for cut in sorted(rng.sample(range(len(actions)), min(6, len(actions)))):
            s = full.initial_state()
            for a in actions[:cut]:
                s.apply_action(a)
            if s.is_terminal():
                continue
            rec = s.to_record()
            (out,) = replay([rec])
            assert out == s.summary()
            assert out["outcome"] is None and out["capot"] is None
            assert out["hand_score"] == [0, 0]
            assert out["match_score"] == [0, 0] and out["litige_pot"] == 0
            assert out["next"] == {"seat": s.to_act, "legal": sorted(s.legal_action_strings())}
            assert out["next"]["legal"] == sorted(out["next"]["legal"])
            assert len(out["trick_winners"]) == s.tricks_played == len(rec["plays"]) // 4
            if s.phase == "auction":
                assert out["contract"] is None and out["declarations"] is None
            assert State.from_record(rec) == s
            checked += 1
    assert checked > 50


def test_mid_auction_position_balout():
    # dealer 0: seat 1 speaks first; offer is not a jack -> pass/take
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    deck = deck_for(hands, offer="AH", receiver=1, dealer=0)
    rec = {"variant": "balout", "deck": deck, "bids": ["pass", "pass"]}
    (out,) = replay([rec])
    assert out == {"outcome": None, "contract": None, "trick_winners": [], "card_points": [0, 0],
                   "declarations": None, "belote": None, "capot": None, "hand_score": [0, 0],
                   "match_score": [0, 0], "litige_pot": 0,
                   "next": {"seat": 3, "legal": ["pass", "take"]}}
    # round 2, after four passes: seat 1 may name any suit but the offer's (H)
    (out,) = replay([dict(rec, bids=["pass"] * 4)])
    assert out["next"] == {"seat": 1, "legal": ["pass", "take:C", "take:D", "take:S"]}


def test_jack_offer_forces_first_seat_in_balout():
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    deck = deck_for(hands, offer="JH", receiver=1, dealer=0)
    (out,) = replay([{"variant": "balout", "deck": deck}])
    assert out["next"] == {"seat": 1, "legal": ["take"]}
    err = replay_error([{"variant": "balout", "deck": deck, "bids": ["pass"]}])
    assert err.place == "bids[0]" and err.action == "pass" and err.legal == ["take"]
    (out,) = replay([{"variant": "belote", "deck": deck}])
    assert out["next"] == {"seat": 1, "legal": ["pass", "take"]}


def test_mid_doubling_position_baloot():
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    s = State("baloot", deck=deck_for(hands, offer="AS", receiver=1, dealer=0))
    assert s.to_act == 1 and str(s.offer) == "AS"
    rec = dict(s.to_record(), bids=["hokm", "pass", "pass", "pass"])
    (out,) = replay([rec])
    assert out["contract"] == {"bidder": 1, "kind": "hokm", "trump": "S", "multiplier": 1,
                               "gahwa": False}
    assert out["outcome"] is None
    # the defence decides first, by seat bidder + 1
    assert out["next"] == {"seat": 2, "legal": ["double", "pass"]}
    (out,) = replay([dict(rec, doubling=["double"])])
    assert out["contract"]["multiplier"] == 2
    assert out["next"] == {"seat": 1, "legal": ["pass", "three"]}
    (out,) = replay([dict(rec, doubling=["double", "three"])])
    assert out["contract"]["multiplier"] == 3
    assert out["next"] == {"seat": 2, "legal": ["four", "pass"]}
    (out,) = replay([dict(rec, doubling=["double", "three", "four"])])
    assert out["next"] == {"seat": 1, "legal": ["gahwa", "pass"]}
    # doubling over: the first trick is led by d+1 = seat 1
    (out,) = replay([dict(rec, doubling=["pass"])])
    assert out["contract"]["multiplier"] == 1
    assert out["next"]["seat"] == 1
    assert all(len(c) == 2 for c in out["next"]["legal"])


def test_mid_trick_position():
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    deck = deck_for(hands, offer="AH", receiver=1, dealer=0)
    # seat 1 takes hearts; balout: seat 2 (taker + 1) leads
    rec = {"variant": "balout", "deck": deck, "bids": ["take"], "plays": ["AD", "AC", "7S"]}
    (out,) = replay([rec])
    assert out["contract"] == {"bidder": 1, "kind": "trump", "trump": "H", "multiplier": 1,
                               "gahwa": False}
    assert out["trick_winners"] == [] and out["card_points"] == [0, 0]
    # seat 1 holds no diamonds but trumps: must trump (over the nothing: any trump)
    assert out["next"] == {"seat": 1, "legal": ["AH", "JH", "KH", "QH"]}
    assert out["belote"] == 1  # seat 1 holds KH QH
    (out,) = replay([dict(rec, plays=["AD", "AC", "7S", "JH"])])
    assert out["trick_winners"] == [1]
    assert out["card_points"] == [0, 11 + 11 + 20]
    assert out["next"]["seat"] == 1
    assert out["hand_score"] == [0, 0]


# ---------------------------------------------------------------- match-level errors

def test_record_after_the_match_was_won():
    for variant in VARIANTS:
        m, recs, summaries = _match_records(variant, 0, seed=31, hands=10 ** 6)
        assert m.is_over
        extra = dict(full_record(variant, 99), dealer=None)
        err = replay_error(recs + [extra])
        assert err.outputs == summaries
        assert err.place == f"records[{len(recs)}]"
        assert err.to_dict()["record"] == len(recs)
        assert "won" in str(err) and f"team {m.winner}" in str(err)


def test_record_after_an_unfinished_record():
    full = full_record("balout", 3)
    part = dict(full, plays=full["plays"][:9])
    err = replay_error([part, dict(full, dealer=1)])
    assert err.place == "records[1]"
    assert "unfinished" in str(err)
    assert len(err.outputs) == 1 and err.outputs[0]["outcome"] is None
    # an unfinished record may be the last one
    out = replay([dict(full, dealer=3), dict(part, dealer=0)])
    assert out[0]["outcome"] is not None and out[1]["outcome"] is None
    assert out[1]["match_score"] == out[0]["match_score"]


def test_records_of_a_match_share_variant_and_options():
    a = full_record("balout", 1)
    b = dict(full_record("belote", 1), dealer=1)
    err = replay_error([a, b])
    assert "same variant" in str(err)
    assert len(err.outputs) == 1
    err = replay_error([a, dict(a, dealer=1, options={"target": 1000})])
    assert "options" in str(err)
    assert len(err.outputs) == 1
    # writing a default explicitly is the same options
    out = replay([a, dict(a, dealer=1, options={"target": 500, "litige_pot": True})])
    assert len(out) == 2


# ---------------------------------------------------------------- field validation

def _check_fails(rec, place, *words):
    with pytest.raises(RecordError) as info:
        check_record(rec)
    assert info.value.place == place
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    err = replay_error([rec])
    assert err.place == place
    assert err.outputs == []
    return info.value


def test_unknown_field():
    e = _check_fails(dict(full_record(), trump="H"), None, "unknown field", "'trump'")
    assert "plays" in str(e)  # lists the fields


def test_deck_of_31_and_33_cards():
    rec = full_record()
    _check_fails(dict(rec, deck=rec["deck"][:31]), "deck", "32")
    _check_fails(dict(rec, deck=rec["deck"] + ["7S"]), "deck", "32")
    _check_fails(dict(rec, deck=None), "deck", "32")
    _check_fails(dict(rec, deck=" ".join(rec["deck"])), "deck", "32")
    r = {k: v for k, v in rec.items() if k != "deck"}
    _check_fails(r, "deck", "32")


def test_duplicate_card_in_deck():
    rec = full_record()
    deck = rec["deck"][:31] + [rec["deck"][4]]
    _check_fails(dict(rec, deck=deck), "deck", rec["deck"][4], "twice")


@pytest.mark.parametrize("bad", ["ZZ", "1S", "TX", "", "T", 7, None, ["TS"]])
def test_malformed_card_in_deck(bad):
    rec = full_record()
    deck = list(rec["deck"])
    deck[12] = bad
    e = _check_fails(dict(rec, deck=deck), "deck[12]")
    assert e.kind == "malformed card"
    assert e.action == bad


@pytest.mark.parametrize("key", ["bids", "doubling", "plays"])
@pytest.mark.parametrize("bad", [5, None, True, ["TS"], {"a": 1}])
def test_non_string_action(key, bad):
    rec = full_record("baloot", 1)
    lst = list(rec[key]) + [bad] if key == "doubling" else list(rec[key])
    if key != "doubling":
        lst[1] = bad
    idx = len(lst) - 1 if key == "doubling" else 1
    e = _check_fails(dict(rec, **{key: lst}), f"{key}[{idx}]", "string")
    assert e.action == bad


@pytest.mark.parametrize("key", ["bids", "doubling", "plays"])
def test_action_list_not_a_list(key):
    rec = full_record()
    with pytest.raises(RecordError) as info:
        check_record(dict(rec, **{key: "pass"}))
    assert key in str(info.value)
    assert "list" in str(info.value)


@pytest.mark.parametrize("bad", [4, -1, "0", 1.0, True, [0], 2 ** 70])
def test_bad_dealer(bad):
    _check_fails(dict(full_record(), dealer=bad), "dealer", "dealer", "0..3")


@pytest.mark.parametrize("options,word", [
    ({"nope": 1}, "'nope'"),
    ({"target": 550}, "550"),
    ({"target": "500"}, "'500'"),
    ({"litige_pot": "yes"}, "'yes'"),
    ({"doubling": True}, "'doubling'"),          # baloot only
    ({"capot": "kaboot"}, "'kaboot'"),
    ([["target", 500]], "mapping"),
    ("target", "mapping"),
])
def test_bad_option(options, word):
    e = _check_fails(dict(full_record(), options=options), "options", word)
    assert e.kind == "bad option"


def test_options_null_is_handled():
    # null options must not crash with a TypeError: either accepted as {} or a RecordError
    rec = dict(full_record("balout", 1), options=None)
    try:
        out = check_record(rec)
    except RecordError as e:
        assert e.place == "options"
    else:
        assert out["options"] == {}
        assert replay([rec]) == replay([full_record("balout", 1)])


@pytest.mark.parametrize("variant", ["bridge", "Balout", "", None, 3])
def test_bad_variant(variant):
    e = _check_fails(dict(full_record(), variant=variant), "variant", "variant", repr(variant))
    assert "balout, belote, baloot" in str(e)


@pytest.mark.parametrize("rec", [[], "x", 5, None])
def test_record_not_an_object(rec):
    with pytest.raises(RecordError) as info:
        check_record(rec)
    assert "object" in str(info.value)
    err = replay_error([rec])
    assert err.outputs == []


# ---------------------------------------------------------------- action places

def test_illegal_card_names_plays_index():
    s = played("balout", 1)
    rec = s.to_record()
    replay_to = s.initial_state()
    acts = s.action_history
    nbids = len(rec["bids"])
    for a in acts[:nbids + 17]:
        replay_to.apply_action(a)
    legal = replay_to.legal_action_strings()
    hand = {str(c) for c in replay_to.hand(replay_to.to_act)}
    bad_in_hand = sorted(hand - set(legal))
    not_in_hand = sorted({card_name(c) for c in range(32)} - hand - {str(c) for c in replay_to.played})
    for bad, kind in [("QQ", "malformed card"), (not_in_hand[0], "card not in hand"),
                      ("pass", None)] + ([(bad_in_hand[0], "card in hand but illegal")]
                                         if bad_in_hand else []):
        plays = rec["plays"][:17] + [bad] + rec["plays"][18:]
        err = replay_error([dict(rec, plays=plays)])
        assert err.place == "plays[17]"
        assert err.action == bad
        assert err.legal == legal
        if kind:
            assert err.kind == kind
        msg = str(err)
        assert "plays[17]" in msg and repr(bad) in msg
        for c in legal:
            assert c in msg
        assert err.outputs == []


def test_illegal_bid_names_bids_index():
    hands = ["7S 8S 9S TS 7H 8H 9H TH", "JS QS KS AS JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    deck = deck_for(hands, offer="AH", receiver=1, dealer=0)
    for bad in ["take:H", "take:S", "sun", "hokm", "TAKE", "7S", "", "double"]:
        err = replay_error([{"deck": deck, "bids": ["pass", "pass", "pass", bad]}])
        assert err.place == "bids[3]", bad
        assert err.action == bad
        assert err.legal == ["pass", "take"]
        assert "bids[3]" in str(err) and "pass, take" in str(err)
    # round 2: the offer's suit may not be named
    err = replay_error([{"deck": deck, "bids": ["pass"] * 4 + ["take:H"]}])
    assert err.place == "bids[4]"
    assert err.legal == ["pass", "take:C", "take:D", "take:S"]


def test_illegal_doubling_names_doubling_index():
    s = State("baloot", seed=0)
    rec = dict(s.to_record(), bids=["hokm", "pass", "pass", "pass"])
    for bad, legal in [("three", ["double", "pass"]), ("gahwa", ["double", "pass"]),
                       ("take", ["double", "pass"]), ("dbl", ["double", "pass"])]:
        err = replay_error([dict(rec, doubling=[bad])])
        assert err.place == "doubling[0]"
        assert err.action == bad and err.legal == legal
    err = replay_error([dict(rec, doubling=["double", "four"])])
    assert err.place == "doubling[1]" and err.legal == ["pass", "three"]


def test_doubling_in_variant_without_doubling():
    for variant, options in [("balout", {}), ("belote", {}), ("baloot", {"doubling": False})]:
        rec = dict(full_record(variant, 2), options=options)
        err = replay_error([dict(rec, doubling=["pass"])])
        assert err.place == "doubling[0]"
        assert err.action == "pass"


def test_extra_play_after_hand_ended():
    rec = full_record("belote", 5)
    assert len(rec["plays"]) == 32
    err = replay_error([dict(rec, plays=rec["plays"] + ["7S"])])
    assert err.place == "plays[32]"
    assert err.action == "7S" and err.legal == []
    assert err.kind == "hand over"
    assert "over" in str(err)


def test_extra_bid_after_cancelled_hand():
    rec = full_record("balout", 0)
    err = replay_error([dict(rec, bids=["pass"] * 9, plays=[])])
    assert err.place == "bids[8]" and err.kind == "hand over"
    (out,) = replay([dict(rec, bids=["pass"] * 8, plays=[])])
    assert out["outcome"] == "cancelled" and out["next"] is None
    err = replay_error([dict(rec, bids=["pass"] * 8, plays=["7S"])])
    assert err.place == "plays[0]" and err.kind == "hand over"


def test_extra_bid_after_the_auction_ended_is_described_correctly():
    s = State("balout", seed=0)
    s.apply_action("take")
    rec = s.to_record()
    err = replay_error([dict(rec, bids=["take", "pass"])])
    assert err.place == "bids[1]"
    assert err.action == "pass"
    assert err.legal == s.legal_action_strings()
    # the auction is over: the message must not claim that bids "come later"
    assert "come later" not in err.reason
    assert "auction" in err.reason or "over" in err.reason


def test_plays_while_the_auction_is_unfinished():
    rec = full_record("balout", 2)
    assert len(rec["bids"]) >= 2
    short = dict(rec, bids=rec["bids"][:1])
    err = replay_error([short])
    assert err.place == "plays[0]"
    assert err.action == rec["plays"][0]
    assert err.legal == ["pass", "take"] or err.legal == ["take"]
    assert "auction" in err.reason
    # baloot: plays given while the doubling is undecided
    s = State("baloot", seed=0)
    rec = dict(s.to_record(), bids=["hokm", "pass", "pass", "pass"], plays=["7S"])
    err = replay_error([rec])
    assert err.place == "plays[0]"
    assert err.legal == ["double", "pass"]
    assert "doubling" in err.reason


def test_replay_error_is_a_record_error_and_balout_error():
    err = replay_error([dict(full_record(), deck=[])])
    assert isinstance(err, RecordError) and isinstance(err, balout.BaloutError)
    assert err.record_index == 0
