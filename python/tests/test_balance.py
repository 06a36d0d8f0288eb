"""Balance runs on Ray: the same summary whatever the number of workers, the same summary
as `flexrules playout --json` (with --compare and --agent), refusals before any game is
played, and progress on standard error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import importlib

import pytest

import flexrules
from flexrules.testing import game_dir, repo

ray = pytest.importorskip("ray")
balance_module = importlib.import_module("flexrules.balance")

VARIANT = str(game_dir("awele") / "variants" / "capture-four.fr")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module: four CPUs, so four tasks run at once."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def timeless(doc):
    """The summary without the wall time and what is read from it."""
    if isinstance(doc, dict):
        return {
            k: timeless(v)
            for k, v in doc.items()
            if k not in ("seconds", "playouts_per_second")
        }
    if isinstance(doc, list):
        return [timeless(v) for v in doc]
    return doc


def cli_json(*args: str) -> dict:
    binary = os.environ.get("FLEXRULES_BIN") or str(repo() / "target" / "release" / "flexrules")
    out = subprocess.run(
        [binary, "playout", *args, "--json"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_one_or_four_workers_give_the_same_result():
    one = flexrules.balance(
        game_dir("awele"), rules=[VARIANT], games=40, seed=3, workers=1, chunk=7, progress=False
    )
    four = flexrules.balance(
        game_dir("awele"), rules=[VARIANT], games=40, seed=3, workers=4, progress=False
    )
    assert timeless(one.summary) == timeless(four.summary)
    assert one.games == 40
    assert sum(w["games"] for w in one.wins.values()) + one.draws["games"] <= 40


def test_the_summary_is_the_command_lines(awele):
    result = flexrules.balance(awele, rules=[VARIANT], games=30, seed=5, progress=False)
    cli = cli_json(str(game_dir("awele")), "-n", "30", "--seed", "5", "--compare", VARIANT)
    assert timeless(result.summary) == timeless(cli)
    # The figures read from it are the command line's --compare numbers.
    change = cli["configurations"][1]["change"]
    assert result.changes[VARIANT]["draw"] == change["draws"]
    for w, c in change["wins"].items():
        assert result.changes[VARIANT][w] == c
    assert result.wins == cli["configurations"][0]["wins"]
    text = repr(result)
    assert "the game as given: 30 games" in text and f"with {VARIANT}" in text


def test_agents_are_the_command_lines(awele):
    result = flexrules.balance(
        awele, games=4, seed=2, agents={0: "mcts:12"}, max_plies=300, progress=False
    )
    cli = cli_json(
        str(game_dir("awele")), "-n", "4", "--seed", "2", "--agent", "0=mcts:12",
        "--max-plies", "300",
    )
    assert timeless(result.summary) == timeless(cli)
    assert result.summary["agents"] == {"players": {"0": "mcts:12"}, "others": "random"}


def test_the_first_error_crosses_with_its_place():
    ttt = repo() / "tests" / "inputs" / "tic-tac-toe"
    typo = str(ttt / "variants" / "corner-typo.fr")
    game = flexrules.Game(str(ttt), rules=[typo])
    result = flexrules.balance(game, games=9, seed=0, chunk=2, progress=False)
    cli = cli_json(str(ttt), "--rules", typo, "-n", "9")
    assert result.summary["failed"] > 0
    assert timeless(result.summary) == timeless(cli)
    assert result.summary["first_error"]["diagnostic"]["line"] == 7


def test_a_bad_rules_file_is_refused_before_any_game(tmp_path, monkeypatch):
    bad = tmp_path / "bad.fr"
    bad.write_text('#law "Nothing" on seed to hole replaces "No Such Law" is "missing.law"\n')

    def no_task(_ray):
        raise AssertionError("a task was started")

    monkeypatch.setattr(balance_module, "_remote", no_task)
    with pytest.raises(flexrules.LoadError) as e:
        flexrules.balance(game_dir("awele"), rules=[str(bad)], games=10, progress=False)
    assert "bad.fr" in str(e.value)
    with pytest.raises(ValueError, match="unknown agent `wizard`"):
        flexrules.balance(game_dir("awele"), games=10, agents="wizard", progress=False)
    with pytest.raises(ValueError, match="games is a whole number"):
        flexrules.balance(game_dir("awele"), games=0, progress=False)


def test_progress_is_written_to_stderr_unless_silenced(capsys):
    flexrules.balance(game_dir("awele"), games=12, seed=1, progress=False)
    assert "flexrules.balance" not in capsys.readouterr().err
    flexrules.balance(game_dir("awele"), games=12, seed=1, chunk=4)
    err = capsys.readouterr().err
    assert "flexrules.balance: 0/12 games" in err
    assert "flexrules.balance: 12/12 games" in err


def test_without_ray_the_error_says_how_to_install_it():
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "import flexrules\n"
        "try:\n"
        "    flexrules.balance('games/awele', games=2)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=repo(), timeout=120
    )
    assert "pip install ray" in out.stdout, out.stderr


def test_play_games_stretches_merge_to_the_whole(awele):
    from flexrules import _flexrules

    parts = [_flexrules.play_games(awele, 9, first, 5, None, 10_000) for first in (0, 5, 10)]
    whole = _flexrules.play_games(awele, 9, 0, 15, None, 10_000)
    assert json.loads(_flexrules.merge_tallies(parts[::-1])) == json.loads(whole)
    with pytest.raises(ValueError, match="a tally's data has no field"):
        _flexrules.merge_tallies([b"{}"])
