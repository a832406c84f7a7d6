"""The ``balout`` command line."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import List, Optional

from . import __version__
from .errors import BaloutError


def _contract_text(c: Optional[dict]) -> str:
    if c is None:
        return "-"
    if c["kind"] in ("hokm", "sun"):  # Baloot: the players' names too
        from .names import contract_label

        text = contract_label(c["kind"], c["trump"]) + f" by {c['bidder']}"
    else:
        text = c["kind"] + (f":{c['trump']}" if c["trump"] else "") + f" by {c['bidder']}"
    if c["gahwa"]:
        text += " gahwa"
    elif c["multiplier"] > 1:
        text += f" x{c['multiplier']}"
    return text


def _pair(p) -> str:
    return "-" if p is None else f"{p[0]}-{p[1]}"


def _table(outputs: List[dict]) -> str:
    head = ("hand", "contract", "outcome", "card pts", "decl", "belote", "capot", "hand score",
            "match", "pot")
    rows = [head]
    for i, o in enumerate(outputs, 1):
        d = o["declarations"]
        rows.append((
            str(i), _contract_text(o["contract"]), o["outcome"] or "unfinished",
            _pair(o["card_points"]), "-" if d is None else f"{d['value']} (team {d['team']})",
            "-" if o["belote"] is None else f"team {o['belote']}",
            "-" if o["capot"] is None else f"team {o['capot']}",
            _pair(o["hand_score"]), _pair(o["match_score"]), str(o["litige_pot"]),
        ))
    widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    for o in outputs:
        if o["next"] is not None:
            lines.append(f"next: seat {o['next']['seat']} to act; legal: {' '.join(o['next']['legal'])}")
    return "\n".join(lines)


def cmd_replay(args) -> int:
    from .records import ReplayError, load, replay

    error: Optional[BaloutError] = None
    try:
        records = load(args.file)
        outputs = replay(records)
    except ReplayError as e:
        outputs, error = e.outputs, e
    except BaloutError as e:
        outputs, error = [], e
    if args.json:
        for o in outputs:
            print(json.dumps(o))
        if error is not None:
            d = error.to_dict() if hasattr(error, "to_dict") else {"reason": str(error)}
            print(json.dumps({"error": d}))
    elif outputs:
        print(_table(outputs))
    if error is not None:
        print(f"balout replay: error: {error}", file=sys.stderr)
        return 1
    return 0


def _ci(d: dict, scale: float = 1.0, digits: int = 4) -> str:
    v, (lo, hi) = d["value"], d["ci95"]
    if v is None:
        return "-"
    return f"{v * scale:.{digits}f}  [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


def _summary_table(s: dict) -> str:
    rows = [
        ("hands", f"{s['hands']:,} ({s['played']:,} played)"),
        ("make rate", _ci(s["make_rate"])),
        ("failure rate", _ci(s["failure_rate"])),
        ("litige rate", _ci(s["litige_rate"])),
        ("cancelled rate", _ci(s["cancelled_rate"])),
        ("capot rate", _ci(s["capot_rate"])),
        ("doubled rate", _ci(s["doubled_rate"])),
    ]
    for t in (0, 1):
        rows.append((f"card points, team {t}", _ci(s["card_points"][t], digits=2)))
    for t in (0, 1):
        rows.append((f"hand score, team {t}", _ci(s["hand_score"][t], digits=2)))
    for t in (0, 1):
        rows.append((f"declarations score, team {t}", _ci(s["declarations_rate"][t])))
    for t in (0, 1):
        rows.append((f"belote, team {t}", _ci(s["belote_rate"][t])))
    rate = "-" if s["hands_per_s"] is None else f"{s['hands_per_s']:,.0f}"
    rows.append(("hands/s", f"{rate} ({s['threads']} threads, {s['seconds']:.2f} s)"))
    w = max(len(r[0]) for r in rows)
    head = f"{s['variant']}  policies {','.join(s['policies'])}  seed {s['seed']}   value  [95% interval]"
    lines = [head] + [f"{k.ljust(w)}  {v}" for k, v in rows]
    if s["interrupted"]:
        lines.append("interrupted: the figures cover the hands finished before Ctrl-C")
    return "\n".join(lines)


def cmd_simulate(args) -> int:
    from .simulate import simulate

    options = args.options
    sim = simulate(args.variant, args.hands, args.policy, seed=args.seed, threads=args.threads,
                   options=options, aggregate_only=args.out is None,
                   progress=None if args.progress is None else args.progress)
    summary = sim.summary()
    if args.out:
        sim.save(args.out)
    if args.json:
        print(json.dumps(summary))
    else:
        print(_summary_table(summary))
    return 130 if sim.interrupted else 0


def cmd_analyze(args) -> int:
    from .analysis import describe, get, names, run_experiment
    from .analysis.experiment import ExperimentError

    if args.list:
        print(describe())
        return 0
    if not args.experiment:
        raise ExperimentError("name an experiment; experiments are " + ", ".join(names())
                              + " (balout analyze --list describes them)")
    exp = get(args.experiment)
    options = args.options
    result = run_experiment(exp, args.variant, args.hands, args.policy, seed=args.seed, threads=args.threads,
                            options=options, precision=args.precision, progress=args.progress)
    if args.json:
        print(json.dumps({"experiment": result.name, "variant": result.variant, "seed": result.seed,
                          "hands": result.hands, "command": result.command(), "rows": result.records()}))
    else:
        print(result.table())
    if args.out:
        written = result.save(args.out, plots=not args.no_plots)
        files = written["data"] + written["plots"] + written["report"]
        print(f"wrote {len(files)} files to {args.out}: " + ", ".join(os.path.basename(f) for f in files),
              file=sys.stderr)
    print(f"rerun: {result.command()}", file=sys.stderr)
    return 130 if result.interrupted else 0


def _pos_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return v


def cmd_solve(args) -> int:
    from .errors import BaloutError
    from .records import load
    from .search import Solver
    from .state import State

    solver = Solver()
    status = 0
    for i, rec in enumerate(load(args.file)):
        try:
            state = State.from_record(rec)
            out = solver.solve(state)
        except BaloutError as e:
            out = {"record": i, "error": str(e)}
            status = 1
        if args.json:
            print(json.dumps(out))
        elif "error" in out:
            print(f"record {i}: error: {out['error']}")
        else:
            moves = "  ".join(f"{c}={v}" for c, v in out["moves"].items())
            print(f"record {i}: seat {out['seat']} to act, value {out['value']}:  {moves}")
    return status


def cmd_arena(args) -> int:
    from .arena import arena

    options = args.options
    bots = tuple(b.strip() for b in args.bots.split(","))
    partners = tuple(b.strip() for b in args.partners.split(",")) if args.partners is not None else None
    res = arena(args.variant, bots, args.matches, seed=args.seed, threads=args.threads, options=options,
                sealed=args.sealed, progress=args.progress, partners=partners, review=args.review)
    s = res.summary()
    if args.out:
        res.save(args.out)
    stopped = 130 if res.interrupted else 0
    if args.json:
        print(json.dumps(s))
        return stopped
    a, b = s["bots"]
    teams = " vs ".join(_teams(s["bots"], s["partners"]))
    print(f"{s['variant']}: {teams}, {s['matches']} matches ({s['matches'] // 2} duplicate pairs), "
          f"{s['hands']} hands")
    lo, hi = s["win_rate_ci95"]
    print(f"match win rate of {a}: {s['win_rate']:.3f}  [{lo:.3f}, {hi:.3f}]")
    lo, hi = s["points_diff_ci95"]
    print(f"hand score difference per deal ({a} - {b}): {s['points_diff']:+.2f}  [{lo:+.2f}, {hi:+.2f}]")
    if "card_points_diff" in s:
        lo, hi = s["card_points_diff_ci95"]
        print(f"card point difference per deal ({a} - {b}): {s['card_points_diff']:+.2f}  [{lo:+.2f}, {hi:+.2f}]")
    for key in sorted(k for k in s if k.endswith("_ms_median")):
        name = key[: -len("_ms_median")]
        print(f"decision time {name}: median {s[key]:.2f} ms, p95 {s[name + '_ms_p95']:.2f} ms")
    for key in sorted(k for k in s if k.endswith("_given_away") and s[k] is not None):
        name = key[: -len("_given_away")]
        lo, hi = s[key + "_ci95"]
        print(f"card points given away per hand, double dummy, {name}: {s[key]:.2f}  [{lo:.2f}, {hi:.2f}]")
    if res.interrupted:
        print(f"interrupted: the figures cover the {s['matches'] // 2} duplicate pairs finished before Ctrl-C")
    return stopped


def cmd_review(args) -> int:
    from .records import load, replay_states
    from .search import Solver

    solver, records = Solver(), load(args.file)
    if not args.json:
        print("each card against the best there, double dummy: the final card points of the player's team")
    for i, state in enumerate(replay_states(records)):
        plays = solver.review(state)
        by_seat = [sum(p["cost"] for p in plays if p["seat"] == s) for s in range(4)]
        by_team = [by_seat[0] + by_seat[2], by_seat[1] + by_seat[3]]
        if args.json:
            print(json.dumps({"record": i, "plays": plays, "cost_by_seat": by_seat, "cost_by_team": by_team}))
            continue
        if not plays:
            print(f"hand {i + 1}: no card played")
            continue
        seats = ", ".join(f"{s}: {c}" for s, c in enumerate(by_seat))
        print(f"hand {i + 1}: card points given away, by seat {seats} (team 0: {by_team[0]}, team 1: {by_team[1]})")
        for p in plays:
            if p["cost"] > 0:
                print(f"  trick {p['trick']}, seat {p['seat']}: {p['card']} for {p['value']}, where "
                      f"{' '.join(p['best_cards'])} made {p['best']} (-{p['cost']})")
    return 0


def _teams(bots, partners) -> List[str]:
    """An arena run's two teams by name: 'A' or 'A with C'."""
    return [bot if not partners else f"{bot} with {partners[k]}" for k, bot in enumerate(bots)]


def cmd_compare(args) -> int:
    from .arena import paired

    out = paired(args.first, args.second)
    if args.json:
        print(json.dumps(out))
        return 0
    (a, opp), (b, opp_b) = (_teams(bots, partners) for bots, partners in zip(out["bots"], out["partners"]))
    against = f"each against {opp}" if opp == opp_b else f"against {opp} and {opp_b} respectively"
    print(f"{out['variant']}, seed {out['seed']}: {a} against {b}, {against}, on {out['deals']} common deals")
    for name, label in (("points_diff", "hand score"), ("card_points_diff", "card points")):
        lo, hi = out[name + "_ci95"]
        print(f"{label} per deal, {a}'s margin minus {b}'s: {out[name]:+.2f}  [{lo:+.2f}, {hi:+.2f}]")
    return 0


def cmd_equity(args) -> int:
    from .equity import match_equity

    eq = match_equity(args.variant, args.options)
    if args.score is not None:
        us, them = args.score
        p = eq(us, them)
        if args.json:
            print(json.dumps({"variant": eq.variant, "target": eq.target, "score": [us, them], "equity": p}))
        else:
            print(f"{eq.variant}, a match to {eq.target}: a team with {us} points against {them} wins "
                  f"{p:.1%} of the time, before the next hand")
        return 0
    scores = [eq.target * k // 10 for k in range(10)]
    rows = [[eq(us, them) for them in scores] for us in scores]
    if args.json:
        print(json.dumps({"variant": eq.variant, "target": eq.target, "scores": scores, "equity": rows}))
        return 0
    print(f"{eq.variant}, a match to {eq.target}: the chance that a team wins the match, before a hand, "
          "from its score (rows) against the other team's (columns)")
    width = max(len(str(s)) for s in scores) + 1
    print(" " * width + "".join(f"{s:>6}" for s in scores))
    for us, row in zip(scores, rows):
        print(f"{us:>{width - 1}} " + "".join(f"{p:6.2f}" for p in row))
    return 0


def _score(text: str) -> tuple:
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"give two scores as US,THEM, got {text!r}")
    return _nonneg_int(parts[0].strip()), _nonneg_int(parts[1].strip())


def _nonneg_int(text: str) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative, got {v}")
    return v


def _pos_int(text: str) -> int:
    v = _nonneg_int(text)
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def _json_options(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON ({e}); give an object such as "
                                         "'{\"target\": 1000}'") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("give a JSON object of option names and values, such as "
                                         "'{\"target\": 1000}'")
    return value


def _writable_dir(path: str) -> None:
    if not os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"no such directory: {path}")
    try:  # a real write: os.access says yes to root even on read-only or virtual file systems
        tempfile.TemporaryFile(dir=path).close()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write in {path}: {e.strerror or e}") from None


def _out_file(text: str) -> str:
    """A file to write at the end of a run: its directory is checked first."""
    _writable_dir(os.path.dirname(os.path.abspath(text)))
    return text


def _out_dir(text: str) -> str:
    """A directory to write at the end of a run (made if need be)."""
    path = os.path.abspath(text)
    if os.path.exists(path) and not os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{text} is a file, not a directory")
    while not os.path.exists(path):
        path = os.path.dirname(path)
    _writable_dir(path)
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="balout", description="Balout / Belote / Baloot rules engine")
    p.add_argument("--version", action="version", version=f"balout {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    r = sub.add_parser("replay", help="replay a JSONL file of hand records as a match")
    r.add_argument("file", help="JSON lines, one hand record per line (RULES.md section 8)")
    r.add_argument("--json", action="store_true", help="one JSON output object per line")
    r.set_defaults(func=cmd_replay)
    v = sub.add_parser("solve", help="double-dummy value of (partial) hand records")
    v.add_argument("file", help="JSON lines of hand records in the play phase")
    v.add_argument("--json", action="store_true",
                   help='one {"seat", "value", "moves"} object per record')
    v.set_defaults(func=cmd_solve)
    rv = sub.add_parser("review", help="every card of played hands valued double dummy: the points each gave away")
    rv.add_argument("file", help="JSON lines of hand records, replayed as one match (as replay does)")
    rv.add_argument("--json", action="store_true",
                    help='one {"record", "plays", "cost_by_seat", "cost_by_team"} object per hand')
    rv.set_defaults(func=cmd_review)
    from .rules import VARIANTS
    ar = sub.add_parser("arena", help="duplicate matches between two bots")
    ar.add_argument("--variant", default="balout", choices=VARIANTS)
    ar.add_argument("--bots", default="medium,easy",
                    help="A,B, each among random, easy, medium, hard, cheat, pimc, ismcts, or your own bot "
                         "as FILE.py:NAME or module:NAME (NAME a bot class, or a function of the seed that "
                         "returns a bot: an object with an act(state) method)")
    ar.add_argument("--partners", default=None,
                    help="C,D: A's partner and B's, named as the bots are (default: each bot plays both "
                         "seats of its team)")
    ar.add_argument("--matches", type=_pos_int, default=10, help="duplicate pairs of matches")
    ar.add_argument("--seed", type=_nonneg_int, default=0)
    ar.add_argument("--threads", type=_pos_int, default=None, help="worker processes (default: all cores)")
    ar.add_argument("--options", type=_json_options, default=None, help="rule options as JSON")
    ar.add_argument("--sealed", action="store_true",
                    help="each bot acts on a state with the cards its seat has not seen redealt (no bot can "
                         "read a hidden card; balout's own bots decide the same either way)")
    ar.add_argument("--review", action="store_true",
                    help="also value every card against the double-dummy best: the card points each bot gives "
                         "away per hand")
    ar.add_argument("--json", action="store_true")
    ar.add_argument("--out", type=_out_file, default=None,
                    help="save the summary and the per-deal differences as .npz (for balout compare)")
    ar.add_argument("--progress", dest="progress", action="store_true", default=None,
                    help="always show the progress bar (default: on a terminal)")
    ar.add_argument("--no-progress", dest="progress", action="store_false")
    ar.set_defaults(func=cmd_arena)
    cp = sub.add_parser("compare", help="two arena runs on the same decks, deal by deal")
    cp.add_argument("first", help="an arena run saved with --out")
    cp.add_argument("second", help="another, with the same variant, options and seed")
    cp.add_argument("--json", action="store_true")
    cp.set_defaults(func=cmd_compare)
    eq = sub.add_parser("equity", help="the chance of winning the match from a score (match equity)")
    eq.add_argument("--variant", default="balout", choices=VARIANTS)
    eq.add_argument("--score", type=_score, default=None,
                    help="US,THEM: one team's score and the other's before a hand (default: a table)")
    eq.add_argument("--options", type=_json_options, default=None, help="rule options as JSON")
    eq.add_argument("--json", action="store_true")
    eq.set_defaults(func=cmd_equity)
    m = sub.add_parser("simulate", help="simulate many independent hands natively")
    m.add_argument("--variant", default="balout", choices=VARIANTS)
    m.add_argument("--hands", type=_nonneg_int, default=1_000_000, help="number of hands (default 1,000,000)")
    m.add_argument("--policy", default="random",
                   help="random or greedy; 'A,B' per team or 'A,B,C,D' per seat")
    m.add_argument("--seed", type=_nonneg_int, default=None, help="seed (default: fresh entropy, printed)")
    m.add_argument("--threads", type=_pos_int, default=None, help="threads (default: all cores)")
    m.add_argument("--options", type=_json_options, default=None,
                   help='rule options as JSON, e.g. \'{"target": 1000}\'')
    m.add_argument("--out", type=_out_file, default=None, help="save the per-hand rows as .npz")
    m.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    m.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show the progress bar (default: on a terminal for long runs)")
    m.add_argument("--no-progress", dest="progress", action="store_false")
    m.set_defaults(func=cmd_simulate)
    a = sub.add_parser("analyze", help="run a named rule-analysis experiment (--list shows them)",
                       description="Rule analysis: a named experiment over the native simulator, every "
                                   "figure with a 95% interval (docs/analysis.md).")
    a.add_argument("experiment", nargs="?", help="experiment name (see --list), or FILE.py:NAME")
    a.add_argument("--list", action="store_true", help="list the experiments and exit")
    a.add_argument("--variant", default=None, help="balout, belote or baloot (default: the experiment's first)")
    a.add_argument("--hands", type=_pos_int, default=None,
                   help="hands per run (matches in all for match experiments; default: the experiment's)")
    a.add_argument("--policy", default="random",
                   help="random or greedy; 'A,B' per team or 'A,B,C,D' per seat")
    a.add_argument("--seed", type=_nonneg_int, default=None, help="seed (default: fresh, printed for a rerun)")
    a.add_argument("--threads", type=_pos_int, default=None, help="threads per run (default: all cores)")
    a.add_argument("--options", type=_json_options, default=None, help='rule options for every run, as JSON')
    a.add_argument("--precision", type=_pos_float, default=None,
                   help="half-width for the 'needed' column (default 0.01 for rates, 1 point for means)")
    a.add_argument("--out", type=_out_dir, default=None, help="directory for CSV, Parquet, PNG plots and report.md")
    a.add_argument("--no-plots", action="store_true", help="do not draw plots with --out")
    a.add_argument("--json", action="store_true", help="print the rows as one JSON object")
    a.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show the progress bar (default: on a terminal for long runs)")
    a.add_argument("--no-progress", dest="progress", action="store_false")
    a.set_defaults(func=cmd_analyze)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BaloutError as e:
        print(f"balout {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:  # writing the results (a full disk, a path that went away)
        where = f": {e.filename}" if e.filename else ""
        print(f"balout {args.command}: error: {e.strerror or e}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
