"""balout's hands as OpenSpiel games (balout.openspiel).

OpenSpiel is a test requirement where it has wheels (Linux x86-64,
Python 3.11+; see pyproject.toml); elsewhere these tests are skipped."""
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from balout import State  # noqa: E402
from balout.errors import IllegalActionError, OptionError  # noqa: E402
from balout.openspiel import register  # noqa: E402
from balout.state import OBSERVATION_TENSOR_SIZE, TENSOR_SIZE  # noqa: E402

NAMES = register()


def deal_and_play(game, rng, until=None):
    """A state of `game`: the chance nodes drawn from their outcomes, then
    uniform legal actions (stopping after `until` of them, if given)."""
    s = game.new_initial_state()
    played = 0
    while not s.is_terminal() and (s.is_chance_node() or played != until):
        if s.is_chance_node():
            outcomes, probs = zip(*s.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            s.apply_action(outcomes[rng.integers(len(outcomes))])
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
            played += 1
    return s


def test_register_is_idempotent_and_names_the_three_variants():
    assert NAMES == ("python_balout", "python_belote", "python_baloot") == register()
    registered = pyspiel.registered_names()
    assert all(name in registered for name in NAMES)


@pytest.mark.parametrize("name", ["python_balout", "python_belote", "python_baloot",
                                  "python_belote(declarations=choice,dealer=2)"])
def test_openspiel_random_simulation_checks_pass(name):
    """OpenSpiel's own consistency checks over random games: legal actions,
    chance outcomes, returns, tensors and strings, serialisation."""
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=8, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", ["balout", "belote", "baloot"])
def test_a_game_is_one_balout_hand(variant):
    game = pyspiel.load_game(f"python_{variant}")
    assert game.num_players() == 4 and game.num_distinct_actions() == 50
    assert game.max_chance_outcomes() == 32 and game.max_game_length() == 32 + 96   # the deal, the core's MAX_ACTIONS
    assert game.information_state_tensor_shape() == [TENSOR_SIZE]
    assert game.observation_tensor_shape() == [OBSERVATION_TENSOR_SIZE]
    rng = np.random.default_rng(3)
    for _ in range(20):
        s = deal_and_play(game, rng)
        hand = s.hand
        assert sorted(hand.deck) == list(range(32)) and hand.dealer == 0
        # the same hand, replayed by balout from its deck and actions
        again = State(variant, deck=hand.deck, dealer=0)
        for a in hand.action_history:
            again.apply_action(a)
        assert again.is_terminal() and again.hand_score == hand.hand_score
        a, b = hand.hand_score
        assert s.returns() == [a - b, b - a, a - b, b - a]
        assert max(map(abs, s.returns())) <= game.max_utility() == -game.min_utility()
        assert s.history()[:32] == list(hand.deck)


def test_information_state_and_observation_are_balouts():
    game = pyspiel.load_game("python_baloot")
    rng = np.random.default_rng(5)
    for steps in (0, 3, 9, 20):
        s = deal_and_play(game, rng, until=steps)
        for seat in range(4):
            assert s.information_state_string(seat) == s.hand.information_state_string(seat)
            assert s.observation_string(seat) == s.hand.observation_string(seat)
            assert np.array_equal(s.information_state_tensor(seat), s.hand.information_state_tensor(seat))
            assert np.array_equal(s.observation_tensor(seat), s.hand.observation_tensor(seat))
    # while dealing, a player knows nothing yet
    s = game.new_initial_state()
    s.apply_action(5)
    assert s.is_chance_node() and not any(s.information_state_tensor(1))
    assert s.information_state_string(1) == "seat 1, dealing (1 of 32 cards)"


def test_parameters_are_the_rule_options():
    game = pyspiel.load_game("python_belote(declarations=choice,target=1500,dealer=3)")
    s = deal_and_play(game, np.random.default_rng(1), until=0)
    assert s.hand.options["declarations"] == "choice" and s.hand.options["target"] == 1500
    assert s.hand.dealer == 3 and s.current_player() == 0     # the seat after the dealer speaks first
    assert pyspiel.load_game("python_baloot(target=200)").max_utility() == 578
    assert pyspiel.load_game("python_baloot(target=1000)").max_utility() == 1000
    for bad, message in (("python_belote(target=7)", "bad value 7 for option 'target' of 'belote'; allowed: "
                                                     "500 to 2000 in steps of 100"),
                         ("python_balout(dealer=4)", "dealer must be a seat from 0 to 3, got 4"),
                         ("python_balout(declarations=sometimes)", "option 'declarations'")):
        with pytest.raises(OptionError, match=message):
            pyspiel.load_game(bad)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'nope'"):
        pyspiel.load_game("python_balout(nope=1)")


def test_illegal_actions_are_refused_with_the_state_unchanged():
    game = pyspiel.load_game("python_balout")
    s = deal_and_play(game, np.random.default_rng(2), until=0)
    before = str(s)
    with pytest.raises(IllegalActionError, match="'double' is illegal"):
        s.apply_action(45)                       # 'double' in an auction without doubling
    assert str(s) == before and not s.is_terminal()
    t = game.new_initial_state()
    t.apply_action(7)
    with pytest.raises(OptionError, match="not yet dealt"):
        t.apply_action(7)
    assert t.history() == [7]


def test_resample_from_infostate_keeps_what_the_player_knows():
    game = pyspiel.load_game("python_belote")
    rng = np.random.default_rng(4)
    sampler = pyspiel.UniformProbabilitySampler(0., 1.)
    for steps in (0, 2, 12):
        s = deal_and_play(game, rng, until=steps)
        seat = s.current_player()
        r = s.resample_from_infostate(seat, sampler)
        assert r.information_state_string(seat) == s.information_state_string(seat)
        assert r.history() == list(r.hand.deck) + list(r.hand.action_history) and r.move_number() == s.move_number()
        assert r.history()[32:] == s.history()[32:] and r.hand.to_record() != s.hand.to_record()
        assert r.legal_actions() == s.legal_actions()
        others = [p for p in range(4) if p != seat]
        assert [r.hand.hand_masks[p] for p in others] != [s.hand.hand_masks[p] for p in others]


def test_openspiels_ismcts_plays_a_hand():
    """OpenSpiel's information-set MCTS, which resamples through
    resample_from_infostate, plays legal actions to the end of a hand."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_belote")
    rng = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game=game, evaluator=mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=20, random_state=rng)
    s = game.new_initial_state()
    decisions = 0
    while not s.is_terminal():
        if s.is_chance_node():
            outcomes = [o for o, _ in s.chance_outcomes()]
            s.apply_action(outcomes[rng.randint(len(outcomes))])
        elif s.current_player() % 2 == 0:
            action = bot.step(s)
            assert action in s.legal_actions()
            s.apply_action(action)
            decisions += 1
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
    assert decisions >= 1 and sum(s.returns()) == 0


def test_balout_bots_play_in_openspiel_and_openspiel_bots_in_the_arena():
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from balout.arena import arena
    from balout.bots import make_bot
    from balout.openspiel import BaloutState, OpenSpielBot, as_openspiel_bot, game_of

    game = pyspiel.load_game("python_balout")
    rng = np.random.RandomState(2)
    returns = evaluate_bots(game.new_initial_state(), [as_openspiel_bot(b) for b in ("easy", "random") * 2], rng)
    assert sum(returns) == 0 and returns[0] == returns[2]
    s = deal_and_play(game, np.random.default_rng(6), until=4)
    assert as_openspiel_bot("easy").step(s) == make_bot("easy").act(s.hand.clone())
    # there and back: the greedy player through OpenSpiel's interface plays as itself, every deal even
    same = arena("balout", (lambda seed: OpenSpielBot(as_openspiel_bot("easy")), "easy"), matches=2, seed=5,
                 threads=1)
    assert same.wins == 2 and not same.deal_diffs.any()
    # a hand of a match as an OpenSpiel state: its history, and its own match score
    from balout import Match
    m = Match("baloot", seed=4, score=(120, 30))
    hand = m.new_hand()
    for _ in range(5):
        hand.apply_action(hand.legal_actions()[0])
    wrapped = BaloutState.of(game_of(hand), hand)
    assert wrapped.history() == list(hand.deck) + list(hand.action_history)
    assert wrapped.hand == hand and wrapped.hand.match_before == (120, 30)

    def ismcts_bot(seed):
        r = np.random.RandomState(seed % 2 ** 32)
        return OpenSpielBot(lambda g: ismcts.ISMCTSBot(game=g, evaluator=mcts.RandomRolloutEvaluator(1, r),
                                                       uct_c=2.0, max_simulations=10, random_state=r))

    res = arena("belote", (ismcts_bot, "random"), matches=1, seed=1, threads=1, sealed=True)
    assert res.hands > 0 and res.summary()["ismcts_bot_ms_median"] > 0


def test_importing_the_module_registers_the_games():
    import subprocess
    import sys
    code = ("import importlib, pyspiel, balout.openspiel; "
            "importlib.reload(balout.openspiel); "          # a second import registers nothing twice
            "print(pyspiel.load_game('python_baloot').num_players())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "4", out.stderr


def test_games_and_states_pickle():
    import pickle
    game = pyspiel.load_game("python_belote(declarations=choice,target=1500)")
    s = deal_and_play(game, np.random.default_rng(8), until=6)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.max_utility() == game.max_utility()
    t = pickle.loads(pickle.dumps(s))
    assert t.history() == s.history() and t.hand == s.hand and t.hand.options["target"] == 1500
