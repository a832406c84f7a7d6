"""Match equity (balout.equity) and the bots' decisions by it.

References: a race worked out by hand (the dynamic programming on a known
distribution of hand scores), the table's own symmetry, and the Python
lookup against the core's on hands whose last card is forced.
"""
from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from balout import State, _core
from balout.bots import MonteCarloBot, PIMCBot, make_bot
from balout import equity
from balout.equity import MatchEquity, _backward, match_equity
from balout.errors import OptionError
from balout.search import Sampler, Solver
from helpers import mean_over_worlds, played_out_double_dummy

GREEDY = 1


def test_a_race_to_two_worked_out_by_hand():
    """Each hand gives one point to one team, either with chance 1/2, first
    to 2 wins: from 1-0 the leader wins now (1/2) or reaches 1-1 (1/2 * 1/2)."""
    table = _backward(np.array([[1, 0], [0, 1]]), target=2, step=1)
    assert table.shape == (2, 2) and table.dtype == np.float32
    assert table[0, 0] == pytest.approx(0.5)
    assert table[1, 1] == pytest.approx(0.5)
    assert table[1, 0] == pytest.approx(0.75)
    assert table[0, 1] == pytest.approx(0.25)


def test_hands_where_nobody_scores_are_dealt_again_and_both_teams_may_score():
    """Half the hands score nothing (thrown in); the others give 2 to one team
    and 1 to the other: the first to 3 wins, and from 2-2 the match is the
    next scoring hand's (a tie past the target would play on)."""
    scores = np.array([[0, 0], [0, 0], [2, 1], [1, 2]])
    table = _backward(scores, target=3, step=1)
    # 2-2: the next hand ends it, 4-3 or 3-4
    assert table[2, 2] == pytest.approx(0.5)
    # 2-0: 4-1 wins, 3-2 wins
    assert table[2, 0] == pytest.approx(1.0)
    # 0-2: 2-3 loses, 1-4 loses
    assert table[0, 2] == pytest.approx(0.0)
    # 1-1: 3-2 wins, 2-3 loses
    assert table[1, 1] == pytest.approx(0.5)
    # 1-0: 3-1 wins; 2-2 then half
    assert table[1, 0] == pytest.approx(0.75)


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_tables_are_fair_and_rise_with_the_own_score(variant):
    e = MatchEquity(variant, hands=20_000, seed=1)
    t = e.table.astype(np.float64)
    assert t.shape == (e.n, e.n) and e.n * e.step >= e.target > (e.n - 1) * e.step
    assert np.allclose(t + t.T, 1.0, atol=1e-5)          # each hand counted from both sides
    assert ((0.0 <= t) & (t <= 1.0)).all()
    assert e(0, 0) == pytest.approx(0.5, abs=1e-6)
    # more points for us, fewer for them: never worse (small slack for the steps)
    assert (np.diff(t, axis=0) >= -0.02).all() and (np.diff(t, axis=1) <= 0.02).all()
    assert t[-1, 0] > 0.95 and t[0, -1] < 0.05
    assert e(e.target, e.target - 1) == 1.0 and e(e.target - 1, e.target) == 0.0
    assert e(e.target + 3, e.target + 3) == 0.5


def test_lookup_and_the_shared_table():
    e = match_equity("balout")
    assert e is match_equity("balout", {"target": 500})   # made once per rules
    assert e.step == 5 and e.n == 100
    assert e(12, 7) == e.table[2, 1]
    assert match_equity("balout", {"target": 1000}).n == 100
    assert match_equity("balout", {"target": 1000}).step == 10
    table, step = e.native()
    assert table is e.table and step == 5


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_the_tables_made_in_advance_are_what_the_engine_computes(variant):
    """The shipped table of each variant's default rules is the one
    MatchEquity computes now (if the engine's rules or greedy player change,
    this fails: remake them with python -m balout.equity)."""
    computed = MatchEquity(variant)
    with np.load(equity.MADE_TABLES) as made:
        shipped = made[f"{variant}_table"]
    np.testing.assert_allclose(shipped, computed.table, rtol=0, atol=1e-6)


def test_the_default_rules_read_the_made_table_and_others_compute_theirs(monkeypatch):
    computed = []
    real = MatchEquity.__init__

    def counting(self, variant="balout", options=None, **kw):
        computed.append(variant)
        real(self, variant, options, **kw)

    monkeypatch.setattr(MatchEquity, "__init__", counting)
    equity._cached.cache_clear()
    try:
        e = match_equity("baloot")
        assert computed == [] and e.target == 152 and e.table.dtype == np.float32
        with np.load(equity.MADE_TABLES) as made:
            assert np.array_equal(e.table, made["baloot_table"])
        assert match_equity("belote", {"target": 500}).n == 100 and computed == ["belote"]
        # a table made for other rules is not taken for these
        assert equity._made_table("belote", {**match_equity("belote").options, "target": 500}) is None
    finally:
        equity._cached.cache_clear()


def test_bad_arguments():
    e = match_equity("balout")
    for bad in (-1, 1.5, "3", None):
        with pytest.raises((TypeError, ValueError)):
            e(bad, 0)
    with pytest.raises(OptionError):
        MatchEquity("balout", {"target": "x"})
    with pytest.raises((TypeError, ValueError)):
        MatchEquity("balout", hands=0)
    with pytest.raises(OptionError, match="objective"):
        MonteCarloBot(objective="equity")


def last_card_states(variant: str, count: int, scores):
    """States at the last card of a hand (every other card known to the seat
    to act), the match at one of ``scores``."""
    rng = random.Random(variant)
    out, seed = [], 0
    while len(out) < count:
        seed += 1
        s = State(variant, seed=seed, match_score=scores[seed % len(scores)])
        while not s.is_terminal() and sum(bin(h).count("1") for h in s.hand_masks) > 1:
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal() and s.phase == "play":
            out.append(s)
    return out


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_flat_monte_carlo_by_equity_is_the_table_after_the_hand(variant):
    """At the last card there is one world and one action: the core's mean
    is the Python table's value at the match score the hand ends with (1 or 0
    once the match is decided, 0.5 for a tie past the target)."""
    e = match_equity(variant)
    T = e.target
    scores = [(0, 0), (T - 40, T - 60), (T - 5, T - 5), (T // 2, T - 1), (T - 1, 3)]
    decided = undecided = 0
    for s in last_card_states(variant, 60, scores):
        (action, value), = _core.mc_evaluate(s, 5, GREEDY, 1, 1.0, None, 1.0, e.native()).items()
        t = s.clone()
        t.apply_action(action)
        team = s.to_act & 1
        us, them = t.match_score[team], t.match_score[team ^ 1]
        if t.match_winner is not None:
            assert value == (1.0 if t.match_winner == team else 0.0)
            decided += 1
        else:
            assert value == pytest.approx(e(us, them), abs=1e-7)
            undecided += 1
    assert decided >= 5 and undecided >= 5


def test_equity_tables_are_checked_at_the_boundary():
    s = State("balout", seed=3)
    before = s.to_record()
    good, step = match_equity("balout").native()
    bad = [((good.astype(np.float64), step), TypeError),          # not float32
           ((good[:, :50], step), TypeError),                     # not square
           ((np.asfortranarray(good.T), step), TypeError),        # not C-contiguous
           ((good, 4), ValueError),                               # 100 rows of 4 miss the target
           ((good, 6), ValueError),                               # too many rows for 6
           ((good, 0), ValueError), ((good, 5.0), ValueError),
           (good, TypeError), ((good,), TypeError), ("table", TypeError)]
    for table, error in bad:
        with pytest.raises(error):
            _core.mc_evaluate(s, 10, GREEDY, 1, 1.0, None, 1.0, table)
    assert s.to_record() == before
    values = _core.mc_evaluate(s, 200, GREEDY, 1, 1.0, None, 1.0, (good, step))
    assert set(values) == set(s.legal_actions())
    assert all(0.0 <= v <= 1.0 for v in values.values())


def test_a_bot_reading_the_score_bids_otherwise_when_the_match_is_at_stake():
    """The first bid of the same hands, by two bots drawing the same worlds,
    one maximising the hand score and one the chance of winning the match:
    at 0-0, where that chance moves with the score, they agree; with the
    side to bid behind 300-480 they do not always (it must gamble), and the
    bot by equity stays deterministic under its seed."""
    by_score = MonteCarloBot(300, seed=5)
    by_equity = MonteCarloBot(300, seed=5, objective="match")
    calm_differ = stake_differ = 0
    for seed in range(60):
        calm = State("balout", seed=seed)
        at_stake = State("balout", seed=seed, match_score=(480, 300) if calm.to_act & 1 else (300, 480))
        calm_differ += by_score.act(calm) != by_equity.act(calm)
        stake_differ += by_score.act(at_stake) != by_equity.act(at_stake)
        assert by_equity.act(at_stake) == MonteCarloBot(300, seed=5, objective="match").act(at_stake)
    assert calm_differ <= 2 and stake_differ >= 4


def equity_if_played(s: State, card: int) -> float:
    """The acting team's chance to win the match once ``card`` is played and
    the hand ends double-dummy, plus a millionth of its card points (PIMC's
    value by match)."""
    team = s.to_act & 1
    t = played_out_double_dummy(s, card)
    if t.match_winner is not None:
        value = 1.0 if t.match_winner == team else 0.0
    else:
        value = match_equity(s.variant, s.options)(t.match_score[team], t.match_score[team ^ 1])
    return value + t.card_points[team] * 1e-6


def at_stake_positions(variant: str, count: int, cards: int):
    """Positions with ``cards`` cards in the hands, the match near its end."""
    rng = random.Random(cards)
    out, seed, target = [], 0, match_equity(variant).target
    while len(out) < count:
        seed += 1
        score = (target - rng.randrange(1, target // 3), target - rng.randrange(1, target // 3))
        s = State(variant, seed=seed, match_score=score)
        while not s.is_terminal() and (s.phase != "play" or sum(bin(h).count("1") for h in s.hand_masks) > cards):
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s)
    return out


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_pimc_by_match_values_each_world_by_its_double_dummy_line(variant):
    """A world's value of a card is the match equity after the hand played
    out double-dummy after it, from the match score before the hand."""
    differs = 0
    for s in at_stake_positions(variant, 4, 9):
        expect = mean_over_worlds(s, Sampler(s, s.to_act).hands(3, 21), equity_if_played)
        got = Solver().pimc(s, 3, 21, objective="match")["moves"]
        assert got.keys() == expect.keys()
        assert all(math.isclose(got[c], expect[c], abs_tol=1e-6) for c in expect), (got, expect)
        assert all(0.0 <= v <= 1.0 + 1e-3 for v in got.values())
        differs += got != Solver().pimc(s, 3, 21)["moves"]
    assert differs >= 3


def test_bots_by_match_objective():
    s = at_stake_positions("belote", 1, 20)[0]
    for bot in (MonteCarloBot(50, 8, 4, seed=3, objective="match"), PIMCBot(4, 50, seed=3, objective="match")):
        a = bot.act(s)
        assert a in s.legal_actions() and a == bot.act(s.clone())
    bid = State("belote", seed=4, match_score=(900, 950))
    assert PIMCBot(4, 50, seed=3, objective="match").act(bid) in bid.legal_actions()


def test_an_objective_per_variant():
    """A mapping of variants to objectives: the bot plays each variant by its
    own, the variants left out for the card points; hard plays baloot for
    the match and the other variants for the card points."""
    assert make_bot("hard").objectives == {"balout": "points", "belote": "points", "baloot": "match"}
    assert make_bot("medium").objectives == {v: "points" for v in ("balout", "belote", "baloot")}
    mixed = {"baloot": "match", "belote": "score"}
    positions = [at_stake_positions(v, 6, cards) for v in ("balout", "belote", "baloot") for cards in (32, 12)]
    differ = 0
    for s in (p for group in positions for p in group):
        by_variant = mixed.get(s.variant, "points")
        for make in (lambda o: MonteCarloBot(60, 3, 4, seed=9, objective=o),
                     lambda o: PIMCBot(4, 60, seed=9, objective=o)):
            a = make(mixed).act(s)
            assert a == make(by_variant).act(s), (s.variant, s.phase)
            differ += a != make("points").act(s)
    assert differ >= 2      # the mapping is not read as "points" everywhere (3 when written)


def test_an_objective_per_variant_rejects_what_it_does_not_know():
    for bad, says in (({"gulf": "match"}, "unknown variant 'gulf'; variants are balout, belote, baloot"),
                      ({"baloot": "equity"}, "objective must be one of points, score, match, got 'equity'"),
                      (["baloot"], "or a mapping of variants to them"), (None, "or a mapping of variants to them")):
        for bot in (MonteCarloBot, PIMCBot):
            with pytest.raises(OptionError, match=re.escape(says)):
                bot(objective=bad)
