"""The named experiments of ``balout analyze`` (see docs/analysis.md).

Every reducer works on whole chunks of rows with numpy; nothing runs in
Python per hand. Row fields are those of :data:`balout.simulate.HAND_DTYPE`.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence

import numpy as np

from .. import rules as _rules
from ..simulate import Progress, simulate_matches
from .experiment import Context, Experiment, Plot, Run, register
from .stats import Estimate, Tally, Z95, difference

RANKS = tuple("789TJQKA")
SUITS = tuple("SHDC")
YESNO = ("no", "yes")
J, NINE, ACE, TEN = 4, 2, 7, 3
ACES_MASK = np.uint32(0x80808080)
TENS_MASK = np.uint32(0x08080808)
POP8 = np.array([bin(i).count("1") for i in range(256)], np.int64)


# ------------------------------------------------------------------ row helpers

def popcount(x: np.ndarray) -> np.ndarray:
    """Bits set in each uint32."""
    x = np.asarray(x, np.uint32)
    return POP8[x & 255] + POP8[(x >> 8) & 255] + POP8[(x >> 16) & 255] + POP8[x >> 24]


def seat_hand(r: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The final 8-card mask of ``seat`` (per row; 0 where seat < 0)."""
    seat = np.asarray(seat)
    s = np.where(seat >= 0, seat, 0).astype(np.intp)
    h = r["dealt"][np.arange(len(r)), s]
    return np.where(seat >= 0, h, 0).astype(np.uint32)


def suit_bits(hand: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """The 8 rank bits of ``suit`` in ``hand`` (0 where suit < 0)."""
    suit = np.asarray(suit)
    sh = (8 * np.where(suit >= 0, suit, 0)).astype(np.uint32)
    return np.where(suit >= 0, (hand >> sh) & np.uint32(0xFF), 0).astype(np.int64)


def longest_suit(hand: np.ndarray) -> np.ndarray:
    return np.max(np.stack([POP8[(hand >> np.uint32(8 * s)) & np.uint32(0xFF)] for s in range(4)]), axis=0)


def takers(r: np.ndarray) -> np.ndarray:
    """Team of the bidder (takers / buyers), -1 for a cancelled hand."""
    b = r["bidder"].astype(np.int64)
    return np.where(b >= 0, b & 1, -1)


def team_value(pair: np.ndarray, team: np.ndarray) -> np.ndarray:
    """pair[:, team] per row (0 where team < 0)."""
    team = np.asarray(team)
    t = np.where(team >= 0, team, 0).astype(np.intp)
    v = pair[np.arange(len(pair)), t].astype(np.int64)
    return np.where(team >= 0, v, 0)


def played(r: np.ndarray) -> np.ndarray:
    return r["outcome"] <= 2


def takers_margin(r: np.ndarray) -> np.ndarray:
    """Takers' hand score minus the defence's (0 for a cancelled hand)."""
    tk = takers(r)
    hs = r["hand_score"]
    return team_value(hs, tk) - team_value(hs, np.where(tk >= 0, 1 - tk, -1))


def _variant(t: Tally) -> str:
    return t.context.variant if t.context is not None else "balout"


# ------------------------------------------------------------------ make rate by holding

TOP_LABELS = tuple(("J" if c & 4 else "-") + ("9" if c & 2 else "-") + ("A" if c & 1 else "-") for c in range(8))


def _reduce_holding(rows: Dict[str, np.ndarray], t: Tally) -> None:
    r = rows["base"]
    ok = played(r)
    made = r["outcome"] == 0
    trumpc = ok & (r["kind"] == 1)
    hand = seat_hand(r, r["bidder"])
    tb = suit_bits(hand, r["trump"])
    has_j, has_9, has_a = (tb >> J) & 1, (tb >> NINE) & 1, (tb >> ACE) & 1
    ntr = POP8[tb]
    t.rate("make rate", made, where=trumpc, by={"J of trump": (has_j, YESNO)})
    t.rate("make rate", made, where=trumpc, by={"9 of trump": (has_9, YESNO)})
    t.rate("make rate", made, where=trumpc, by={"A of trump": (has_a, YESNO)})
    t.rate("make rate", made, where=trumpc, by={"top trumps": (has_j * 4 + has_9 * 2 + has_a, TOP_LABELS)})
    t.rate("make rate", made, where=trumpc, by={"trumps held": (ntr, list(range(9)))})
    offer_rank = (r["offer"] & 7).astype(np.int64)
    if _variant(t) == "baloot":
        kind = r["kind"].astype(np.int64) - 1
        t.rate("make rate", made, where=ok, by={"contract": (kind, ("hokm", "sun")),
                                                "offer rank": (offer_rank, RANKS)})
    else:
        t.rate("make rate", made, where=ok, by={"offer rank": (offer_rank, RANKS)})
    t.mean("takers' margin", takers_margin(r), where=trumpc, by={"trumps held": (ntr, list(range(9)))})
    same = (r["trump"] == (r["offer"] >> 3)).astype(np.int64)
    t.share("share of trump contracts", where=trumpc,
            by={"trump = offer suit": (same, YESNO), "trumps held": (ntr, list(range(9)))})
    t.mean("trumps held (mean)", ntr, where=trumpc, by={"trump = offer suit": (same, YESNO)}, precision=0.05)


register(Experiment(
    "make-rate-by-holding",
    "Contract make rate by what the taker holds: J / 9 / A of trump, number of trumps, the offer's rank.",
    runs=(Run("base"),), reduce=_reduce_holding,
    plots=(Plot("make rate", x="trumps held", title="Make rate by the taker's number of trumps"),
           Plot("make rate", x="top trumps", kind="bar", title="Make rate by the taker's J / 9 / A of trump"),
           Plot("make rate", x="offer rank", kind="bar", title="Make rate by the offer's rank"),
           Plot("takers' margin", x="trumps held", title="Takers' score minus defence's, by trumps held")),
    notes="Trump contracts only for the holding factors (Hokm in `baloot`); the offer-rank table covers "
          "every played contract. The taker's hand is the bidder's final 8 cards (the ashkal caller's in "
          "`baloot`). With the `random` policy bids ignore the cards, so these are the make rates of a "
          "randomized design; with `greedy` they are those of a player who bids on strength.",
))


# ------------------------------------------------------------------ first lead

def _first_lead_runs(variant: str) -> List[Run]:
    return [Run("after_taker", {"first_lead": "after_taker"}), Run("after_dealer", {"first_lead": "after_dealer"})]


def _reduce_first_lead(rows: Dict[str, np.ndarray], t: Tally) -> None:
    a, b = rows["after_taker"], rows["after_dealer"]
    for label, r in rows.items():
        ok = played(r)
        made = r["outcome"] == 0
        tk = takers(r)
        leader = np.where(label == "after_taker", r["bidder"].astype(np.int64) + 1, r["dealer"].astype(np.int64) + 1) & 3
        lead = ((leader & 1) == tk).astype(np.int64)
        t.rate("make rate", made, where=ok, by={"first lead": label})
        t.mean("takers' margin", takers_margin(r), where=ok, by={"first lead": label})
        t.rate("make rate", made, where=ok, by={"first lead": label, "takers lead trick 1": (lead, YESNO)})
    both = played(a) & played(b)
    made_a = (a["outcome"] == 0).astype(np.int64)
    made_b = (b["outcome"] == 0).astype(np.int64)
    lead_b = (((b["dealer"].astype(np.int64) + 1) & 1) == takers(b)).astype(np.int64)
    t.mean("paired: make rate, after_taker - after_dealer", made_a - made_b, where=both, precision=0.01, percent=True)
    t.mean("paired: make rate, after_taker - after_dealer", made_a - made_b, where=both, precision=0.01,
           percent=True, by={"takers lead under after_dealer": (lead_b, YESNO)})
    t.mean("paired: takers' margin, after_taker - after_dealer", takers_margin(a) - takers_margin(b), where=both)
    hs_a, hs_b = a["hand_score"].astype(np.int64), b["hand_score"].astype(np.int64)
    for team in (0, 1):
        t.mean("paired: team score, after_taker - after_dealer", hs_a[:, team] - hs_b[:, team], where=both,
               by={"team": team})


register(Experiment(
    "first-lead",
    "Value of the first lead: who leads trick 1 (after the taker / after the dealer), on the same deals.",
    runs=_first_lead_runs, reduce=_reduce_first_lead,
    plots=(Plot("make rate", x="takers lead trick 1", series="first lead", kind="bar",
                title="Make rate when the takers lead trick 1"),),
    notes="Both runs play the same deals (same seed): the auction is identical, only the leader of trick 1 "
          "changes. Paired rows are means of per-hand differences. Under `after_taker` the defence always "
          "leads; under `after_dealer` the takers lead whenever the bidder sits in the team of seat d+1.",
))


# ------------------------------------------------------------------ dealer's seat

SEAT_LABELS = ("d+1 (first to speak)", "d+2", "d+3", "dealer")


def _reduce_dealer(rows: Dict[str, np.ndarray], t: Tally) -> None:
    r = rows["base"]
    ok = played(r)
    made = r["outcome"] == 0
    d = r["dealer"].astype(np.int64)
    dteam = d & 1
    hs = r["hand_score"]
    s_d, s_o = team_value(hs, dteam), team_value(hs, 1 - dteam)
    t.mean("dealer's team score per hand", s_d)
    t.mean("other team's score per hand", s_o)
    t.mean("dealer's seat value (dealer's team - other team, per hand)", s_d - s_o)
    pos = np.where(r["bidder"] >= 0, (r["bidder"].astype(np.int64) - d - 1) & 3, -1)
    t.share("bidder's seat", by={"bidder's seat": (pos, SEAT_LABELS)}, where=ok)
    t.rate("make rate", made, where=ok, by={"bidder's seat": (pos, SEAT_LABELS)})
    t.mean("takers' margin", takers_margin(r), where=ok, by={"bidder's seat": (pos, SEAT_LABELS)})
    t.rate("cancelled rate", r["outcome"] == 3)


register(Experiment(
    "dealer-seat",
    "Value of the dealer's seat: score of the dealer's team against the other team; who takes and makes, by seat.",
    runs=(Run("base"),), reduce=_reduce_dealer,
    plots=(Plot("make rate", x="bidder's seat", kind="bar", title="Make rate by the bidder's seat"),
           Plot("bidder's seat", x="bidder's seat", kind="bar", title="Who takes (share of contracts)")),
    notes="Per hand dealt (cancelled hands count as 0-0). Seats are named from the dealer d: d+1 speaks first.",
))


# ------------------------------------------------------------------ declarations and belote

def _decl_buckets(variant: str):
    if variant == "baloot":
        return np.array([2, 5, 10, 20, 40]), ("2-4", "5-9", "10-19", "20-39", "40+")
    return np.array([20, 50, 100, 150, 200]), ("20-49", "50-99", "100-149", "150-199", "200+")


def _reduce_declarations(rows: Dict[str, np.ndarray], t: Tally) -> None:
    a, b = rows["auto"], rows["off"]
    edges, labels = _decl_buckets(_variant(t))
    ok_a = played(a)
    dt = a["decl_team"].astype(np.int64)
    dv = a["decl_value"].astype(np.int64)
    has = dt >= 0
    tk = takers(a)
    bucket = np.searchsorted(edges, dv, side="right") - 1
    holder = np.where(has, (dt != tk).astype(np.int64), -1)   # 0 takers, 1 defence
    HOLD = ("takers", "defence")
    t.rate("hands with scoring declarations", has, where=ok_a)
    t.share("declaration value", by={"value": (bucket, labels)}, where=ok_a & has)
    t.mean("declaration value (mean)", dv, where=ok_a & has, by={"holder": (holder, HOLD)})
    other = np.where(has, 1 - dt, -1)
    adv_a = team_value(a["hand_score"], dt) - team_value(a["hand_score"], other)
    adv_b = team_value(b["hand_score"], dt) - team_value(b["hand_score"], other)
    both = ok_a & played(b) & has
    t.mean("paired value to the holding team (auto - off)", adv_a - adv_b, where=both,
           by={"holder": (holder, HOLD)})
    t.mean("paired value to the holding team (auto - off)", adv_a - adv_b, where=both,
           by={"holder": (holder, HOLD), "value": (bucket, labels)})
    made_a = (a["outcome"] == 0).astype(np.int64)
    made_b = (b["outcome"] == 0).astype(np.int64)
    t.mean("paired: make rate (auto - off)", made_a - made_b, where=both, precision=0.01, percent=True,
           by={"holder": (holder, HOLD)})
    # belote / baloot: K+Q of trump, scored to its holder whatever happens
    bt = a["belote"].astype(np.int64)
    trumpc = ok_a & (a["kind"] == 1)
    bcode = np.where(bt < 0, 0, np.where(bt == tk, 1, 2))
    t.rate("hands with belote", bt >= 0, where=trumpc)
    t.rate("make rate", a["outcome"] == 0, where=trumpc,
           by={"belote held by": (bcode, ("nobody", "takers", "defence"))})
    t.mean("takers' margin", takers_margin(a), where=trumpc,
           by={"belote held by": (bcode, ("nobody", "takers", "defence"))})


def _finalize_declarations(t: Tally, ctx: Context) -> None:
    for holder in ("takers", "defence"):
        try:
            yes = t.estimate("make rate", **{"belote held by": holder})
            no = t.estimate("make rate", **{"belote held by": "nobody"})
        except KeyError:
            continue
        t.derived.append(difference(yes, no, "make rate: belote held - nobody", {"belote held by": holder},
                                    note="observational: holding K+Q of trump also means a stronger hand"))


register(Experiment(
    "declarations",
    "What declarations (projects) and belote (baloot) are worth to the team that has them.",
    runs=(Run("auto", {"declarations": "auto"}), Run("off", {"declarations": "off"})),
    reduce=_reduce_declarations, finalize=_finalize_declarations,
    plots=(Plot("paired value to the holding team (auto - off)", x="value", series="holder", kind="bar",
                title="Score advantage a declaration gives its team (paired)"),),
    notes="Declarations: the same deals played with declarations `auto` and `off`; the value to the holding "
          "team is the per-hand change of (its score - the other team's score), declaration points and their "
          "effect on the contract included. Belote cannot be switched off, so its effect on the make rate is "
          "observational; its direct value is fixed by the rules (20; 2 game points in `baloot`).",
))


# ------------------------------------------------------------------ litige pot

def pot_contribution(r: np.ndarray) -> np.ndarray:
    """What a litige hand puts in the pot: the takers' card points plus
    their declarations if they won them (RULES.md section 3)."""
    tk = takers(r)
    cp = team_value(r["card_points"], tk)
    dv = np.where((r["decl_team"] == tk) & (tk >= 0), r["decl_value"].astype(np.int64), 0)
    return cp + dv


def pot_flow(r: np.ndarray, carry: Optional[dict] = None, start: int = 0):
    """The litige pot over a stretch of consecutive hands, in hand order.

    Rows are consecutive hands of one long game (hand ``start + i``).
    Consecutive litiges (cancelled hands in between do not matter) fill one
    pot; the next made or failed hand pays it: to its takers if made, to
    its defence if failed. ``carry``: the pot left unpaid by the previous
    stretch (``None`` for an empty pot).

    Returns (payouts, carry): ``payouts`` a dict of arrays, one entry per
    paying hand: ``index`` (hand number), ``amount``, ``count`` (litiges in
    the pot), ``origin`` (takers' team of the pot's first litige),
    ``receiver`` (team paid), ``made`` (1 if paid to the takers), ``wait``
    (hands from the first litige to the payout); ``carry`` the unpaid pot.
    """
    o = r["outcome"]
    lit = np.flatnonzero(o == 2)
    res = np.flatnonzero(o <= 1)
    tk = takers(r)
    contrib = pot_contribution(r)
    # np.ndarray: each may become the concatenation below
    pos: np.ndarray = lit.astype(np.int64)
    amount: np.ndarray = contrib[lit].astype(np.int64)
    count: np.ndarray = np.ones(len(lit), np.int64)
    origin: np.ndarray = tk[lit].astype(np.int64)
    first: np.ndarray = start + pos
    if carry:
        pos = np.concatenate([[-1], pos])
        amount = np.concatenate([[carry["amount"]], amount])
        count = np.concatenate([[carry["count"]], count])
        origin = np.concatenate([[carry["origin"]], origin])
        first = np.concatenate([[carry["first"]], first])
    j = np.searchsorted(res, pos, side="right")
    resolved = j < len(res)
    new_carry = None
    if (~resolved).any():
        k = np.flatnonzero(~resolved)
        new_carry = {"amount": int(amount[k].sum()), "count": int(count[k].sum()),
                     "origin": int(origin[k[0]]), "first": int(first[k[0]])}
    jr = j[resolved]
    uj, first_idx = np.unique(jr, return_index=True)
    inv = np.searchsorted(uj, jr)
    pay_amount = np.bincount(inv, weights=amount[resolved], minlength=len(uj)).astype(np.int64)
    pay_count = np.bincount(inv, weights=count[resolved], minlength=len(uj)).astype(np.int64)
    pay_origin = origin[resolved][first_idx]
    pay_first = first[resolved][first_idx]
    payer = res[uj]
    made = (o[payer] == 0).astype(np.int64)
    receiver = np.where(made == 1, tk[payer], 1 - tk[payer])
    index = start + payer.astype(np.int64)
    payouts = {"index": index, "amount": pay_amount, "count": pay_count, "origin": pay_origin,
               "receiver": receiver, "made": made, "wait": index - pay_first}
    return payouts, new_carry


def _reduce_litige(rows: Dict[str, np.ndarray], t: Tally) -> None:
    r = rows["pot"]
    ok = played(r)
    lit = r["outcome"] == 2
    t.rate("litige rate", lit, where=ok, precision=0.001)
    t.mean("points put in the pot per litige", pot_contribution(r), where=lit)
    start = t.state.get("next", 0)
    pay, carry = pot_flow(r, t.state.get("carry"), start)
    t.state["carry"], t.state["next"] = carry, start + len(r)
    if len(pay["index"]):
        back = pay["receiver"] == pay["origin"]
        t.mean("pot size when paid", pay["amount"])
        t.share("litiges in one pot", by={"litiges": (np.minimum(pay["count"], 4) - 1, ("1", "2", "3", "4+"))})
        t.rate("pot collected by the team that made the litige", back)
        t.rate("pot collected by the takers of the paying hand", pay["made"] == 1)
        t.mean("pot size when paid", pay["amount"],
               by={"collected by": (1 - back.astype(np.int64), ("litige team", "other team"))})
        t.mean("hands from litige to payout", pay["wait"])
        per_team = np.zeros((len(r), 2))
        rel = pay["index"] - start
        per_team[rel, pay["receiver"]] = pay["amount"]
    else:
        per_team = np.zeros((len(r), 2))
    for team in (0, 1):
        t.mean("pot paid per hand", per_team[:, team], by={"to team": team}, precision=0.1)


def _finalize_litige(t: Tally, ctx: Context) -> None:
    carry = t.state.get("carry")
    if carry:
        t.derived.append(Estimate("pot left unpaid at the end", {}, "derived", carry["count"],
                                  carry["amount"], carry["amount"], carry["amount"], 0.0, 0.0,
                                  note="litiges after the last made/failed hand of the run"))


register(Experiment(
    "litige",
    "Litige (81-81): how often, how big the pot gets, and who collects it.",
    variants=("balout", "belote"),
    runs=(Run("pot", {"litige_pot": True}),), reduce=_reduce_litige, finalize=_finalize_litige,
    default_hands=2_000_000,
    plots=(Plot("litiges in one pot", x="litiges", kind="bar", title="Litiges accumulated in one pot"),),
    notes="The simulated hands are independent; for the pot they are read as one long game, in order "
          "(hand i dealt by seat i mod 4): consecutive litiges (cancelled hands in between do not matter) "
          "fill one pot; the next made or failed hand pays it to its takers (made) or its defence (failed). "
          "A pot gets the takers' card points plus their declarations if they won them (RULES.md section 3). "
          "'The team that made the litige' is the takers' team of the pot's first litige. Match ends are "
          "ignored (a pot left when a match is won is lost).",
))


# ------------------------------------------------------------------ capot / kaboot

def _capot_runs(variant: str) -> List[Run]:
    if variant == "baloot":
        return [Run("kaboot", {"capot": "kaboot"})]
    return [Run("plus100_zero_points", {"capot": "plus100_zero_points"}),
            Run("250_all_tricks", {"capot": "250_all_tricks"})]


def _reduce_capot(rows: Dict[str, np.ndarray], t: Tally) -> None:
    caps = {}
    for label, r in rows.items():
        ok = played(r)
        cap = r["capot"] >= 0
        tk = takers(r)
        caps[label] = (cap.astype(np.int64), ok)
        t.rate("capot rate", cap, where=ok, by={"rule": label}, precision=0.001)
        t.rate("capot by the takers", cap & (r["capot"] == tk), where=ok, by={"rule": label}, precision=0.001)
        t.rate("capot by the defence", cap & (r["capot"] != tk), where=ok, by={"rule": label}, precision=0.001)
        ct = r["capot"].astype(np.int64)
        gain = team_value(r["hand_score"], ct) - team_value(r["hand_score"], np.where(ct >= 0, 1 - ct, -1))
        t.mean("capot team's margin", gain, where=ok & cap, by={"rule": label})
        t.rate("one team won all 8 tricks", r["tricks_won"].max(axis=1) == 8, where=ok, by={"rule": label},
               precision=0.001)
        t.rate("one team took zero card points", r["card_points"].min(axis=1) == 0, where=ok,
               by={"rule": label}, precision=0.001)
    if len(caps) == 2:
        (la, (ca, oa)), (lb, (cb, ob)) = caps.items()
        t.mean(f"paired: capot rate, {la} - {lb}", ca - cb, where=oa & ob, precision=0.001, percent=True)


register(Experiment(
    "capot",
    "Capot / kaboot frequency under each capot rule, on the same deals.",
    runs=_capot_runs, reduce=_reduce_capot,
    plots=(Plot("capot rate", x="rule", kind="bar", title="Capot rate by rule"),),
    notes="`plus100_zero_points`: a team with zero card points (+100 to the other); `250_all_tricks`: a team "
          "that wins all 8 tricks (250); `baloot` has only `kaboot` (all 8 tricks).",
))


# ------------------------------------------------------------------ forced take on the J

def _reduce_forced(rows: Dict[str, np.ndarray], t: Tally) -> None:
    per = {}
    for label, r in rows.items():
        jack = (r["offer"] & 7) == J
        d = r["dealer"].astype(np.int64)
        first = (d + 1) & 3
        fteam, dteam = first & 1, d & 1
        took = (r["bidder"] == first) & (r["trump"] == (r["offer"] >> 3))
        ok = played(r)
        hs = r["hand_score"]
        sf, sd = team_value(hs, fteam), team_value(hs, dteam)
        t.rate("first player takes the J", took, where=jack, by={"rule": label})
        t.rate("make rate on a J offer", r["outcome"] == 0, where=jack & ok, by={"rule": label})
        t.mean("score per J offer", sf, where=jack, by={"rule": label, "team": "first player's"})
        t.mean("score per J offer", sd, where=jack, by={"rule": label, "team": "dealer's"})
        per[label] = (sf, sd, jack)
    (sf_a, sd_a, jack), (sf_b, sd_b, _) = per["forced"], per["free"]
    t.mean("paired effect of forcing (forced - free), per J offer", sf_a - sf_b, where=jack,
           by={"team": "first player's"})
    t.mean("paired effect of forcing (forced - free), per J offer", sd_a - sd_b, where=jack,
           by={"team": "dealer's"})
    t.mean("paired effect of forcing (forced - free), per J offer", (sf_a - sd_a) - (sf_b - sd_b), where=jack,
           by={"team": "first player's - dealer's"})
    t.mean("paired effect of forcing (forced - free), per hand dealt", np.where(jack, (sf_a - sd_a) - (sf_b - sd_b), 0),
           by={"team": "first player's - dealer's"}, precision=0.1)


register(Experiment(
    "forced-take",
    "The forced take on a J offer, on and off on the same deals: what it costs or gives each team.",
    variants=("balout", "belote"),
    runs=(Run("forced", {"forced_take_on_jack": True}), Run("free", {"forced_take_on_jack": False})),
    reduce=_reduce_forced,
    plots=(Plot("paired effect of forcing (forced - free), per J offer", x="team", kind="bar",
                title="Effect of the forced take on each team's score, per J offer (paired)"),
           Plot("score per J offer", x="team", series="rule", kind="bar",
                title="Mean hand score per J offer, forced take on/off")),
    notes="Only hands whose offer is a J differ between the runs (one hand in 8). 'First player' is seat "
          "d+1, the one forced to take. The per-hand-dealt row spreads the effect over all hands.",
))


# ------------------------------------------------------------------ Sun against Hokm (baloot)

KINDS = ("hokm", "sun")


def _reduce_sun_hokm(rows: Dict[str, np.ndarray], t: Tally) -> None:
    r = rows["base"]
    ok = played(r)
    kind = r["kind"].astype(np.int64) - 1
    hand = seat_hand(r, r["bidder"])
    aces = popcount(hand & ACES_MASK)
    tens = popcount(hand & TENS_MASK)
    longest = longest_suit(hand)
    margin = takers_margin(r)
    made = r["outcome"] == 0
    t.share("contract", by={"contract": (kind, KINDS)}, where=ok)
    for name, codes, labels in (("bidder's aces", aces, list(range(5))),
                                ("bidder's aces + tens", aces + tens, list(range(9))),
                                ("bidder's longest suit", longest, list(range(9)))):
        by = {"contract": (kind, KINDS), name: (codes, labels)}
        t.mean("buyers' margin", margin, where=ok, by=by, precision=0.5)
        t.rate("make rate", made, where=ok, by=by)


def _finalize_sun_hokm(t: Tally, ctx: Context) -> None:
    for name, levels in (("bidder's aces", range(5)), ("bidder's aces + tens", range(9)),
                         ("bidder's longest suit", range(9))):
        for lv in levels:
            try:
                sun = t.estimate("buyers' margin", contract="sun", **{name: lv})
                hokm = t.estimate("buyers' margin", contract="hokm", **{name: lv})
            except KeyError:
                continue
            if sun.n < 2 or hokm.n < 2:
                continue
            t.derived.append(difference(sun, hokm, "Sun - Hokm: buyers' margin", {name: lv},
                                        note="positive: Sun is worth more to the buyers with such a hand"))


register(Experiment(
    "sun-vs-hokm",
    "Sun against Hokm by the bidder's hand shape (aces, aces + tens, longest suit): buyers' margin and make rate.",
    variants=("baloot",), runs=(Run("base"),), reduce=_reduce_sun_hokm, finalize=_finalize_sun_hokm,
    plots=(Plot("buyers' margin", x="bidder's aces", series="contract", title="Buyers' margin by aces held"),
           Plot("Sun - Hokm: buyers' margin", x="bidder's aces", kind="bar",
                title="Sun minus Hokm, buyers' margin, by aces held")),
    notes="Margin = buyers' hand score minus the defence's, in game points (Sun totals 26, Hokm 16, so Sun "
          "is worth more when made and costs more when failed). With the `random` policy the contract is "
          "chosen without looking at the cards, so within a hand-shape group the Sun/Hokm comparison is a "
          "randomized one; the difference rows compare two independent groups.",
))


# ------------------------------------------------------------------ doubling break-even (baloot)

def doubled_scores(r: np.ndarray, multiplier) -> np.ndarray:
    """Hand scores (n, 2) of each row's hand as if played at ``multiplier``
    (2, 3 or 4; not gahwa), from its outcome, projects, baloot and kaboot
    (RULES.md section 5, "Doubled"): the winning side scores (16 or 26, 25 or
    44 for a kaboot) x multiplier + all scoring projects x multiplier +
    every baloot (a kaboot: its own baloot only); the other side 0. The
    outcome is the row's (a x2 does not change who wins: a tie is lost by
    the doubling defence, as it is lost by the defence undoubled)."""
    m = np.asarray(multiplier, np.int64)
    tk = takers(r)
    made = r["outcome"] == 0
    winner = np.where(made, tk, 1 - tk)
    sun = r["kind"] == 2
    cap = r["capot"].astype(np.int64)
    kaboot = cap >= 0
    base = np.where(kaboot, np.where(sun, 44, 25), np.where(sun, 26, 16))
    decl = np.where(r["decl_team"] >= 0, r["decl_value"].astype(np.int64), 0)
    bel = r["belote"].astype(np.int64)
    baloot = np.where((bel >= 0) & (~kaboot | (bel == winner)), 2, 0)
    w = base * m + decl * m + baloot
    out = np.zeros((len(r), 2), np.int64)
    ok = played(r) & (tk >= 0)
    idx = np.flatnonzero(ok)
    out[idx, winner[idx]] = w[idx]
    return out


def _reduce_doubling(rows: Dict[str, np.ndarray], t: Tally) -> None:
    r = rows["x1"]
    ok = played(r) & (r["multiplier"] == 1)
    tk = takers(r)
    de = np.where(tk >= 0, 1 - tk, -1)
    hs1 = r["hand_score"]
    hs2 = doubled_scores(r, 2)
    gain = (team_value(hs2, de) - team_value(hs2, tk)) - (team_value(hs1, de) - team_value(hs1, tk))
    failed = r["outcome"] != 0
    doubler = np.where(r["bidder"] >= 0, (r["bidder"].astype(np.int64) + 1) & 3, -1)
    dh = seat_hand(r, doubler)
    for kind, label in ((1, "hokm"), (2, "sun")):
        sel = ok & (r["kind"] == kind)
        t.mean("defence's gain from doubling", gain, where=sel, by={"contract": label})
        t.rate("contract fails", failed, where=sel, by={"contract": label})
        t.mean("defence's gain if the contract fails", gain, where=sel & failed, by={"contract": label})
        t.mean("defence's gain if the contract is made", gain, where=sel & ~failed, by={"contract": label})
    hokm = ok & (r["kind"] == 1)
    sun = ok & (r["kind"] == 2)
    ntr = POP8[suit_bits(dh, r["trump"])]
    aces = popcount(dh & ACES_MASK)
    by_h = {"contract": "hokm", "doubler's trumps": (ntr, list(range(9)))}
    by_s = {"contract": "sun", "doubler's aces": (aces, list(range(5)))}
    t.mean("defence's gain from doubling", gain, where=hokm, by=by_h)
    t.rate("contract fails", failed, where=hokm, by=by_h)
    t.mean("defence's gain from doubling", gain, where=sun, by=by_s)
    t.rate("contract fails", failed, where=sun, by=by_s)


def _finalize_doubling(t: Tally, ctx: Context) -> None:
    for label in KINDS:
        try:
            w = t.estimate("defence's gain if the contract fails", contract=label)
            l_ = t.estimate("defence's gain if the contract is made", contract=label)
        except KeyError:
            continue
        W, L = w.value, -l_.value
        if not (W + L) or not math.isfinite(W + L):
            continue
        p = L / (W + L)
        se = math.sqrt((W * W * l_.se ** 2 + L * L * w.se ** 2)) / (W + L) ** 2
        t.derived.append(Estimate("break-even failure probability for doubling", {"contract": label}, "derived",
                                  min(w.n, l_.n), p, p - Z95 * se, p + Z95 * se, float("nan"), se,
                                  note="double when P(contract fails) exceeds this", percent=True))


register(Experiment(
    "doubling",
    "Where doubling breaks even (baloot): the defence's gain from x2, by contract and the doubler's hand.",
    variants=("baloot",), runs=(Run("x1", {"doubling": False}),), reduce=_reduce_doubling,
    finalize=_finalize_doubling,
    plots=(Plot("defence's gain from doubling", x="doubler's trumps", where={"contract": "hokm"},
                title="Hokm: defence's gain from doubling, by the doubler's trumps"),
           Plot("defence's gain from doubling", x="doubler's aces", where={"contract": "sun"},
                title="Sun: defence's gain from doubling, by the doubler's aces")),
    notes="Every hand is played undoubled (doubling off); its doubled (x2) score is computed from the same "
          "row by RULES.md section 5 (a x2 never changes who wins the hand), so each hand gives a paired, "
          "exact counterfactual. Gain = (defence - buyers) at x2 minus (defence - buyers) at x1, in game "
          "points. Doubling pays where the gain is positive; the break-even failure probability is "
          "p* = L / (W + L), W = mean gain when the contract fails, L = mean loss when it is made. The "
          "doubler is seat bidder+1 (who decides). Sun doubling needs a match-score condition that "
          "independent hands (0-0) never meet; the Sun rows say what it would be worth.",
))


# ------------------------------------------------------------------ match-win table

def _target(ctx: Context) -> int:
    return _rules.resolve(ctx.variant, ctx.options)[1]["target"]


def score_grid(target: int, steps: int = 10) -> List[int]:
    return sorted({int(round(target * i / steps)) for i in range(steps)})


def _tally_wins(t: Tally, m, group: dict, metric: str) -> None:
    """Team 0's win rate among ``m``'s decided matches."""
    k = float((m.winner == 0).sum())
    t.add_counts(metric, "rate", group, int((m.winner >= 0).sum()), k, k, exposure=len(m))


def _tally_length(t: Tally, m, group: dict, metric: str) -> np.ndarray:
    """The hands per match of ``m`` (returned too)."""
    h = m.hands.astype(np.float64)
    t.add_counts(metric, "mean", group, len(h), h.sum(), (h * h).sum(), exposure=len(m))
    return h


def _match_win(ctx: Context, t: Tally, steps: int = 10) -> None:
    target = _target(ctx)
    grid = score_grid(target, steps)
    cells = len(grid) ** 2
    per = max(1, ctx.hands // cells)
    bar = Progress(per * cells, "matches") if ctx.progress else None
    try:
        for a in grid:
            for b in grid:
                m = simulate_matches(ctx.variant, per, ctx.policy, seed=ctx.seed, threads=ctx.threads,
                                     options=ctx.options, score=(a, b), progress=False)
                group = {"team 0 score": a, "team 1 score": b}
                _tally_wins(t, m, group, "P(team 0 wins)")
                _tally_length(t, m, group, "hands to finish")
                t.hands += len(m)
                if bar is not None:
                    bar.update(t.hands)
    finally:
        if bar is not None:
            bar.close()


register(Experiment(
    "match-win",
    "Match-win probability of team 0 from any score pair to the target (a table over a 10 x 10 grid).",
    custom=_match_win, unit="matches", default_hands=200_000,
    plots=(Plot("P(team 0 wins)", x="team 0 score", series="team 1 score", kind="heatmap",
                title="P(team 0 wins) from a score pair"),),
    notes="`--hands` is the number of matches in all, spread evenly over the grid cells. Every match starts "
          "with dealer 0 (seat 1, team 1, speaks first) and an empty litige pot. All cells use the same seed, "
          "so they share their deals (common random numbers): neighbouring cells differ with little noise.",
))


# ------------------------------------------------------------------ match length by target

def default_targets(variant: str) -> List[int]:
    if variant == "baloot":
        return [52, 100, 152, 200, 300, 400, 500, 750, 1000]
    return list(range(500, 2001, 100))


def match_length_experiment(targets: Optional[Sequence[int]] = None, name: str = "match-length") -> Experiment:
    """The match-length experiment over ``targets`` (default: per variant)."""

    def custom(ctx: Context, t: Tally) -> None:
        ts = list(targets) if targets is not None else default_targets(ctx.variant)
        base_target = _target(ctx)
        per = max(1, ctx.hands // len(ts))
        bar = Progress(per * len(ts), "matches") if ctx.progress else None
        base = simulate_matches(ctx.variant, per, ctx.policy, seed=ctx.seed, threads=ctx.threads,
                                options={**ctx.options, "target": base_target}, progress=False)
        try:
            for T in ts:
                m = simulate_matches(ctx.variant, per, ctx.policy, seed=ctx.seed, threads=ctx.threads,
                                     options={**ctx.options, "target": T}, progress=False)
                g = {"target": T}
                h = _tally_length(t, m, g, "hands per match")
                _tally_wins(t, m, g, "team 0 win rate")
                d: np.ndarray = h - base.hands.astype(np.float64)
                t.add_counts(f"paired: hands per match, minus target {base_target}", "mean", g, len(d),
                             d.sum(), (d * d).sum(), exposure=len(m))
                t.hands += len(m)
                if bar is not None:
                    bar.update(t.hands)
        finally:
            if bar is not None:
                bar.close()

    return Experiment(
        name, "How match length (hands per match) changes with the target.",
        custom=custom, unit="matches", default_hands=160_000,
        plots=(Plot("hands per match", x="target", title="Hands per match by target"),),
        notes="`--hands` is the number of matches in all, spread over the targets. Every target uses the same "
              "seed, so match j deals the same hands whatever the target (common random numbers); the paired "
              "rows are per-match differences from the variant's target (or `--options` target).",
    )


register(match_length_experiment())
