"""The hand state: one object from the deal to the score.

:class:`State` follows OpenSpiel's conventions (``legal_actions``,
``apply_action``, ``clone``, ``information_state_tensor``) and python-chess's
(``push``/``pop``, card sets). All rule logic runs in the native core; this
module only names things and checks arguments.
"""
from __future__ import annotations

import operator
import secrets
from dataclasses import dataclass
from typing import List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import rules as _rules
from . import _core
from ._core import DeckStream, HandState
from .actions import ACTION_NAMES, NUM_ACTIONS, action_name
from .cards import BOOLS, SUITS, Card, CardSet, card_name
from .errors import CardError, OptionError

__all__ = ["State", "Contract", "View", "OUTCOMES", "TENSOR_SIZE", "OBSERVATION_TENSOR_SIZE", "DECISION_SLOTS"]

OUTCOMES = ("made", "failed", "litige", "cancelled")
_KIND_NAMES = {"balout": ("none", "trump", "sun"), "belote": ("none", "trump", "sun"),
               "baloot": ("none", "hokm", "sun")}


class Contract(NamedTuple):
    bidder: int
    kind: str            # 'trump' (balout, belote), 'hokm' or 'sun' (baloot)
    trump: Optional[str]
    multiplier: int
    gahwa: bool

    def to_dict(self) -> dict:
        return {"bidder": self.bidder, "kind": self.kind, "trump": self.trump,
                "multiplier": self.multiplier, "gahwa": self.gahwa}


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if type(value) is int and lo <= value <= hi:
        return value
    if isinstance(value, BOOLS):
        raise OptionError(f"{name} must be an integer from {lo} to {hi}, not a bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise OptionError(f"{name} must be an integer from {lo} to {hi}, not {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise OptionError(f"{name} must be from {lo} to {hi}, got {v}")
    return v


def parse_deck(deck) -> bytes:
    """A deck order (32 distinct cards, top first) as bytes of card ids."""
    if isinstance(deck, (bytes, bytearray)):
        ids = list(deck)
    elif isinstance(deck, str):
        ids = [Card(c) for c in deck.split()]
    else:
        try:
            items = list(deck)
        except TypeError:
            raise CardError(f"a deck is a list of 32 cards, not {type(deck).__name__}") from None
        ids = [Card(c) for c in items]
    if len(ids) != 32:
        raise CardError(f"a deck has 32 cards, got {len(ids)}")
    if any(not 0 <= c < 32 for c in ids):
        raise CardError("card ids are 0..31")
    if len(set(ids)) != 32:
        dup = next(c for i, c in enumerate(ids) if c in ids[:i])
        raise CardError(f"a deck has each card once; {card_name(dup)} appears twice")
    return bytes(ids)


def seed_to_int(seed) -> int:
    """Accept an int seed in [0, 2**64) or None (fresh entropy)."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, BOOLS):
        raise OptionError("seed must be a non-negative integer, not a bool")
    try:
        s = operator.index(seed)
    except TypeError:
        raise OptionError(f"seed must be a non-negative integer, not {type(seed).__name__}") from None
    if not 0 <= s < 1 << 64:
        raise OptionError(f"seed must be from 0 to 2**64-1, got {s}")
    return s


@dataclass(frozen=True)
class View:
    """What one seat is allowed to see (RULES.md: own hand, offer, public history)."""

    seat: int
    variant: str
    phase: str
    to_act: int
    dealer: int
    hand: CardSet
    offer: Card
    offer_receiver: Optional[int]
    contract: Optional[Contract]
    bids: Tuple[Tuple[int, str], ...]
    doubling: Tuple[Tuple[int, str], ...]
    plays: Tuple[Tuple[int, Card], ...]
    trick: Tuple[Tuple[int, Card], ...]
    card_points: Tuple[int, int]
    tricks_won: Tuple[int, int]
    declarations: Mapping[int, CardSet]
    belote_seat: Optional[int]
    legal_actions: Tuple[int, ...]
    match_score: Tuple[int, int]
    litige_pot: int
    declaring: Tuple[Tuple[int, str], ...] = ()   # declarations by choice: each seat's 'declare' or 'pass'


# the tensors' layouts, fixed in the core (tensor.h); seats relative to the observer
_L = _core.TENSOR_LAYOUT
DECISION_SLOTS = _L["decision_slots"]   # a hand has about 20 non-card actions at the most (random hands: 11)
_NUM_DECISIONS = _L["num_decisions"]    # the decision action ids, 32..49
_I_HAND, _I_OFFER, _I_RECEIVER, _I_DEALER, _I_TO_ACT, _I_PHASE = (
    _L[k] for k in ("hand", "offer", "receiver", "dealer", "to_act", "phase"))
_I_DECISIONS, _I_PLAYS, _I_SHOWN, _I_BELOTE, _I_MATCH = (
    _L[k] for k in ("decisions", "plays", "shown", "belote", "match"))
TENSOR_SIZE = _L["size"]
OBSERVATION_TENSOR_SIZE = _L["observation_size"]


def _moves_text(moves) -> str:
    return " ".join(f"{seat}:{what}" for seat, what in moves) or "-"


def _offer_text(v: View) -> str:
    return f"offer {v.offer}" + (f" to {v.offer_receiver}" if v.offer_receiver is not None else "")


def _shown_text(v: View) -> List[str]:
    parts = [f"shown {s}:{cards}" for s, cards in sorted(v.declarations.items())]
    if v.belote_seat is not None:
        parts.append(f"belote {v.belote_seat}")
    return parts


def _turn_text(v: View) -> str:
    return f"{v.phase}, {v.to_act} to act" if v.to_act >= 0 else v.phase


class State(HandState):
    """One hand of ``balout``, ``belote`` or ``baloot``.

    >>> s = State("balout", seed=7)
    >>> while not s.is_terminal():
    ...     s.apply_action(s.legal_actions()[0])
    >>> s.summary()["outcome"] in ("made", "failed", "litige", "cancelled")
    True
    """

    __slots__ = ()

    def __init__(self, variant: str = "balout", *, deck=None, seed=None, dealer: int = 0,
                 options: Optional[Mapping] = None, match_score: Sequence[int] = (0, 0),
                 litige_pot: int = 0) -> None:
        variant, opts, core_rules = _rules.resolve(variant, options)
        dealer = _check_int("dealer", dealer, 0, 3)
        if deck is not None and seed is not None:
            raise OptionError("give a deck or a seed, not both")
        deck_bytes = parse_deck(deck) if deck is not None else DeckStream(seed_to_int(seed)).next_deck()
        try:
            s0, s1 = match_score
        except (TypeError, ValueError):
            raise OptionError("match_score must be a pair of integers") from None
        s0 = _check_int("match_score[0]", s0, 0, 1 << 30)
        s1 = _check_int("match_score[1]", s1, 0, 1 << 30)
        pot = _check_int("litige_pot", litige_pot, 0, 1 << 30)
        if pot and not opts.get("litige_pot"):
            raise OptionError(f"a litige pot needs the option litige_pot (variant {variant!r})")
        self._setup(variant, opts, core_rules, deck_bytes, dealer, s0, s1, pot)

    # ------------------------------------------------------------ naming

    def action_to_string(self, action: int) -> str:
        """Record name of an action id ('TS', 'take:H', 'pass'), legal now or not."""
        from .actions import to_action
        from .errors import unknown_action

        a = to_action(self, action)
        if a < 0:
            raise unknown_action(self, action)
        return action_name(a)

    def string_to_action(self, text: str) -> int:
        from .actions import to_action

        return to_action(self, text)

    def legal_action_strings(self) -> List[str]:
        """Legal actions as record names, sorted (as in the replay's ``next``)."""
        return sorted(ACTION_NAMES[a] for a in self.legal_actions())

    def with_hands(self, hands) -> "State":
        """A copy whose current hands are `hands`: four card sets (``CardSet``,
        mask, ``'JH 9H AS'`` or cards), the same cards as now, as many per seat
        as now. For worlds of a search."""
        if isinstance(hands, (str, bytes)):
            raise CardError("with_hands takes four card sets, one per seat, not one string")
        try:
            items = list(hands)
        except TypeError:
            raise CardError(f"with_hands takes four card sets, one per seat, not {type(hands).__name__}") from None
        if len(items) != 4:
            raise CardError(f"with_hands takes four card sets, one per seat; got {len(items)}")
        masks = [CardSet(h).mask for h in items]
        try:
            return super().with_hands(masks)
        except ValueError as e:  # the core's check: the same cards, as many per seat
            raise CardError(str(e)) from None

    def legal_cards(self) -> CardSet:
        """Legal cards of the seat to act (empty outside the play)."""
        if self.phase != "play":
            return CardSet()
        return CardSet.from_mask(self.legal_mask() & 0xFFFFFFFF)

    def hand(self, seat: int) -> CardSet:
        """Cards a seat holds now (the full information; see :meth:`view`)."""
        return CardSet.from_mask(self.hand_masks[_check_int("seat", seat, 0, 3)])

    @property
    def hands(self) -> Tuple[CardSet, ...]:
        return tuple(CardSet.from_mask(m) for m in self.hand_masks)

    @property
    def offer(self) -> Card:
        return Card(self.offer_id)

    @property
    def trump(self) -> Optional[str]:
        t = self.trump_id
        return SUITS[t] if t >= 0 else None

    @property
    def contract(self) -> Optional[Contract]:
        if self.bidder < 0:
            return None
        return Contract(self.bidder, _KIND_NAMES[self.variant][self.kind_id], self.trump,
                        self.multiplier, self.gahwa)

    @property
    def trick(self) -> List[Tuple[int, Card]]:
        """The trick in progress as (seat, card) pairs."""
        lead = self.leader
        return [((lead + i) & 3, Card(c)) for i, c in enumerate(self.trick_ids)]

    @property
    def played(self) -> CardSet:
        return CardSet.from_mask(self.played_mask)

    # ------------------------------------------------------------ history

    def history(self) -> List[Tuple[str, int, int]]:
        """Every action as (phase, seat, action id), in order."""
        s = self.initial_state()
        out = []
        for a in self.action_history:
            out.append((s.phase, s.to_act, a))
            s.apply_action(a)
        return out

    def _split_history(self):
        bids: List[Tuple[int, int]] = []
        doubling: List[Tuple[int, int]] = []
        declare: List[Tuple[int, int]] = []
        plays: List[Tuple[int, int]] = []
        lists = {"auction": bids, "doubling": doubling, "declare": declare, "play": plays}
        for phase, seat, a in self.history():
            lists[phase].append((seat, a))
        return bids, doubling, declare, plays

    # ------------------------------------------------------------ results

    def returns(self) -> List[int]:
        """Hand score of each seat's team (OpenSpiel's per-player returns)."""
        if not self.is_terminal():
            return [0, 0, 0, 0]
        hs = self._result()[7]
        return [hs[s & 1] for s in range(4)]

    def summary(self) -> dict:
        """The replay output object of RULES.md section 8 for this hand."""
        (outcome, dteam, dvalue, bteam, capot, _mw, cp, hs, ms, pot) = self._result()
        done = self.is_terminal()
        contract = self.contract
        dealt = self.bidder >= 0
        if done and outcome >= 0 and outcome != 3:
            decl = {"team": dteam, "value": dvalue} if dteam >= 0 else None
            belote = bteam if bteam >= 0 else None
        elif dealt:
            t, v = self.scoring_declarations
            decl = {"team": t, "value": v} if t >= 0 else None
            belote = self.belote_seat & 1 if self.belote_seat >= 0 else None
        else:
            decl, belote = None, None
        return {
            "outcome": OUTCOMES[outcome] if done else None,
            "contract": contract.to_dict() if contract else None,
            "trick_winners": list(self.trick_winners),
            "card_points": list(self.card_points),
            "declarations": decl,
            "belote": belote,
            "capot": capot if done and capot >= 0 else None,
            "hand_score": list(hs),
            "match_score": list(ms),
            "litige_pot": pot,
            "next": None if done else {"seat": self.to_act, "legal": self.legal_action_strings()},
        }

    @property
    def outcome(self) -> Optional[str]:
        return OUTCOMES[self._result()[0]] if self.is_terminal() else None

    @property
    def hand_score(self) -> Tuple[int, int]:
        return tuple(self._result()[7])

    @property
    def match_score(self) -> Tuple[int, int]:
        """Match score after this hand (before it while unfinished)."""
        return tuple(self._result()[8])

    @property
    def litige_pot(self) -> int:
        return self._result()[9]

    @property
    def match_winner(self) -> Optional[int]:
        w = self._result()[5]
        return w if w >= 0 else None

    # ------------------------------------------------------------ views

    def resample(self, seat: int, seed=None) -> "State":
        """A state that ``seat`` cannot tell from this one, drawn uniformly
        among all it could be (OpenSpiel's ``resample_from_infostate``): the
        cards the seat has not seen are redealt consistently with all it has
        seen (its hand, the offer, the public history and what the rules
        reveal), from a deck that deals them, and every action is replayed.
        Nothing in it (hands, deck, record) tells the real deal; ``seed``: an
        integer from 0 to 2**64-1, or None for fresh entropy."""
        from ._core import WorldSampler

        return WorldSampler(self, _check_int("seat", seat, 0, 3)).resample(seed_to_int(seed))

    def view(self, seat: int) -> View:
        """The information ``seat`` may see: its hand, the offer, the public history."""
        seat = _check_int("seat", seat, 0, 3)
        bids, doubling, declaring, plays = self._split_history()
        shown_seats, belote = _core.shown_to(self, seat)
        decl_cards = self.declaration_cards
        shown = {s: CardSet.from_mask(decl_cards[s]) for s in range(4) if shown_seats >> s & 1}
        return View(
            seat=seat, variant=self.variant, phase=self.phase, to_act=self.to_act,
            dealer=self.dealer, hand=self.hand(seat), offer=self.offer,
            offer_receiver=self.receiver if self.receiver >= 0 else None,
            contract=self.contract,
            bids=tuple((s, ACTION_NAMES[a]) for s, a in bids),
            doubling=tuple((s, ACTION_NAMES[a]) for s, a in doubling),
            plays=tuple((s, Card(a)) for s, a in plays),
            trick=tuple(self.trick), card_points=self.card_points, tricks_won=self.tricks_won,
            declarations=shown, belote_seat=belote if belote >= 0 else None,
            legal_actions=tuple(self.legal_actions()) if self.to_act == seat else (),
            match_score=self.match_before, litige_pot=self.pot_before,
            declaring=tuple((s, ACTION_NAMES[a]) for s, a in declaring),
        )

    def information_state_string(self, seat: int) -> str:
        """Everything ``seat`` knows, with perfect recall, as one line
        (OpenSpiel's convention; a key for tabular search): two states give
        the same string exactly when ``seat`` has the same :meth:`view` of
        them. Seats are absolute."""
        v = self.view(seat)
        parts = [f"{v.variant} seat {v.seat}", f"dealer {v.dealer}", f"hand {v.hand or '-'}", _offer_text(v),
                 "bids " + _moves_text(v.bids)]
        if v.doubling:
            parts.append("doubling " + _moves_text(v.doubling))
        if v.declaring:
            parts.append("declaring " + _moves_text(v.declaring))
        if v.plays:
            parts.append("plays " + _moves_text(v.plays))
        parts += _shown_text(v)
        parts.append(f"match {v.match_score[0]}-{v.match_score[1]} pot {v.litige_pot}")
        parts.append(_turn_text(v))
        return " | ".join(parts)

    def observation_string(self, seat: int) -> str:
        """What ``seat`` observes now, as one line (not perfect recall: the
        order of the bids and of the play is lost, as in
        :meth:`observation_tensor`). Seats are absolute."""
        v = self.view(seat)
        parts = [f"{v.variant} seat {v.seat}", f"dealer {v.dealer}", f"hand {v.hand or '-'}", _offer_text(v)]
        c = v.contract
        if c is not None:
            trump = f" {c.trump}" if c.trump else ""
            parts.append(f"contract {c.kind}{trump} by {c.bidder} x{c.multiplier}{' gahwa' if c.gahwa else ''}")
        if v.plays:
            played = {s: CardSet([card for p, card in v.plays if p == s]) for s in range(4)}
            parts.append("played " + " ".join(f"{s}:{played[s] or '-'}" for s in range(4)))
            parts.append("trick " + _moves_text(v.trick))
            parts.append(f"points {v.card_points[0]}-{v.card_points[1]} tricks {v.tricks_won[0]}-{v.tricks_won[1]}")
        parts += _shown_text(v)
        parts.append(f"match {v.match_score[0]}-{v.match_score[1]} pot {v.litige_pot}")
        parts.append(_turn_text(v))
        return " | ".join(parts)

    def legal_actions_mask(self, seat: Optional[int] = None) -> np.ndarray:
        """A uint8 vector over the ``NUM_ACTIONS`` action ids, 1 where the
        action is legal (OpenSpiel's convention); all zeros for a ``seat``
        other than the one to act, and once the hand is over."""
        if seat is not None and _check_int("seat", seat, 0, 3) != self.to_act:
            return np.zeros(NUM_ACTIONS, np.uint8)
        bits = np.frombuffer(self.legal_mask().to_bytes(8, "little"), np.uint8)
        return np.unpackbits(bits, bitorder="little")[:NUM_ACTIONS]

    def information_state_tensor(self, seat: int, out: Optional[np.ndarray] = None) -> np.ndarray:
        """A float32 vector of everything ``seat`` knows, with perfect recall
        (OpenSpiel's convention): what :meth:`view` holds, and two different
        views give two different vectors. Seats are relative to ``seat`` (0
        itself, 1 the next to play, ...). ``out``: a float32 array of shape
        ``(TENSOR_SIZE,)`` to write into (a row of a batch, say) instead of
        a new one.

        Layout (size ``TENSOR_SIZE``): own hand (32), offer (32), offer's
        receiver (4), dealer (4), seat to act (4), phase (5); the bids,
        doubling and declaring decisions in order, ``DECISION_SLOTS`` slots
        of seat (4) and decision (18, action id minus 32); the cards played in
        order, 32 slots of seat (4) and card (32); the declarations shown, by
        seat (4 x 32); an announced belote's seat (4); the own team's and the
        other team's match score and the litige pot, over the match target
        (3). Zeros where nothing is known yet."""
        return _core.information_state_tensor_of(self, _check_int("seat", seat, 0, 3), out)

    def observation_tensor(self, seat: int, out: Optional[np.ndarray] = None) -> np.ndarray:
        """A compact float32 vector of what ``seat`` observes now, seats
        relative to it (not perfect recall: the order of the play is lost).
        ``out``: a float32 array of shape ``(OBSERVATION_TENSOR_SIZE,)`` to
        write into.

        Layout: own hand (32), offer (32), cards played by each relative seat
        (4 x 32), current trick by relative seat (4 x 32), relative dealer (4),
        relative bidder (4), contract kind none/trump/sun (3), trump suit (4),
        phase (5), multiplier x1/x2/x3/x4 and gahwa (5). Size
        OBSERVATION_TENSOR_SIZE.
        """
        return _core.observation_tensor_of(self, _check_int("seat", seat, 0, 3), out)

    # ------------------------------------------------------------ records

    def to_record(self) -> dict:
        """This hand as a hand record (RULES.md section 8)."""
        from .records import record_of

        return record_of(self)

    @classmethod
    def from_record(cls, record: Mapping, *, match_score=(0, 0), litige_pot: int = 0) -> "State":
        """Replay a hand record (complete or partial) into a state."""
        from .records import state_from_record

        return state_from_record(record, match_score=match_score, litige_pot=litige_pot, cls=cls)

    # ------------------------------------------------------------ display

    def __repr__(self) -> str:
        c = self.contract
        what = f"contract={c.kind}{':' + c.trump if c and c.trump else ''} by {c.bidder}" if c else "no contract"
        return (f"<State {self.variant} phase={self.phase} to_act={self.to_act} {what} "
                f"tricks={self.tricks_played} points={list(self.card_points)}>")

    def __str__(self) -> str:
        lines = [repr(self), f"offer {self.offer}  dealer {self.dealer}"]
        for s in range(4):
            mark = "*" if s == self.to_act else " "
            lines.append(f"{mark} seat {s}: {self.hand(s)}")
        if self.trick_ids:
            lines.append("trick: " + " ".join(f"{s}:{c}" for s, c in self.trick))
        return "\n".join(lines)
