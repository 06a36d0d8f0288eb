"""examples/awele_house_rule.py runs from start to end (with few games) and draws its plot."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from flexrules.testing import repo

pytest.importorskip("ray")
pytest.importorskip("matplotlib")


def test_the_awele_house_rule_example_runs(tmp_path):
    env = dict(os.environ, FLEXRULES_EXAMPLE_GAMES="40", FLEXRULES_EXAMPLE_OUT=str(tmp_path))
    env.pop("RAY_ADDRESS", None)
    out = subprocess.run(
        [sys.executable, str(repo() / "examples" / "awele_house_rule.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    assert "the game as given: 40 games" in out.stdout, out.stdout
    assert "capture-four.fr" in out.stdout
    picture = tmp_path / "awele_house_rule.png"
    assert picture.stat().st_size > 1000
