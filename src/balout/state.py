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
from typing import Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import rules as _rules
from ._core import DeckStream, HandState
from .actions import ACTION_NAMES, DECLARE, NUM_ACTIONS, PASS, action_name, parse_action
from .cards import SUITS, Card, CardSet, card_name
from .errors import BaloutError, CardError, OptionError

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
    if isinstance(value, bool):
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
        seen, dup = set(), None
        for c in ids:
            if c in seen:
                dup = c
                break
            seen.add(c)
        raise CardError(f"a deck has each card once; {card_name(dup)} appears twice")
    return bytes(ids)


def seed_to_int(seed) -> int:
    """Accept an int seed in [0, 2**64) or None (fresh entropy)."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, bool):
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


# observation_tensor layout
_T_HAND, _T_OFFER, _T_PLAYED, _T_TRICK = 0, 32, 64, 192
_T_DEALER, _T_BIDDER, _T_KIND, _T_TRUMP, _T_PHASE, _T_MULT = 320, 324, 328, 331, 335, 340
OBSERVATION_TENSOR_SIZE = 345

# information_state_tensor layout (perfect recall); seats relative to the observer
DECISION_SLOTS = 64                 # a hand has about 20 non-card actions at the most (random hands: 11)
_NUM_DECISIONS = NUM_ACTIONS - 32   # the decision action ids, 32..49
_I_HAND, _I_OFFER, _I_RECEIVER, _I_DEALER, _I_TO_ACT, _I_PHASE = 0, 32, 64, 68, 72, 76
_I_DECISIONS = 81                   # per slot: seat (4), decision (18)
_I_PLAYS = _I_DECISIONS + DECISION_SLOTS * (4 + _NUM_DECISIONS)   # per card played, in order: seat (4), card (32)
_I_SHOWN = _I_PLAYS + 32 * (4 + 32)                               # declarations shown, by seat (4 x 32)
_I_BELOTE = _I_SHOWN + 4 * 32                                     # an announced belote's seat (4)
_I_MATCH = _I_BELOTE + 4            # own team's and the other's match score, litige pot, over the target
TENSOR_SIZE = _I_MATCH + 3


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
        return action_name(action)

    def string_to_action(self, text: str) -> int:
        from .actions import to_action

        return to_action(self, text)

    def legal_action_strings(self) -> List[str]:
        """Legal actions as record names, sorted (as in the replay's ``next``)."""
        return sorted(ACTION_NAMES[a] for a in self.legal_actions())

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
        bids, doubling, declare, plays = [], [], [], []
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
        shown = {}
        decl_cards = self.declaration_cards
        for s in range(4):
            if self.declared_seats >> s & 1 and (self.tricks_played >= 1 or s == seat):
                shown[s] = CardSet.from_mask(decl_cards[s])
        belote = None
        b = self.belote_seat
        if b >= 0:
            kq = {self.trump_id * 8 + 5, self.trump_id * 8 + 6}
            if b == seat or any(c in kq for s, c in plays if s == b):
                belote = b
        return View(
            seat=seat, variant=self.variant, phase=self.phase, to_act=self.to_act,
            dealer=self.dealer, hand=self.hand(seat), offer=self.offer,
            offer_receiver=self.receiver if self.receiver >= 0 else None,
            contract=self.contract,
            bids=tuple((s, ACTION_NAMES[a]) for s, a in bids),
            doubling=tuple((s, ACTION_NAMES[a]) for s, a in doubling),
            plays=tuple((s, Card(a)) for s, a in plays),
            trick=tuple(self.trick), card_points=self.card_points, tricks_won=self.tricks_won,
            declarations=shown, belote_seat=belote,
            legal_actions=tuple(self.legal_actions()) if self.to_act == seat else (),
            match_score=self.match_before, litige_pot=self.pot_before,
            declaring=tuple((s, ACTION_NAMES[a]) for s, a in declaring),
        )

    def information_state_tensor(self, seat: int) -> np.ndarray:
        """A float32 vector of everything ``seat`` knows, with perfect recall
        (OpenSpiel's convention): built from :meth:`view` alone, and two
        different views give two different vectors. Seats are relative to
        ``seat`` (0 itself, 1 the next to play, ...).

        Layout (size ``TENSOR_SIZE``): own hand (32), offer (32), offer's
        receiver (4), dealer (4), seat to act (4), phase (5); the bids,
        doubling and declaring decisions in order, ``DECISION_SLOTS`` slots
        of seat (4) and decision (18, action id minus 32); the cards played in
        order, 32 slots of seat (4) and card (32); the declarations shown, by
        seat (4 x 32); an announced belote's seat (4); the own team's and the
        other team's match score and the litige pot, over the match target
        (3). Zeros where nothing is known yet."""
        seat = _check_int("seat", seat, 0, 3)
        v = self.view(seat)
        t = np.zeros(TENSOR_SIZE, dtype=np.float32)

        def rel(s: int) -> int:
            return (s - seat) & 3

        t[[_I_HAND + int(c) for c in v.hand]] = 1
        t[_I_OFFER + int(v.offer)] = 1
        if v.offer_receiver is not None:
            t[_I_RECEIVER + rel(v.offer_receiver)] = 1
        t[_I_DEALER + rel(v.dealer)] = 1
        if v.to_act >= 0:
            t[_I_TO_ACT + rel(v.to_act)] = 1
        t[_I_PHASE + self.phase_id] = 1
        decisions = v.bids + v.doubling + v.declaring
        if len(decisions) > DECISION_SLOTS:   # not reachable under the rules; never a silent overlap
            raise BaloutError(f"{len(decisions)} decisions do not fit the tensor's {DECISION_SLOTS} slots")
        for k, (s, name) in enumerate(decisions):
            base = _I_DECISIONS + k * (4 + _NUM_DECISIONS)
            t[base + rel(s)] = t[base + 4 + parse_action(name) - 32] = 1
        for k, (s, c) in enumerate(v.plays):
            base = _I_PLAYS + k * 36
            t[base + rel(s)] = t[base + 4 + int(c)] = 1
        for s, cards in v.declarations.items():
            t[[_I_SHOWN + 32 * rel(s) + int(c) for c in cards]] = 1
        if v.belote_seat is not None:
            t[_I_BELOTE + rel(v.belote_seat)] = 1
        target = float(self.options.get("target") or 1)
        team = seat & 1
        t[_I_MATCH:_I_MATCH + 3] = (v.match_score[team] / target, v.match_score[team ^ 1] / target,
                                    v.litige_pot / target)
        return t

    def observation_tensor(self, seat: int) -> np.ndarray:
        """A compact float32 vector of what ``seat`` observes now, seats
        relative to it (not perfect recall: the order of the play is lost).

        Layout: own hand (32), offer (32), cards played by each relative seat
        (4 x 32), current trick by relative seat (4 x 32), relative dealer (4),
        relative bidder (4), contract kind none/trump/sun (3), trump suit (4),
        phase (5), multiplier x1/x2/x3/x4 and gahwa (5). Size
        OBSERVATION_TENSOR_SIZE.
        """
        seat = _check_int("seat", seat, 0, 3)
        t = np.zeros(OBSERVATION_TENSOR_SIZE, dtype=np.float32)
        bits = np.arange(32)
        t[_T_HAND:_T_HAND + 32] = (self.hand_masks[seat] >> bits) & 1
        t[_T_OFFER + self.offer_id] = 1
        for s, a in self._split_history()[3]:
            t[_T_PLAYED + 32 * ((s - seat) & 3) + a] = 1
        for s, c in self.trick:
            t[_T_TRICK + 32 * ((s - seat) & 3) + c] = 1
        t[_T_DEALER + ((self.dealer - seat) & 3)] = 1
        if self.bidder >= 0:
            t[_T_BIDDER + ((self.bidder - seat) & 3)] = 1
        t[_T_KIND + self.kind_id] = 1
        if self.trump_id >= 0:
            t[_T_TRUMP + self.trump_id] = 1
        t[_T_PHASE + self.phase_id] = 1
        t[_T_MULT + min(self.multiplier, 4) - 1] = 1
        t[_T_MULT + 4] = float(self.gahwa)
        return t

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
