"""Every shared example case (tests/data/*.jsonl) through records.replay and the CLI.

RULES.md section 8: a replay prints one JSON object per hand; an illegal or
malformed action is an error naming its place, the action and the legal ones.
"""
import contextlib
import io
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from helpers import examples  # noqa: E402

from balout.cli import main as cli_main  # noqa: E402
from balout.records import ReplayError, replay  # noqa: E402

VARIANTS = ("balout", "belote", "baloot")
CASES = [(v, i, case) for v in VARIANTS for i, case in enumerate(examples(v))]
IDS = [f"{v}-{i}-{case['kind']}" for v, i, case in CASES]
SUMMARY_KEYS = {"outcome", "contract", "trick_winners", "card_points", "declarations", "belote",
                "capot", "hand_score", "match_score", "litige_pot", "next"}


def test_examples_are_all_there():
    # 18 cases per variant, every kind present: a guard against silently testing nothing
    assert len(CASES) == 54
    for v in VARIANTS:
        kinds = {c["kind"] for vv, _, c in CASES if vv == v}
        assert kinds == {"hands", "matches", "positions", "illegal"}


@pytest.mark.parametrize("variant,index,case", CASES, ids=IDS)
def test_replay_matches_expected(variant, index, case):
    if case["kind"] == "illegal":
        with pytest.raises(ReplayError) as info:
            replay(case["records"])
        err = info.value
        assert err.outputs == case["expected"]
        d = err.to_dict()
        assert d["record"] == len(case["expected"])
        d.pop("record")
        assert d == case["error"]
        # the exception's own attributes agree with to_dict()
        assert err.place == case["error"]["place"]
        assert err.action == case["error"]["action"]
        assert err.legal == case["error"]["legal"]
        assert case["error"]["place"] in str(err)
        assert repr(case["error"]["action"]) in str(err)
    else:
        out = replay(case["records"])
        assert out == case["expected"]
        assert len(out) == len(case["records"])
        for o in out:
            assert set(o) == SUMMARY_KEYS
        if case["kind"] == "positions":
            assert out[-1]["outcome"] is None
            assert out[-1]["next"] is not None
            assert out[-1]["next"]["legal"] == sorted(out[-1]["next"]["legal"])
        else:
            assert all(o["next"] is None for o in out)


@pytest.mark.parametrize("variant,index,case", CASES, ids=IDS)
def test_replay_output_is_json_serialisable_and_stable(variant, index, case):
    # replaying twice gives the same answer, and the output survives a JSON round trip
    try:
        first = replay(case["records"])
    except ReplayError as e:
        first = e.outputs
    try:
        second = replay(json.loads(json.dumps(case["records"])))
    except ReplayError as e:
        second = e.outputs
    assert first == second
    assert json.loads(json.dumps(first)) == first


# ---------------------------------------------------------------- CLI

def _run_in_process(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli_main(args)
    return rc, out.getvalue(), err.getvalue()


def _run(args):
    p = subprocess.run([sys.executable, "-m", "balout", *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def cli_results(tmp_path_factory):
    """Run the CLI on every case once: --json as a subprocess (in parallel), the
    table through balout.cli.main in this process (the same code; keeps the file fast)."""
    d = tmp_path_factory.mktemp("cases")
    jobs = {}
    for v, i, case in CASES:
        path = d / f"{v}-{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in case["records"]), encoding="utf-8")
        jobs[(v, i, "json")] = ["replay", str(path), "--json"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {k: pool.submit(_run, a) for k, a in jobs.items()}
        results = {k: f.result() for k, f in futures.items()}
    for v, i, case in CASES:
        results[(v, i, "table")] = _run_in_process(["replay", str(d / f"{v}-{i}.jsonl")])
    return results


@pytest.mark.parametrize("variant,index,case", CASES, ids=IDS)
def test_cli_json_prints_expected_objects(cli_results, variant, index, case):
    rc, out, err = cli_results[(variant, index, "json")]
    lines = out.splitlines()
    objs = [json.loads(line) for line in lines]
    n = len(case["expected"])
    assert objs[:n] == case["expected"]
    if case["kind"] == "illegal":
        assert rc != 0
        assert len(objs) == n + 1
        assert set(objs[-1]) == {"error"}
        e = dict(objs[-1]["error"])
        assert e.pop("record") == n
        assert e == case["error"]
        assert case["error"]["place"] in err
    else:
        assert rc == 0, err
        assert len(objs) == n
        assert err == ""


@pytest.mark.parametrize("variant,index,case", CASES, ids=IDS)
def test_cli_table_has_header_and_one_row_per_hand(cli_results, variant, index, case):
    rc, out, err = cli_results[(variant, index, "table")]
    expected = case["expected"]
    if case["kind"] == "illegal":
        assert rc != 0
        assert case["error"]["place"] in err
        assert repr(case["error"]["action"]) in err
        for name in case["error"]["legal"]:
            assert name in err
    else:
        assert rc == 0, err
    lines = out.splitlines()
    if not expected:
        assert out.strip() == ""
        return
    header = lines[0].split()
    assert header[0] == "hand"
    for word in ("contract", "outcome", "match", "pot"):
        assert word in lines[0]
    rows = [ln for ln in lines[1:] if not ln.startswith("next:")]
    assert len(rows) == len(expected)
    for k, (row, o) in enumerate(zip(rows, expected), 1):
        cells = row.split()
        assert cells[0] == str(k)
        assert (o["outcome"] or "unfinished") in cells
        ms = f"{o['match_score'][0]}-{o['match_score'][1]}"
        hs = f"{o['hand_score'][0]}-{o['hand_score'][1]}"
        cp = f"{o['card_points'][0]}-{o['card_points'][1]}"
        assert ms in cells and hs in cells and cp in cells
        assert cells[-1] == str(o["litige_pot"])
        if o["contract"] is not None:
            assert o["contract"]["kind"] in row.lower()
            if o["contract"]["kind"] in ("sun", "hokm"):  # Baloot's own names too
                assert {"sun": "صن", "hokm": "حكم"}[o["contract"]["kind"]] in row
    nexts = [ln for ln in lines[1:] if ln.startswith("next:")]
    want = [o["next"] for o in expected if o["next"] is not None]
    assert len(nexts) == len(want)
    for ln, nx in zip(nexts, want):
        assert f"seat {nx['seat']}" in ln
        assert ln.split("legal:")[1].split() == nx["legal"]
