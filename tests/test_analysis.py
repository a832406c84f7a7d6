"""Rule analysis (``balout.analysis``, ``balout analyze``).

Each experiment is checked against a known answer on a small case: a
quantity computed exactly (by enumeration of the random policy's auction,
a hypergeometric law, the rules' scoring formulas, or an independent
recomputation from the rows), or a paired difference that must be exactly
zero when the two runs use the same options. Also: paired runs share their
deals, intervals cover the true value at about the stated rate (seeded, so
not flaky), the "hands needed" figure delivers the precision it promises,
memory is flat in the number of hands, and errors list what exists.

Statistical checks use fixed seeds and wide (4.5 sigma) tolerances.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
import textwrap
import tracemalloc
from math import comb

import numpy as np
import pytest

import balout
from balout import BaloutError, State, _core
from balout.analysis import (Estimate, Experiment, ExperimentError, Run, Tally, get,
                             hands_needed, names, run_experiment)
from balout.analysis import catalogue as cat
from balout.cli import main
from balout.errors import OptionError
from balout.simulate import HAND_DTYPE, iter_simulate

ALL = ("make-rate-by-holding", "first-lead", "dealer-seat", "declarations", "litige", "capot", "forced-take",
       "sun-vs-hokm", "doubling", "match-win", "match-length")
Z = 4.5


def close(est: Estimate, truth: float, z: float = Z) -> bool:
    return abs(est.value - truth) <= z * est.se + 1e-12


def hypergeom(N: int, K: int, n: int, k: int) -> float:
    return comb(K, k) * comb(N - K, n - k) / comb(N, n) if 0 <= k <= min(K, n) else 0.0


def zero(est: Estimate) -> bool:
    return est.value == 0 and est.lo == 0 and est.hi == 0


# ------------------------------------------------------------------ catalogue and errors

def test_catalogue_lists_every_experiment():
    assert set(ALL) <= set(names())
    for n in ALL:
        e = get(n)
        assert e.name == n and e.description and e.variants


def test_unknown_experiment_lists_the_catalogue():
    with pytest.raises(ExperimentError) as ei:
        run_experiment("no-such-thing")
    for n in ALL:
        assert n in str(ei.value)


def test_unknown_variant_option_policy_are_clear_errors():
    with pytest.raises(OptionError, match="variants are balout, belote, baloot"):
        run_experiment("capot", "bridge", hands=10)
    with pytest.raises(ExperimentError, match="its variants are baloot"):
        run_experiment("sun-vs-hokm", "balout", hands=10)
    with pytest.raises(OptionError, match="options are target, .*first_lead"):
        run_experiment("capot", "balout", hands=10, options={"no_such_option": 1})
    with pytest.raises(OptionError, match="allowed"):
        run_experiment("capot", "balout", hands=10, options={"target": 123})
    with pytest.raises(OptionError, match="policies are random, greedy"):
        run_experiment("capot", "balout", hands=10, policy="clever")
    with pytest.raises(OptionError):
        run_experiment("capot", "balout", hands=0)


def test_cli_list_and_errors(capsys, tmp_path):
    assert main(["analyze", "--list"]) == 0
    out = capsys.readouterr().out
    for n in ALL:
        assert n in out
    assert main(["analyze", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment 'nope'" in err and "forced-take" in err
    assert main(["analyze", "capot", "--variant", "bridge", "--hands", "10"]) == 2
    assert "variants are balout, belote, baloot" in capsys.readouterr().err
    assert main(["analyze", "capot", "--hands", "10", "--options", '{"bogus": true}']) == 2
    assert "unknown option 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # argparse's usage errors
        main(["analyze", "capot", "--hands", "10", "--options", "target=1000"])
    assert stop.value.code == 2
    assert "--options: not valid JSON" in capsys.readouterr().err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(SystemExit) as stop:
        main(["analyze", "capot", "--hands", "10", "--out", str(a_file)])
    assert stop.value.code == 2
    assert f"--out: {a_file} is a file, not a directory" in capsys.readouterr().err
    assert main(["analyze"]) == 2
    assert "name an experiment" in capsys.readouterr().err


# ------------------------------------------------------------------ the Tally against plain numpy

def test_tally_matches_numpy():
    rng = np.random.default_rng(5)
    t = Tally()
    chunks = [rng.integers(0, 10, size=(n, 3)) for n in (100, 1, 257)]
    for c in chunks:
        t.hands += len(c)
        t.rate("r", c[:, 0] < 3, where=c[:, 1] != 0, by={"run": "x", "g": (c[:, 2] % 4, ["a", "b", "c", "d"])})
        t.mean("m", c[:, 0], by={"g": (c[:, 2] - 1, list(range(5)))})     # code -1 and 5..8 dropped
        t.share("s", by={"g": (c[:, 2] % 3, ["p", "q", "r"])}, where=c[:, 0] > 2)
    allc = np.concatenate(chunks)
    for k, lab in enumerate("abcd"):
        sel = (allc[:, 1] != 0) & (allc[:, 2] % 4 == k)
        e = t.estimate("r", run="x", g=lab)
        assert e.n == sel.sum() and e.value == pytest.approx((allc[sel, 0] < 3).mean())
        assert e.lo <= e.value <= e.hi
    for k in range(5):
        sel = allc[:, 2] - 1 == k
        e = t.estimate("m", g=k)
        v = allc[sel, 0].astype(float)
        assert e.n == sel.sum() and e.value == pytest.approx(v.mean())
        assert e.hi - e.value == pytest.approx(1.959964 * v.std(ddof=1) / math.sqrt(len(v)))
    shares = [t.estimate("s", g=lab) for lab in "pqr"]
    assert sum(s.value for s in shares) == pytest.approx(1.0)
    sel = allc[:, 0] > 2
    assert shares[0].value == pytest.approx((allc[sel, 2] % 3 == 0).mean())
    assert [e.group["g"] for e in t.estimates() if e.metric == "r"] == list("abcd")


def test_hands_needed_formula():
    assert hands_needed(0.5, 0.01) == math.ceil((1.959964 * 0.5 / 0.01) ** 2)
    assert hands_needed(0.5, 0.01, fraction=0.25) == math.ceil((1.959964 * 0.5 / 0.01) ** 2 / 0.25)


@pytest.mark.parametrize("args,words", [(("x", 0.01), "sd must be a finite number, got 'x'"),
                                        ((0.5, None), "half_width must be a finite number"),
                                        ((0.5, 0.01, float("nan")), "fraction must be a finite number"),
                                        ((True, 0.01), "sd must be"), ((-1, 0.01), "sd >= 0"),
                                        ((0.5, 0), "half_width > 0"), ((0.5, 0.01, 1.5), "0 < fraction <= 1")])
def test_hands_needed_refuses_what_is_not_a_precision(args, words):
    with pytest.raises(BaloutError, match=re.escape(words)):
        hands_needed(*args)


# ------------------------------------------------------------------ paired runs share their deals

def _same_deal_experiment(runs):
    def reduce(rows, t):
        a, b = rows["a"], rows["b"]
        same_auction = (a["bidder"] == b["bidder"]) & (a["trump"] == b["trump"])
        t.rate("same offer and dealer", (a["offer"] == b["offer"]) & (a["dealer"] == b["dealer"]))
        t.rate("same auction", same_auction)
        t.rate("same hands given the same auction", (a["dealt"] == b["dealt"]).all(axis=1), where=same_auction)
    return Experiment("same-deals", "check", runs=runs, reduce=reduce)


@pytest.mark.parametrize("variant,options", [
    ("balout", {"first_lead": "after_dealer", "capot": "250_all_tricks"}),
    ("baloot", {"first_lead": "after_taker", "declarations": "off"}),
])
def test_paired_runs_share_their_deals(variant, options):
    exp = _same_deal_experiment([Run("a"), Run("b", options)])
    res = run_experiment(exp, variant, hands=30_000, seed=3, chunk_size=4096)
    for m in ("same offer and dealer", "same auction", "same hands given the same auction"):
        e = res.get(m)
        assert e.value == 1.0 and e.n > 25_000, m
    # negative control: another seed deals other cards
    def reduce_other_seed(rows, t):
        other = next(iter(iter_simulate(variant, len(rows["a"]), seed=4)))
        t.rate("same offer", rows["a"]["offer"] == other["offer"])
    res2 = run_experiment(Experiment("x", "x", runs=[Run("a")], reduce=reduce_other_seed), variant,
                          hands=5000, seed=3, chunk_size=5000)
    assert res2.get("same offer").value < 0.1


# ------------------------------------------------------------------ make rate by holding: hypergeometric law

def test_make_rate_by_holding_trump_counts_are_hypergeometric():
    """Random bids ignore the cards, so the taker's 7 cards besides the
    offer are 7 of the other 31: trumps - 1 ~ H(31, 7, 7) when the trump is
    the offer's suit, trumps ~ H(31, 8, 7) otherwise (round 2)."""
    res = run_experiment("make-rate-by-holding", "balout", hands=200_000, seed=7)
    for k in range(9):
        for same, law in (("yes", hypergeom(31, 7, 7, k - 1)), ("no", hypergeom(31, 8, 7, k))):
            try:
                e = res.get("share of trump contracts", **{"trump = offer suit": same, "trumps held": k})
            except KeyError:
                assert law < 1e-4
                continue
            assert close(e, law), (same, k, e.value, law)
    assert close(res.get("trumps held (mean)", **{"trump = offer suit": "yes"}), 1 + 49 / 31)
    assert close(res.get("trumps held (mean)", **{"trump = offer suit": "no"}), 56 / 31)
    # holding the J of trump: 7/31 of round-1 takes (offer not a J), all the J offers
    # the make rate over the J levels adds up to the simulator's own count
    sim = balout.simulate("balout", 200_000, seed=7)
    r = sim.hands
    trumpc = (r["outcome"] <= 2) & (r["kind"] == 1)
    yes, no = (res.get("make rate", **{"J of trump": v}) for v in ("yes", "no"))
    assert yes.n + no.n == trumpc.sum()
    assert round(yes.value * yes.n + no.value * no.n) == ((r["outcome"] == 0) & trumpc).sum()
    # the J of trump helps
    assert yes.lo > no.hi


def test_make_rate_cells_equal_a_direct_recount():
    """Every 'make rate by trumps held' cell, recomputed in plain Python from
    the whole rows of the same run (CardSet, not the reducer's bit tricks)."""
    res = run_experiment("make-rate-by-holding", "belote", hands=3000, seed=2, policy="greedy")
    rows = balout.simulate("belote", 3000, "greedy", seed=2).hands
    counts = {}
    for row in rows:
        if row["outcome"] > 2 or row["kind"] != 1:
            continue
        hand = balout.CardSet(int(row["dealt"][row["bidder"]]))
        k = sum(1 for c in hand if int(c) // 8 == row["trump"])
        n, m = counts.get(k, (0, 0))
        counts[k] = (n + 1, m + (row["outcome"] == 0))
    for k, (n, m) in counts.items():
        e = res.get("make rate", **{"trumps held": k})
        assert e.n == n and e.value == pytest.approx(m / n)


# ------------------------------------------------------------------ coverage of the intervals

def test_intervals_cover_the_true_value_at_about_95_percent():
    """Seeded replications of figures whose true value is known exactly:
    120 x 5 (hypergeometric shares and a mean), then 200 Wilson rates at 1/2."""
    truths = {("share of trump contracts", k): hypergeom(31, 7, 7, k - 1) for k in (1, 2, 3, 4)}
    hits = trials = 0
    for seed in range(120):
        res = run_experiment("make-rate-by-holding", "balout", hands=2500, seed=1000 + seed, threads=1)
        for (m, k), p in truths.items():
            e = res.get(m, **{"trump = offer suit": "yes", "trumps held": k})
            hits += e.covers(p)
            trials += 1
        e = res.get("trumps held (mean)", **{"trump = offer suit": "yes"})
        hits += e.covers(1 + 49 / 31)
        trials += 1
    cover = hits / trials
    assert trials == 600
    assert 0.91 <= cover <= 0.99, cover
    # a Wilson rate whose true value is 1/2: the free first player takes a J offer half the time
    hits = trials = 0
    for seed in range(200):
        res = run_experiment("forced-take", "balout", hands=800, seed=5000 + seed, threads=1)
        hits += res.get("first player takes the J", rule="free").covers(0.5)
        trials += 1
    assert 0.90 <= hits / trials <= 0.99, hits / trials


# ------------------------------------------------------------------ hands needed for a precision

def test_hands_needed_delivers_the_requested_precision():
    h = 0.01
    pilot = run_experiment("make-rate-by-holding", "balout", hands=50_000, seed=1, precision=h)
    e = pilot.get("make rate", **{"J of trump": "yes"})
    need = e.needed
    assert 5_000 < need < 200_000
    full = run_experiment("make-rate-by-holding", "balout", hands=need, seed=2, precision=h)
    e2 = full.get("make rate", **{"J of trump": "yes"})
    half = (e2.hi - e2.lo) / 2
    assert 0.85 * h <= half <= 1.15 * h, (half, need)


# ------------------------------------------------------------------ first lead

def test_first_lead_same_options_give_zero_difference():
    exp = get("first-lead").with_runs([Run("after_taker", {"first_lead": "after_dealer"}),
                                       Run("after_dealer", {"first_lead": "after_dealer"})])
    res = run_experiment(exp, "balout", hands=20_000, seed=4)
    paired = [e for e in res.estimates if e.metric.startswith("paired")]
    assert len(paired) >= 5 and all(zero(e) for e in paired)


def test_first_lead_pairing_reduces_variance():
    res = run_experiment("first-lead", "balout", hands=100_000, seed=4)
    d = res.get("paired: takers' margin, after_taker - after_dealer")
    a = res.get("takers' margin", **{"first lead": "after_taker"})
    b = res.get("takers' margin", **{"first lead": "after_dealer"})
    assert d.value == pytest.approx(a.value - b.value)
    assert d.se < 0.7 * math.hypot(a.se, b.se)
    # the takers never lead trick 1 under after_taker
    with pytest.raises(KeyError):
        res.get("make rate", **{"first lead": "after_taker", "takers lead trick 1": "yes"})


# ------------------------------------------------------------------ dealer's seat: the random auction, enumerated

def test_dealer_seat_shares_match_the_enumerated_random_auction():
    """balout, random policy: round 1 each seat takes with 1/2 (seat d+1
    always on a J offer, 1/8 of deals); round 2 each names a suit with 3/4."""
    q = 7 / 8
    p = {"d+1 (first to speak)": 1 / 8 + q * (1 / 2 + 1 / 16 * 3 / 4),
         "d+2": q * (1 / 4 + 1 / 16 * 1 / 4 * 3 / 4),
         "d+3": q * (1 / 8 + 1 / 16 * (1 / 4) ** 2 * 3 / 4),
         "dealer": q * (1 / 16 + 1 / 16 * (1 / 4) ** 3 * 3 / 4)}
    cancel = q * (1 / 16) * (1 / 4) ** 4
    assert sum(p.values()) + cancel == pytest.approx(1)
    res = run_experiment("dealer-seat", "balout", hands=200_000, seed=8)
    for seat, pr in p.items():
        assert close(res.get("bidder's seat", **{"bidder's seat": seat}), pr / (1 - cancel)), seat
    assert close(res.get("cancelled rate"), cancel)
    d, o, v = (res.get(m) for m in ("dealer's team score per hand", "other team's score per hand",
                                    "dealer's seat value (dealer's team - other team, per hand)"))
    assert v.value == pytest.approx(d.value - o.value)


# ------------------------------------------------------------------ declarations

def test_declarations_same_options_give_zero_difference():
    exp = get("declarations").with_runs([Run("auto"), Run("off")])   # both at the defaults
    res = run_experiment(exp, "belote", hands=20_000, seed=5)
    paired = [e for e in res.estimates if e.metric.startswith("paired")]
    assert len(paired) >= 5 and all(zero(e) for e in paired)


def test_declarations_value_follows_the_balout_scoring():
    """balout compares card points only, so declarations never change the
    outcome: held by the defence they add exactly their value to its
    advantage; held by the takers +value if made, -value if failed, 0 in a
    litige (they go to the pot)."""
    res = run_experiment("declarations", "balout", hands=60_000, seed=6)
    r = balout.simulate("balout", 60_000, seed=6, options={"declarations": "auto"}).hands
    ok = (r["outcome"] <= 2) & (r["decl_team"] >= 0)
    tk = r["bidder"] & 1
    dv = r["decl_value"].astype(float)
    defence = ok & (r["decl_team"] != tk)
    takers = ok & (r["decl_team"] == tk)
    e = res.get("paired value to the holding team (auto - off)", holder="defence")
    assert e.n == defence.sum() and e.value == pytest.approx(dv[defence].mean())
    expect = np.where(r["outcome"] == 0, dv, np.where(r["outcome"] == 1, -dv, 0))[takers].mean()
    e = res.get("paired value to the holding team (auto - off)", holder="takers")
    assert e.n == takers.sum() and e.value == pytest.approx(expect)
    assert zero(res.get("paired: make rate (auto - off)", holder="takers"))


# ------------------------------------------------------------------ litige pot

def _random_chain(variant, hands, seed):
    """Hands played in Python in order, the litige pot carried by the engine."""
    rng = np.random.default_rng(seed)
    pot, states = 0, []
    for i in range(hands):
        deck = [int(x) for x in rng.permutation(32)]
        s = State(variant, deck=deck, dealer=i % 4, litige_pot=pot, options={"litige_pot": True})
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply_action(acts[rng.integers(len(acts))])
        states.append(s)
        pot = s.litige_pot
    return states


def test_litige_pot_flow_matches_the_engine():
    states = _random_chain("balout", 2500, seed=12)
    rows = np.frombuffer(b"".join(bytes(_core.hand_row(s)) for s in states), HAND_DTYPE)
    assert (rows["outcome"] == 2).sum() >= 10
    # in pieces, with the carry, exactly as in one piece
    whole, carry_w = cat.pot_flow(rows)
    parts, carry, start = [], None, 0
    for cut in (0, 37, 38, 900, 901, 2500):
        if cut <= start:
            continue
        pay, carry = cat.pot_flow(rows[start:cut], carry, start)
        parts.append(pay)
        start = cut
    for k in whole:
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert carry == carry_w
    paid_at = {int(i): (int(a), int(t), int(g), int(c), int(w)) for i, a, t, g, c, w in zip(
        whole["index"], whole["amount"], whole["receiver"], whole["origin"], whole["count"], whole["wait"])}
    pot = count = 0
    origin = first = None
    for i, s in enumerate(states):
        o = rows["outcome"][i]
        if o == 2:
            pot += int(cat.pot_contribution(rows[i:i + 1])[0])
            count += 1
            if origin is None:
                origin, first = int(rows["bidder"][i]) & 1, i
        if i in paid_at:
            amount, team, g, c, w = paid_at[i]
            assert (amount, g, c, w) == (pot, origin, count, i - first)
            assert team == (int(rows["bidder"][i]) & 1) ^ (rows["outcome"][i] == 1)
            count, origin = 0, None
            alone = State.from_record(s.to_record())        # the same hand with an empty pot
            gain = [s.hand_score[t] - alone.hand_score[t] for t in (0, 1)]
            assert gain[team] == amount and gain[1 - team] == 0
            pot = 0
        assert s.litige_pot == pot, i
    assert len(whole["index"]) >= 10


def _rows(spec):
    """Rows from (outcome, bidder, takers' card points, decl team, decl value)."""
    r = np.zeros(len(spec), HAND_DTYPE)
    for i, (o, b, cp, dt, dv) in enumerate(spec):
        r[i]["outcome"], r[i]["bidder"], r[i]["decl_team"], r[i]["decl_value"] = o, b, dt, dv
        r[i]["dealer"] = i % 4
        if b >= 0:
            r[i]["card_points"][b & 1] = cp
            r[i]["card_points"][1 - (b & 1)] = 162 - cp
    return r


def test_litige_pot_flow_synthetic():
    """Hand-made rows, cut into two chunks at every place: litige (team 0
    takes: 81 + its 50), cancelled, litige (team 1 takes: 81; the 20 of
    declarations are team 0's), made by team 1 (pays 212 to team 1), litige
    (team 0), failed by team 1 (pays 81 to team 0), litige left unpaid."""
    M, F, L, C = 0, 1, 2, 3
    r = _rows([(M, 1, 100, -1, 0), (L, 0, 81, 0, 50), (C, -1, 0, -1, 0), (L, 3, 81, 0, 20),
               (M, 1, 90, -1, 0), (L, 2, 81, -1, 0), (F, 1, 60, -1, 0), (L, 1, 81, 1, 20)])
    for cut in range(0, 9):
        pays, carry = [], None
        for a, b in ((0, cut), (cut, 8)):
            if b > a:
                p, carry = cat.pot_flow(r[a:b], carry, a)
                pays.append(p)
        got = {k: np.concatenate([p[k] for p in pays]).tolist() for k in pays[0]}
        assert got == {"index": [4, 6], "amount": [212, 81], "count": [2, 1], "origin": [0, 0],
                       "receiver": [1, 0], "made": [1, 0], "wait": [3, 1]}, cut
        assert carry == {"amount": 101, "count": 1, "origin": 1, "first": 7}
    # two unpaid litiges carried over a cut: the pot's origin is the first one's
    p, carry = cat.pot_flow(r[:4])
    assert carry == {"amount": 212, "count": 2, "origin": 0, "first": 1} and len(p["index"]) == 0


def test_litige_experiment():
    res = run_experiment("litige", "balout", hands=200_000, seed=9)
    lit = res.get("litige rate")
    assert 0.002 < lit.value < 0.05
    # a single-litige pot holds the takers' 81 plus declarations: at least 81
    assert res.get("points put in the pot per litige").value >= 81
    shares = res.rows("litiges in one pot")
    assert sum(e.value for e in shares) == pytest.approx(1)
    # every pot is collected by one of the two teams
    a, b = (res.get("pot paid per hand", **{"to team": t}) for t in (0, 1))
    assert a.value > 0 and b.value > 0
    # without a pot there is no litige (belote's default; the run's option switched off)
    off = run_experiment(get("litige").with_runs([Run("pot", {"litige_pot": False})]), "belote",
                         hands=50_000, seed=9)
    assert off.get("litige rate").value == 0
    with pytest.raises(KeyError):
        off.get("pot size when paid")


# ------------------------------------------------------------------ capot

@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_capot_rates_equal_the_rule_definitions(variant):
    res = run_experiment("capot", variant, hands=60_000, seed=10)
    for run in res.runs:
        rule = run.options["capot"]
        r = balout.simulate(variant, 60_000, seed=10, options=dict(run.options)).hands
        ok = r["outcome"] <= 2
        if rule == "plus100_zero_points":
            truth = (r["card_points"].min(axis=1) == 0) & ok
        else:  # 250_all_tricks, kaboot: all 8 tricks
            truth = (r["tricks_won"].max(axis=1) == 8) & ok
        e = res.get("capot rate", rule=rule)
        assert e.n == ok.sum() and round(e.value * e.n) == truth.sum()
        assert truth.sum() > 0
    if variant != "baloot":
        d = res.get("paired: capot rate, plus100_zero_points - 250_all_tricks")
        assert d.value >= 0   # all tricks to one team means zero points for the other


# ------------------------------------------------------------------ forced take on the J

def test_forced_take_known_answers():
    res = run_experiment("forced-take", "balout", hands=100_000, seed=11)
    forced = res.get("first player takes the J", rule="forced")
    assert forced.value == 1.0 and forced.n > 10_000
    assert close(res.get("first player takes the J", rule="free"), 0.5)
    eff = res.get("paired effect of forcing (forced - free), per J offer", team="first player's - dealer's")
    per_hand = res.get("paired effect of forcing (forced - free), per hand dealt", team="first player's - dealer's")
    assert per_hand.value == pytest.approx(eff.value * eff.n / per_hand.n)
    same = get("forced-take").with_runs([Run("forced", {"forced_take_on_jack": True}),
                                         Run("free", {"forced_take_on_jack": True})])
    res0 = run_experiment(same, "belote", hands=20_000, seed=11)
    paired = [e for e in res0.estimates if e.metric.startswith("paired")]
    assert len(paired) == 4 and all(zero(e) for e in paired)


# ------------------------------------------------------------------ Sun against Hokm

def test_sun_vs_hokm_cells_equal_a_direct_recount():
    res = run_experiment("sun-vs-hokm", "baloot", hands=6000, seed=12)
    r = balout.simulate("baloot", 6000, seed=12).hands
    cells = {}
    for row in r:
        if row["outcome"] > 2:
            continue
        hand = balout.CardSet(int(row["dealt"][row["bidder"]]))
        aces = sum(1 for c in hand if str(c)[0] == "A")
        margin = int(row["hand_score"][row["bidder"] & 1]) - int(row["hand_score"][1 - (row["bidder"] & 1)])
        cells.setdefault(("hokm", "sun")[row["kind"] - 1], {}).setdefault(aces, []).append(margin)
    for kind, by in cells.items():
        for aces, ms in by.items():
            e = res.get("buyers' margin", contract=kind, **{"bidder's aces": aces})
            assert e.n == len(ms) and e.value == pytest.approx(np.mean(ms))
    for a in range(5):
        try:
            d = res.get("Sun - Hokm: buyers' margin", **{"bidder's aces": a})
        except KeyError:
            continue
        s = res.get("buyers' margin", contract="sun", **{"bidder's aces": a})
        h = res.get("buyers' margin", contract="hokm", **{"bidder's aces": a})
        assert d.value == pytest.approx(s.value - h.value)
        assert d.se == pytest.approx(math.hypot(s.se, h.se))


# ------------------------------------------------------------------ doubling

@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_doubled_score_formula_reproduces_doubled_hands(policy):
    """The counterfactual x2 score of the doubling experiment is the rules'
    formula: on hands that really were doubled (x2, x3, x4, no gahwa) it
    gives exactly the engine's hand score."""
    r = balout.simulate("baloot", 60_000, policy, seed=13).hands
    doubled = r[(r["multiplier"] > 1) & (r["gahwa"] == 0) & (r["outcome"] <= 2)]
    assert len(doubled) > (300 if policy == "random" else 50)
    for m in (2, 3, 4):
        sub = doubled[doubled["multiplier"] == m]
        assert len(sub) > 10 or policy == "greedy"
        assert np.array_equal(cat.doubled_scores(sub, m), sub["hand_score"].astype(np.int64)), m
    # a kaboot among them is covered too (random play gives many in Sun)
    assert (doubled["capot"] >= 0).any() or policy == "greedy"


def test_doubling_break_even():
    res = run_experiment("doubling", "baloot", hands=100_000, seed=14)
    for kind in ("sun", "hokm"):
        p = res.get("break-even failure probability for doubling", contract=kind)
        assert 0.3 < p.value < 0.9 and p.lo < p.value < p.hi
        w = res.get("defence's gain if the contract fails", contract=kind).value
        l_ = -res.get("defence's gain if the contract is made", contract=kind).value
        assert w > 0 and l_ > 0 and p.value == pytest.approx(l_ / (w + l_))
        # the overall gain is the mixture of the two cases
        f = res.get("contract fails", contract=kind).value
        assert res.get("defence's gain from doubling", contract=kind).value == pytest.approx(
            f * w - (1 - f) * l_)
    # doubling pays more the more aces the doubler holds (Sun)
    g0 = res.get("defence's gain from doubling", contract="sun", **{"doubler's aces": 0})
    g3 = res.get("defence's gain from doubling", contract="sun", **{"doubler's aces": 3})
    assert g3.lo > g0.hi


# ------------------------------------------------------------------ match experiments

def test_match_win_table_against_python_matches():
    res = run_experiment("match-win", "balout", hands=20_000, seed=15)
    cells = res.rows("P(team 0 wins)")
    assert len(cells) == 100 and {e.group["team 0 score"] for e in cells} == set(range(0, 500, 50))
    hi = res.get("P(team 0 wins)", **{"team 0 score": 450, "team 1 score": 0})
    lo = res.get("P(team 0 wins)", **{"team 0 score": 0, "team 1 score": 450})
    assert hi.value > 0.9 and lo.value < 0.1
    # an independent estimate: matches played through balout.Match in Python
    rng = np.random.default_rng(0)
    wins, n = 0, 300
    for j in range(n):
        m = balout.Match("balout", seed=int(rng.integers(1 << 62)), score=(300, 350))
        while not m.is_over:
            h = m.new_hand()
            while not h.is_terminal():
                acts = h.legal_actions()
                h.apply_action(acts[rng.integers(len(acts))])
            m.add_hand(h)
        wins += m.winner == 0
    e = res.get("P(team 0 wins)", **{"team 0 score": 300, "team 1 score": 350})
    p_py = wins / n
    se = math.sqrt(e.se ** 2 + p_py * (1 - p_py) / n)
    assert abs(e.value - p_py) < Z * se, (e.value, p_py)


def test_match_length_same_target_gives_zero_difference():
    exp = cat.match_length_experiment(targets=(500, 1000), name="ml")
    res = run_experiment(exp, "balout", hands=4000, seed=16)
    d500 = res.get("paired: hands per match, minus target 500", target=500)
    assert zero(d500) and d500.n == 2000
    d1000 = res.get("paired: hands per match, minus target 500", target=1000)
    # same deals: a match to 1000 plays the match to 500 and then more hands
    assert d1000.lo > 0
    h500, h1000 = (res.get("hands per match", target=t) for t in (500, 1000))
    assert d1000.value == pytest.approx(h1000.value - h500.value)
    assert d1000.se < 0.8 * math.hypot(h500.se, h1000.se)
    full = run_experiment("match-length", "belote", hands=32_000, seed=16)
    means = [full.get("hands per match", target=t).value for t in range(500, 2001, 100)]
    assert means == sorted(means)


# ------------------------------------------------------------------ every experiment runs everywhere

@pytest.mark.parametrize("name", ALL)
def test_every_experiment_runs_on_each_variant(name):
    exp = get(name)
    for v in exp.variants:
        n = 3000 if exp.unit == "hands" else 1200
        res = run_experiment(name, v, hands=n, seed=1, threads=1)
        assert res.estimates and res.hands >= n * 0.9
        for e in res.estimates:
            if e.kind in ("rate", "share") and e.n:
                assert 0 <= e.lo <= e.value <= e.hi <= 1
        assert name in res.table()


# ------------------------------------------------------------------ outputs

def _png_pixels(path):
    import matplotlib.image as mpimg
    return mpimg.imread(path)


def test_outputs_csv_report_plots_parquet(tmp_path):
    res = run_experiment("forced-take", "balout", hands=20_000, seed=1)
    written = res.save(str(tmp_path))
    with open(tmp_path / "forced-take.csv", newline="") as f:
        recs = list(csv.DictReader(f))
    assert len(recs) == len(res.estimates)
    assert {"metric", "rule", "team", "value", "ci_low", "ci_high", "needed"} <= set(recs[0])
    report = (tmp_path / "report.md").read_text()
    assert res.command() in report and "## Tables" in report and "first player takes the J" in report
    # matplotlib and pyarrow come with the test extras: the plots and the parquet file are written
    assert written["plots"] and all(os.path.getsize(p) > 1000 for p in written["plots"])
    for p in written["plots"]:
        assert f"]({os.path.basename(p)})" in report
        img = _png_pixels(p)[..., :3]
        assert img.shape[0] > 100 and img.shape[1] > 100
        assert ((img.max(axis=2) - img.min(axis=2)) > 0.15).mean() > 0.05   # coloured bars drawn
    import pyarrow.parquet as pq
    t = pq.read_table(tmp_path / "forced-take.parquet")
    assert t.num_rows == len(res.estimates)
    assert t.column("value").to_pylist() == pytest.approx([e.value for e in res.estimates])
    assert t.schema.metadata[b"command"].decode() == res.command()


def test_outputs_without_matplotlib_or_pyarrow(tmp_path, monkeypatch):
    """Both are optional for users: without them the tables and the report
    are written, and there are no plots and no parquet file."""
    import sys
    for mod in ("matplotlib", "matplotlib.pyplot", "pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, mod, None)   # import raises ImportError
    res = run_experiment("forced-take", "balout", hands=5_000, seed=1)
    written = res.save(str(tmp_path))
    assert written["plots"] == []
    assert (tmp_path / "forced-take.csv").exists() and (tmp_path / "report.md").exists()
    assert not (tmp_path / "forced-take.parquet").exists()
    assert ".png" not in (tmp_path / "report.md").read_text()


def test_match_win_heatmap(tmp_path):
    res = run_experiment("match-win", "balout", hands=2_000, seed=15)
    written = res.save(str(tmp_path))
    assert len(written["plots"]) == 1 and written["plots"][0].endswith("match-win-1.png")
    img = _png_pixels(written["plots"][0])[..., :3]
    # the grid's cells are coloured: a large part of the figure, where the
    # colour bar alone is a thin strip
    coloured = (img.max(axis=2) - img.min(axis=2)) > 0.15
    assert coloured.mean() > 0.2


def test_cli_analyze_writes_outputs(tmp_path, capsys):
    out = tmp_path / "rep"
    rc = main(["analyze", "capot", "--variant", "belote", "--hands", "5000", "--seed", "3", "--out", str(out),
               "--no-progress"])
    assert rc == 0
    text = capsys.readouterr()
    assert "capot rate by rule" in text.out and "250_all_tricks" in text.out
    assert "balout analyze capot --variant belote --hands 5000 --policy random --seed 3" in text.err
    assert (out / "capot.csv").exists() and (out / "report.md").exists()
    rc = main(["analyze", "capot", "--variant", "belote", "--hands", "5000", "--seed", "3", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["rows"] and doc["seed"] == 3


# ------------------------------------------------------------------ user-defined experiments

def test_user_experiment_in_a_few_lines():
    def reduce(rows, t):
        r = rows["base"]
        t.rate("make rate", r["outcome"] == 0, where=r["outcome"] <= 2)

    exp = Experiment("my-make-rate", "Make rate", runs=[Run("base")], reduce=reduce)
    res = run_experiment(exp, "belote", hands=50_000, seed=1)
    s = balout.simulate("belote", 50_000, seed=1).summary()["make_rate"]
    assert res.get("make rate").value == pytest.approx(s["value"])


def test_the_documented_example_runs():
    import re
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "analysis.md").read_text()
    code = re.search(r"```python\n# mine.py\n(.*?)```", doc, re.S).group(1)
    ns = {"__name__": "mine"}
    exec(compile(code, "docs/analysis.md", "exec"), ns)
    res = run_experiment(ns["OVERTRUMP"], "balout", hands=20_000, seed=1)
    a, b = (res.get("make rate", rule=r) for r in ("overtrump", "free"))
    d = res.get("paired: make rate")
    assert d.value == pytest.approx(a.value - b.value)
    assert len(res.rows("paired: make rate")) == 9


def test_user_experiment_from_a_file(tmp_path, capsys):
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent('''
        from balout.analysis import Experiment, Run
        def reduce(rows, t):
            a, b = rows["x1"], rows["x1 again"]
            t.mean("difference", a["hand_score"][:, 0].astype(int) - b["hand_score"][:, 0])
        EXP = Experiment("mine", "two equal runs", runs=[Run("x1"), Run("x1 again")], reduce=reduce)
    '''))
    assert main(["analyze", f"{f}:EXP", "--hands", "3000", "--seed", "1"]) == 0
    assert "difference" in capsys.readouterr().out
    assert main(["analyze", f"{f}:NOPE", "--hands", "10"]) == 2
    assert "no Experiment named 'NOPE'" in capsys.readouterr().err


# ------------------------------------------------------------------ memory and speed

def test_memory_is_flat_in_the_number_of_hands():
    def peak(n):
        tracemalloc.start()
        run_experiment("make-rate-by-holding", "balout", hands=n, seed=1, threads=2, chunk_size=1 << 15)
        _, p = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return p
    small, big = peak(100_000), peak(800_000)
    assert big < 40 << 20
    assert big < 1.5 * small + (2 << 20), (small, big)
