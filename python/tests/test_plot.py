"""Plots of balance results: SVG and PNG written, the SVG well formed, other extensions
refused with a hint."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import flexrules
from flexrules.balance import Balance

pytest.importorskip("matplotlib")


def row(games, k):
    rate = k / games
    return {"games": k, "rate": rate, "ci95": [max(0.0, rate - 0.1), min(1.0, rate + 0.1)]}


def summary(games, w0, w1, rules=None):
    return {
        "games": games,
        "wins": {"0": row(games, w0), "1": row(games, w1)},
        "draws": row(games, games - w0 - w1),
        "stuck": 0,
        "too_long": 0,
        "failed": 0,
        "first_error": None,
        "mean_plies": 80.0,
        "seconds": 1.0,
        "playouts_per_second": games,
        "rules": rules,
    }


def compared():
    base = summary(200, 90, 100)
    other = summary(200, 120, 70, rules="games/awele/variants/capture-four.fr")
    other["change"] = {
        "wins": {"0": {"points": 15.0, "ci95": [5.0, 25.0]}, "1": {"points": -15.0, "ci95": [-24.0, -6.0]}},
        "draws": {"points": 0.0, "ci95": [-3.0, 3.0]},
    }
    return Balance(
        {"configurations": [base, other]},
        game="games/awele",
        seed=1,
        agents=None,
        rules=[other["rules"]],
        max_plies=10_000,
    )


@pytest.mark.parametrize("name", ["balance.svg", "balance.png"])
def test_svg_and_png_are_written(tmp_path, name):
    path = tmp_path / name
    assert flexrules.plot(compared(), path) == path
    assert path.stat().st_size > 1000
    if name.endswith(".svg"):
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        assert "capture-four.fr" in path.read_text()
    else:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_configuration_draws_one_panel(tmp_path):
    plain = Balance(summary(50, 20, 25), game="g", seed=0, agents="mcts:20", rules=[], max_plies=10)
    path = plain.plot(tmp_path / "one.svg")
    ET.parse(path)


def test_another_extension_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"end the name with \.svg or \.png"):
        flexrules.plot(compared(), tmp_path / "balance.pdf")
    assert not (tmp_path / "balance.pdf").exists()
