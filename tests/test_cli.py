"""The ``balout`` command line: replay, --json, errors, --version, usage."""
import json
import random
import subprocess
import sys

import pytest

import balout
from balout import Match, State
from balout.records import dump


def run(*args, timeout=60):
    p = subprocess.run([sys.executable, "-m", "balout", *map(str, args)], capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def play_match(variant, seed, hands):
    m = Match(variant, seed=seed)
    rng = random.Random(seed)
    summaries = []
    while len(m.hands) < hands and not m.is_over:
        s = m.new_hand()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        summaries.append(m.add_hand(s))
    return m.records(), summaries


@pytest.fixture(scope="module")
def good_file(tmp_path_factory):
    recs, summaries = play_match("balout", 5, 3)
    path = tmp_path_factory.mktemp("cli") / "match.jsonl"
    dump(recs, path)
    return path, recs, summaries


def test_replay_json(good_file):
    path, recs, summaries = good_file
    rc, out, err = run("replay", path, "--json")
    assert rc == 0, err
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == len(recs) == 3
    assert [json.loads(line) for line in lines] == summaries
    # --json before the file works too
    rc2, out2, _ = run("replay", "--json", path)
    assert rc2 == 0 and out2 == out


def test_replay_table(good_file):
    path, recs, summaries = good_file
    rc, out, err = run("replay", path)
    assert rc == 0, err
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 1 + len(recs)
    head = lines[0].split()
    assert head[0] == "hand"
    for word in ("contract", "outcome", "belote", "capot", "match", "pot"):
        assert word in head
    for k, (line, o) in enumerate(zip(lines[1:], summaries), 1):
        cells = line.split()
        assert cells[0] == str(k)
        assert o["outcome"] in cells
        assert f"{o['match_score'][0]}-{o['match_score'][1]}" in cells
        assert f"{o['hand_score'][0]}-{o['hand_score'][1]}" in cells
        c = o["contract"]
        if c is not None:
            assert f"{c['kind']}:{c['trump']}" in line and f"by {c['bidder']}" in line
    # not JSON
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[1])


def test_replay_table_unfinished_hand_shows_next(tmp_path):
    s = State("baloot", seed=0)
    rec = dict(s.to_record(), bids=["hokm", "pass", "pass", "pass"])
    path = tmp_path / "pos.jsonl"
    dump([rec], path)
    rc, out, err = run("replay", path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[1].split()[0] == "1" and "unfinished" in lines[1]
    assert lines[-1] == "next: seat 2 to act; legal: double pass"
    rc, out, err = run("replay", path, "--json")
    assert json.loads(out)["next"] == {"seat": 2, "legal": ["double", "pass"]}


def test_replay_json_array_file(tmp_path, good_file):
    _, recs, summaries = good_file
    path = tmp_path / "array.json"
    path.write_text(json.dumps(recs, indent=1), encoding="utf-8")
    rc, out, err = run("replay", path, "--json")
    assert rc == 0, err
    assert [json.loads(x) for x in out.splitlines()] == summaries


def test_replay_missing_file(tmp_path):
    missing = tmp_path / "no-such-file.jsonl"
    rc, out, err = run("replay", missing)
    assert rc != 0
    assert out == ""
    assert "no-such-file.jsonl" in err
    assert "Traceback" not in err
    assert err.startswith("balout replay: error:")
    rc, out, err = run("replay", missing, "--json")
    assert rc != 0
    assert "no-such-file.jsonl" in err and "Traceback" not in err
    (line,) = out.splitlines()
    assert "no-such-file.jsonl" in json.loads(line)["error"]["reason"]


def test_replay_directory_is_an_error(tmp_path):
    rc, out, err = run("replay", tmp_path)
    assert rc != 0
    assert "Traceback" not in err
    assert str(tmp_path) in err


def test_replay_invalid_json_names_line(tmp_path, good_file):
    _, recs, _ = good_file
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(recs[0]) + "\n" + json.dumps(recs[1]) + "\n{not json\n",
                    encoding="utf-8")
    rc, out, err = run("replay", path)
    assert rc != 0
    assert "line 3" in err
    assert "JSON" in err
    assert "Traceback" not in err
    rc, out, err = run("replay", path, "--json")
    assert rc != 0
    lines = out.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["error"]["place"] == "line 3"


def test_replay_not_utf8(tmp_path):
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\x80\x81\xfe\xff")
    rc, out, err = run("replay", path)
    assert rc != 0
    assert "UTF-8" in err and "Traceback" not in err


@pytest.mark.parametrize("text", ["[" * 100000, '{"dealer": ' + "9" * 5000 + "}"])
def test_replay_hostile_json_does_not_crash(tmp_path, text):
    # section 6: no input ever crashes the process (no traceback)
    path = tmp_path / "hostile.jsonl"
    path.write_text(text, encoding="utf-8")
    rc, out, err = run("replay", path)
    assert rc == 1
    assert "Traceback" not in err
    assert err.startswith("balout replay: error:")


def test_replay_options_null_does_not_crash(tmp_path, good_file):
    _, recs, _ = good_file
    path = tmp_path / "nullopts.jsonl"
    path.write_text(json.dumps(dict(recs[0], options=None)) + "\n", encoding="utf-8")
    rc, out, err = run("replay", path)
    assert "Traceback" not in err
    assert rc in (0, 1)


def test_replay_illegal_action(tmp_path, good_file):
    _, recs, summaries = good_file
    bad = dict(recs[1])
    s = State.from_record(dict(bad, plays=bad["plays"][:17]))
    legal = s.legal_action_strings()
    hand = {str(c) for c in s.hand(s.to_act)}
    intruder = next(c for c in balout.CARDS if str(c) not in hand and c not in s.played)
    bad["plays"] = bad["plays"][:17] + [str(intruder)] + bad["plays"][18:]
    path = tmp_path / "illegal.jsonl"
    dump([recs[0], bad, recs[2]], path)

    rc, out, err = run("replay", path, "--json")
    assert rc != 0
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[0] == summaries[0]
    assert len(lines) == 2
    e = lines[1]["error"]
    assert e == {"place": "plays[17]", "action": str(intruder), "legal": legal,
                 "type": "card not in hand", "reason": e["reason"], "record": 1}
    assert str(intruder) in e["reason"]
    assert "plays[17]" in err and repr(str(intruder)) in err
    for c in legal:
        assert c in err
    assert "record 1" in err

    rc, out, err = run("replay", path)
    assert rc != 0
    lines = out.splitlines()
    assert len(lines) == 2  # header + the one good hand
    assert lines[1].split()[0] == "1"
    assert "plays[17]" in err and repr(str(intruder)) in err
    assert "legal: " + ", ".join(legal) in err


def test_replay_bad_record_field(tmp_path, good_file):
    _, recs, _ = good_file
    path = tmp_path / "field.jsonl"
    deck = list(recs[0]["deck"])
    deck[3] = "XX"
    path.write_text(json.dumps(dict(recs[0], deck=deck)) + "\n", encoding="utf-8")
    rc, out, err = run("replay", path, "--json")
    assert rc != 0
    (line,) = out.splitlines()
    e = json.loads(line)["error"]
    assert e["place"] == "deck[3]" and e["action"] == "XX" and e["type"] == "malformed card"
    assert "deck[3]" in err and "'XX'" in err


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    rc, out, err = run("replay", path, "--json")
    assert rc == 0 and out == "" and err == ""


def test_version():
    rc, out, err = run("--version")
    assert rc == 0
    assert out.strip() == f"balout {balout.__version__}"
    assert balout.__version__ == "0.1.0"


def test_no_command_is_a_usage_error():
    rc, out, err = run()
    assert rc == 2
    assert out == ""
    assert "usage:" in err and "COMMAND" in err


def test_unknown_command_and_missing_file_argument():
    rc, out, err = run("frobnicate")
    assert rc == 2 and "usage:" in err and "frobnicate" in err
    rc, out, err = run("replay")
    assert rc == 2 and "usage:" in err and "file" in err


def test_help(capsys):
    rc, out, err = run("--help")
    assert rc == 0 and "replay" in out
    rc, out, err = run("replay", "--help")
    assert rc == 0 and "--json" in out
    # every command's help, as printed: no argparse escape (%%) left in it
    from balout.cli import main

    for command in ("replay", "solve", "review", "simulate", "arena", "compare", "analyze"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert out.startswith(f"usage: balout {command}") and "%%" not in out, command
    assert "with a 95% interval" in " ".join(out.split())


def test_main_in_process(good_file, capsys):
    from balout.cli import main

    path, recs, summaries = good_file
    assert main(["replay", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert [json.loads(x) for x in out.splitlines()] == summaries
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


def test_review_values_every_card_of_a_match(tmp_path):
    from balout.bots import make_bot
    from balout.search import Solver
    m = Match("baloot", seed=6)
    bots = [make_bot("easy"), make_bot("random", 1)]
    while not m.is_over and len(m.records()) < 4:
        h = m.new_hand()
        while not h.is_terminal():
            h.apply_action(bots[h.to_act & 1].act(h))
        m.add_hand(h)
    path = tmp_path / "match.jsonl"
    dump(m.records(), path)
    code, stdout, stderr = run("review", str(path), "--json")
    assert code == 0, stderr
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert [r["record"] for r in rows] == list(range(len(m.records())))
    states = list(balout.records.replay_states(m.records()))
    for row, state in zip(rows, states):
        assert row["plays"] == Solver().review(state)
        assert row["cost_by_seat"] == [sum(p["cost"] for p in row["plays"] if p["seat"] == s) for s in range(4)]
        assert row["cost_by_team"] == [row["cost_by_seat"][0] + row["cost_by_seat"][2],
                                       row["cost_by_seat"][1] + row["cost_by_seat"][3]]
    assert any(sum(r["cost_by_team"]) > 0 for r in rows)      # random play gives points away
    text = run("review", str(path))[1]
    assert text.startswith("each card against the best there, double dummy") and "hand 1: card points given" in text
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"variant": "balout", "deck": []}\n')
    code, _, stderr = run("review", str(bad))
    assert code == 2 and "balout review: error:" in stderr and "Traceback" not in stderr


def test_equity_of_a_score_and_the_table():
    from balout.equity import match_equity
    code, out, err = run("equity", "--variant", "balout", "--score", "300,450", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got == {"variant": "balout", "target": 500, "score": [300, 450],
                   "equity": match_equity("balout")(300, 450)}
    assert 0.05 < got["equity"] < 0.3
    code, out, err = run("equity", "--variant", "belote", "--score", "1000,990")
    assert code == 0 and "wins 100.0% of the time" in out
    code, out, err = run("equity", "--variant", "baloot", "--json")
    table = json.loads(out)
    assert table["scores"] == [152 * k // 10 for k in range(10)]
    e = table["equity"]
    assert all(abs(e[i][i] - 0.5) < 1e-6 and abs(e[i][j] + e[j][i] - 1) < 1e-5
               for i in range(10) for j in range(10))
    code, out, err = run("equity", "--options", '{"target": 1000}')
    assert code == 0 and "a match to 1000" in out and len(out.splitlines()) == 12


@pytest.mark.parametrize("args,message", [
    (("--score", "3"), "give two scores as US,THEM"),
    (("--score", "3,-1"), "must be non-negative"),
    (("--score", "a,b"), "not an integer"),
    (("--variant", "bridge"), "invalid choice"),
    (("--options", '{"target": 7}'), "allowed: 500 to 2000"),
])
def test_equity_bad_arguments(args, message):
    code, out, err = run("equity", *args)
    assert code == 2 and message in err and out == ""
