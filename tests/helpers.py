"""Test helpers: build deck orders that deal chosen hands (RULES.md section 2),
and press Ctrl-C during a run.

The deck helpers re-state the dealing order independently of the core, so a
test built with them also checks the core's deal.
"""
from __future__ import annotations

import _thread
import json
import signal
import threading
import time
from pathlib import Path
from typing import Sequence, Union

from balout import CardSet, State
from balout.cards import Card, card_name

DATA = Path(__file__).parent / "data"
Cards = Union[str, Sequence]


def deck_for(hands: Sequence[Cards], offer: str, receiver: int, dealer: int = 0) -> list:
    """Deck order (card names, top first) so that, once the offer went to
    ``receiver``, seat s holds ``hands[s]`` (8 cards each; the offer is in
    ``hands[receiver]``)."""
    sets = [list(CardSet(h)) for h in hands]
    offer_card = Card(offer)
    assert all(len(h) == 8 for h in sets), "each hand has 8 cards"
    assert len(set().union(*map(set, sets))) == 32, "the four hands hold the 32 cards"
    assert offer_card in sets[receiver], "the offer is in the receiver's hand"
    rest = {s: [c for c in sets[s] if c != offer_card] for s in range(4)}
    first = {s: rest[s][:5] for s in range(4)}
    later = {s: rest[s][5:] for s in range(4)}
    order = [(dealer + i) % 4 for i in range(1, 5)]
    deck = []
    for s in order:
        deck += first[s][:3]
    for s in order:
        deck += first[s][3:5]
    deck.append(offer_card)
    for s in order:
        deck += later[s]
    assert len(deck) == 32
    return [card_name(c) for c in deck]


def state_for(hands: Sequence[Cards], offer: str, receiver: int, dealer: int = 0,
              variant: str = "balout", bids: Sequence[str] = (), **kw) -> State:
    """A state dealt so that the hands are as given, with ``bids`` applied."""
    s = State(variant, deck=deck_for(hands, offer, receiver, dealer), dealer=dealer, **kw)
    for b in bids:
        s.apply_action(b)
    return s


def play(state: State, cards: Union[str, Sequence[str]]) -> State:
    """Apply cards (a space-separated string or a list) in order."""
    for c in (cards.split() if isinstance(cards, str) else cards):
        state.apply_action(c)
    return state


def examples(variant: str) -> list:
    """The shared example cases of a variant (tests/data/<variant>.jsonl)."""
    with open(DATA / f"{variant}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def played_out_double_dummy(state: State, card: int) -> State:
    """A copy of the state with ``card`` played, then the hand played to its
    end double-dummy (each side its best card, the lowest id on ties)."""
    from balout.search import Solver

    t = state.clone()
    t.apply_action(card)
    while not t.is_terminal():
        moves = Solver().moves(t)
        t.apply_action(max(moves, key=lambda c: (moves[c], -c)))
    return t


def mean_over_worlds(state: State, rows, value) -> dict:
    """{card name: mean over the worlds (rows of hand masks) of value(world,
    card)}: what PIMC averages, worked out world by world."""
    out: dict = {}
    for row in rows:
        w = state.with_hands(row)
        for c in w.legal_actions():
            out[card_name(c)] = out.get(card_name(c), 0) + value(w, c) / len(rows)
    return out


def press_ctrl_c_once_running(delay: float) -> threading.Thread:
    """Ctrl-C ``delay`` seconds after a run has taken over Ctrl-C (its
    handler replaced Python's): a moment of the run itself, however long a
    loaded machine takes to start it."""
    def press() -> None:
        while signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            time.sleep(0.0005)
        time.sleep(delay)
        _thread.interrupt_main()

    t = threading.Thread(target=press, daemon=True)
    t.start()
    return t
