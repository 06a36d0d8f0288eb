"""Shared fixtures: the repository's games."""

from __future__ import annotations

import pytest

from flexrules.testing import game_dir, repo


@pytest.fixture(scope="session")
def root():
    return repo()


@pytest.fixture(scope="session")
def awele():
    import flexrules

    return flexrules.Game(game_dir("awele"))


@pytest.fixture(scope="session")
def archipelago():
    import flexrules

    return flexrules.Game(game_dir("archipelago"), params={"players": 3})
