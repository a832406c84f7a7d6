"""The ``balout`` command line."""
from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from . import __version__
from .errors import BaloutError


def _contract_text(c: Optional[dict]) -> str:
    if c is None:
        return "-"
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

    try:
        records = load(args.file)
        outputs = replay(records)
        error = None
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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="balout", description="Balout / Belote / Baloot rules engine")
    p.add_argument("--version", action="version", version=f"balout {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    r = sub.add_parser("replay", help="replay a JSONL file of hand records as a match")
    r.add_argument("file", help="JSON lines, one hand record per line (RULES.md section 8)")
    r.add_argument("--json", action="store_true", help="one JSON output object per line")
    r.set_defaults(func=cmd_replay)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
