"""Where the tests find the repository's games: ``FLEXRULES_REPO``, else the checkout this
package was built from (two directories above ``python/flexrules``)."""

from __future__ import annotations

import os
from pathlib import Path


def repo() -> Path:
    """The repository's root: it holds ``games/``."""
    given = os.environ.get("FLEXRULES_REPO")
    if given:
        return Path(given)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "games" / "awele" / "game.fr").is_file():
            return parent
    raise RuntimeError("set FLEXRULES_REPO to the flexrules checkout (it holds games/)")


def game_dir(name: str) -> Path:
    """The bundled game ``name`` (``awele``, ``chess``, ...)."""
    return repo() / "games" / name
