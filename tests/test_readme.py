"""The README's tour runs as written."""
import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_python_blocks_run():
    tour, batch, search, own, openspiel = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    env = {}
    exec(compile(tour, "README.md", "exec"), env)
    assert env["m"].is_over and env["m"].winner in (0, 1)
    assert env["State"].from_record(env["record"]) == env["s"]
    exec(compile(batch, "README.md", "exec"), env)
    assert env["sim"].hands.shape == (2_000_000,)
    assert env["big"].hands is None and env["big"].aggregate["hands"] == 3_000_000
    exec(compile(search, "README.md", "exec"), env)
    assert env["s"].phase == "play" and env["s"].tricks_played == 3
    assert env["worlds"].shape == (1000, 4) and env["info"].seat == 0
    exec(compile(own, "README.md", "exec"), env)
    lo, hi = env["res"].summary()["points_diff_ci95"]
    assert env["res"].matches == 20 and hi < 0     # the first legal action loses to the greedy player
    try:
        import pyspiel  # noqa: F401 - a test requirement where OpenSpiel has wheels
    except ImportError:
        return
    exec(compile(openspiel, "README.md", "exec"), env)
    assert env["state"].is_chance_node() and len(env["state"].chance_outcomes()) == 32


def test_readme_shows_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert 'python -m pip install ".[test]" && python -m pytest' in text
    assert "python -m pip install . && balout simulate" in text
    ci = (Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert 'python -m pip install ".[test]" && python -m pytest' in ci


def test_your_own_bot_guide_runs():
    """docs/your-own-bot.md: the example bot plays sealed arena matches."""
    guide = (Path(__file__).parent.parent / "docs" / "your-own-bot.md").read_text(encoding="utf-8")
    bot, measure, openspiel = re.findall(r"```python\n(.*?)```", guide, re.S)
    env = {}
    exec(compile(bot, "your-own-bot.md", "exec"), env)
    exec(compile(measure, "your-own-bot.md", "exec"), env)
    s = env["summary"]
    assert s["bots"] == ["EndgamePIMC", "easy"] and s["sealed"] and s["matches"] == 20
    lo, hi = s["points_diff_ci95"]
    assert lo <= s["points_diff"] <= hi and s["EndgamePIMC_ms_median"] > 0
    try:
        import pyspiel  # noqa: F401 - a test requirement where OpenSpiel has wheels
    except ImportError:
        return
    # the OpenSpiel example, cut to one duplicate pair and 10 simulations a decision
    quick = openspiel.replace("matches=10", "matches=1").replace("max_simulations=100", "max_simulations=10")
    assert quick.count("matches=1,") == 1 and "max_simulations=10," in quick
    exec(compile(quick, "your-own-bot.md", "exec"), env)
    assert env["res"].matches == 1 and env["res"].summary()["openspiel_ismcts_ms_median"] > 0
