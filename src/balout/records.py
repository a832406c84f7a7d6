"""Hand records (RULES.md section 8): load, check, export and replay."""
from __future__ import annotations

import json
import os
from typing import IO, Iterable, Iterator, List, Mapping, Optional, Union

from . import rules as _rules
from .actions import ACTION_NAMES
from .cards import card_name, parse_card
from ._files import file_path
from .errors import CardError, IllegalActionError, OptionError, RecordError
from .match import Match
from .state import State

__all__ = ["load", "loads", "dump", "check_record", "record_of", "state_from_record", "replay",
           "RECORD_FIELDS"]

RECORD_FIELDS = ("variant", "options", "dealer", "deck", "bids", "doubling", "declare", "plays")
_LISTS = {"auction": "bids", "doubling": "doubling", "declare": "declare", "play": "plays"}
_PHASE_ORDER = {"auction": 0, "doubling": 1, "declare": 2, "play": 2}


def loads(text: str) -> List[dict]:
    """Records from JSON text: one object, a list of objects, or JSON lines."""
    if not isinstance(text, str):
        raise RecordError(f"records are read from JSON text (a str), not {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] == "[":
        data = _parse_json(stripped, None)
        if not isinstance(data, list):
            raise RecordError("expected a list of records")
        return [_check_at(r, f"records[{i}]", i) for i, r in enumerate(data)]
    if stripped[0] == "{" and "\n" in stripped:
        try:  # one pretty-printed record
            whole = json.loads(stripped)
        except (ValueError, RecursionError):
            pass
        else:
            return [check_record(whole)]
    out: List[dict] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            out.append(_check_at(_parse_json(line, f"line {n}"), f"line {n}", len(out)))
    return out


def _check_at(rec, where: str, index: int) -> dict:
    """check_record for the record at `index` of a file: an error inside the
    record (its deck, a field) also says which record, as a replay does."""
    try:
        return check_record(rec, where)
    except RecordError as e:
        if e.place == where:
            raise
        raise ReplayError(e, index, []) from None


def _parse_json(text: str, place: Optional[str]):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not valid JSON: {e.msg} (column {e.colno})", place=place) from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply", place=place) from None
    except ValueError as e:  # e.g. integers too long to convert
        raise RecordError(f"not valid JSON: {e}", place=place) from None


def load(source: Union[str, os.PathLike, IO[str]]) -> List[dict]:
    """Records from a JSONL file (path or open file)."""
    if hasattr(source, "read"):
        return loads(source.read())
    source = file_path(source, "the records file", RecordError)
    try:
        with open(source, encoding="utf-8") as f:
            return loads(f.read())
    except OSError as e:
        raise RecordError(f"cannot read {source!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{source!r} is not UTF-8 text") from None


def dump(records: Iterable[Mapping], target: Union[str, os.PathLike, IO[str]]) -> None:
    """Write records as JSON lines."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if hasattr(target, "write"):
        target.write(text)
        return
    with open(file_path(target, "the records file"), "w", encoding="utf-8") as f:
        f.write(text)


def _string_list(rec: Mapping, key: str, where: str) -> list:
    value = rec.get(key, [])
    if not isinstance(value, list):
        raise RecordError(f"{key!r} must be a list of strings", place=f"{where}.{key}" if where else key)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise RecordError(f"actions are strings such as 'pass' or 'TS', not {item!r}", place=f"{key}[{i}]",
                              kind="malformed action", action=item)
    return list(value)


def check_record(rec, where: str = "") -> dict:
    """Check the shape of one record and return it with defaults filled in."""
    if not isinstance(rec, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(rec).__name__}", place=where or None)
    unknown = [k for k in rec if k not in RECORD_FIELDS]
    if unknown:
        raise RecordError(f"unknown field {unknown[0]!r}; fields are {', '.join(RECORD_FIELDS)}",
                          place=where or None)
    variant = rec.get("variant", "balout")
    options = rec.get("options")
    if options is None:
        options = {}
    try:
        _rules.resolve(variant, options)
    except OptionError as e:
        raise RecordError(str(e), place="options" if variant in _rules.VARIANTS else "variant",
                          kind="bad option") from None
    out = {"variant": variant, "options": dict(options)}
    if "dealer" in rec and rec["dealer"] is not None:
        d = rec["dealer"]
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3:
            raise RecordError(f"dealer must be a seat 0..3, not {d!r}", place="dealer")
        out["dealer"] = d
    deck = rec.get("deck")
    if not isinstance(deck, list) or len(deck) != 32:
        raise RecordError("deck must be a list of the 32 cards, top first", place="deck")
    ids = []
    for i, c in enumerate(deck):
        try:
            ids.append(parse_card(c))
        except CardError as e:
            raise RecordError(str(e), place=f"deck[{i}]", kind="malformed card", action=c) from None
    if len(set(ids)) != 32:
        dup = next(c for i, c in enumerate(ids) if c in ids[:i])
        raise RecordError(f"{card_name(dup)} appears twice in the deck", place="deck")
    out["deck"] = [card_name(c) for c in ids]
    for key in ("bids", "doubling", "declare", "plays"):
        out[key] = _string_list(rec, key, "")
    if not out["declare"]:
        del out["declare"]
    return out


def record_of(state: State) -> dict:
    """Export a hand (finished or not) as a record."""
    bids, doubling, declare, plays = state._split_history()
    rec = {
        "variant": state.variant,
        "options": _rules.explicit_options(state.variant, state.options),
        "dealer": state.dealer,
        "deck": [card_name(c) for c in state.deck],
        "bids": [ACTION_NAMES[a] for _, a in bids],
        "doubling": [ACTION_NAMES[a] for _, a in doubling],
        "plays": [ACTION_NAMES[a] for _, a in plays],
    }
    if declare:
        rec["declare"] = [ACTION_NAMES[a] for _, a in declare]
    return rec


def _has_doubling(state: State) -> bool:
    return state.variant == "baloot" and bool(state.options.get("doubling"))


def apply_record_actions(state: State, rec: Mapping) -> State:
    """Apply a checked record's actions in game order; errors name their place."""
    lists = {phase: rec.get(key, []) for phase, key in _LISTS.items()}
    if lists["doubling"] and not _has_doubling(state):
        raise IllegalActionError(lists["doubling"][0], [], "doubling in a variant without doubling",
                                 "there is no doubling in this game", place="doubling[0]")
    pos = dict.fromkeys(_LISTS, 0)
    while not state.is_terminal():
        phase = state.phase
        i = pos[phase]
        if i == len(lists[phase]):
            break
        try:
            state.apply_action(lists[phase][i])
        except IllegalActionError as e:
            raise e.at(f"{_LISTS[phase]}[{i}]") from None
        pos[phase] = i + 1
    for phase, key in _LISTS.items():
        i = pos[phase]
        if i < len(lists[phase]):
            action = lists[phase][i]
            if state.is_terminal():
                kind, reason = "hand over", "the hand is over: no action is legal"
            elif _PHASE_ORDER[phase] < _PHASE_ORDER[state.phase]:
                kind, reason = "out of order", f"the {phase} is over: the hand is at its {state.phase} phase"
            else:
                kind, reason = "out of order", f"the hand is at its {state.phase} phase; {key} come later"
            raise IllegalActionError(action, state.legal_action_strings(), kind, reason,
                                     state.to_act, place=f"{key}[{i}]")
    return state


def state_from_record(rec: Mapping, *, match_score=(0, 0), litige_pot: int = 0, cls=State) -> State:
    rec = check_record(rec)
    state = cls(rec["variant"], deck=rec["deck"], dealer=rec.get("dealer", 0), options=rec["options"],
                match_score=match_score, litige_pot=litige_pot)
    return apply_record_actions(state, rec)


class ReplayError(RecordError):
    """A replay stopped by a bad record; ``outputs`` holds the hands before it."""

    def __init__(self, error, record_index: int, outputs: list) -> None:
        self.error = error
        self.record_index = record_index
        self.outputs = outputs
        self.place = getattr(error, "place", None)
        self.kind = getattr(error, "kind", "malformed record")
        self.action = getattr(error, "action", None)
        self.legal = list(getattr(error, "legal", ()))
        self.reason = getattr(error, "reason", str(error))
        Exception.__init__(self, f"record {record_index}: {error}")

    def __reduce__(self):
        return ReplayError, (self.error, self.record_index, self.outputs)

    def to_dict(self) -> dict:
        d = self.error.to_dict() if hasattr(self.error, "to_dict") else {"reason": str(self.error)}
        d["record"] = self.record_index
        return d


def replay_states(records: Iterable[Mapping]) -> Iterator[State]:
    """Replay records as one match, in order, yielding each hand's state."""
    try:
        if isinstance(records, (str, bytes, Mapping)):
            raise TypeError
        records = iter(records)
    except TypeError:
        raise RecordError(f"records are a list of record objects, not {type(records).__name__} "
                          "(a single record goes in a list; records.load reads a file)") from None
    match: Optional[Match] = None
    prev_dealer: Optional[int] = None
    unfinished = False
    for i, raw in enumerate(records):
        rec = check_record(raw)
        if unfinished:
            raise RecordError("a record follows an unfinished hand", place=f"records[{i}]")
        if match is None:
            match = Match(rec["variant"], options=rec["options"])
        elif rec["variant"] != match.variant or dict(_rules.resolve(rec["variant"], rec["options"])[1]) != dict(match.options):
            raise RecordError("every record of a match has the same variant and options",
                              place="variant" if rec["variant"] != match.variant else "options")
        if match.is_over:
            raise RecordError(f"the match was already won by team {match.winner} "
                              f"({match.score[0]}-{match.score[1]})", place=f"records[{i}]", kind="match over")
        dealer = rec.get("dealer", 0 if prev_dealer is None else (prev_dealer + 1) & 3)
        state = match.new_hand(deck=rec["deck"], dealer=dealer)
        apply_record_actions(state, rec)
        prev_dealer = dealer
        if state.is_terminal():
            match.add_hand(state)
        else:
            unfinished = True
        yield state


def replay(records: Iterable[Mapping]) -> List[dict]:
    """Replay records as a match; the section-8 output of every hand.

    Raises :class:`ReplayError` (with the outputs before the bad record).
    """
    outputs: List[dict] = []
    states = replay_states(records)
    while True:
        try:
            state = next(states)
        except StopIteration:
            return outputs
        except (RecordError, IllegalActionError) as e:
            raise ReplayError(e, len(outputs), outputs) from None
        outputs.append(state.summary())
