"""flexrules from Python: board games written as rules, played by name.

Load a game with its rules files (variants, house rules) and parameters, start a match
from a seed, list and play legal moves by name or by stable index, send messages, undo,
fork, read the outcome and what each seat may see::

    import flexrules
    game = flexrules.Game("games/awele")
    m = game.start(seed=7)
    m.play(m.legal_moves()[0].name)
    print(m)

A game that does not load raises ``LoadError`` (its ``diagnostics`` give file, line and
column); a request a match refuses raises ``MoveError`` and changes nothing. Matches
pickle as game, seed and moves. ``flexrules.openspiel`` registers games with OpenSpiel,
``flexrules.balance`` plays many games on Ray, ``flexrules.plot`` draws the results.
"""

from __future__ import annotations

import hashlib
import threading

from ._flexrules import Diagnostic, Game, LoadError, Match, Move, MoveError, __version__

__all__ = [
    "Balance",
    "Diagnostic",
    "Game",
    "LoadError",
    "Match",
    "Move",
    "MoveError",
    "__version__",
    "balance",
    "plot",
]

# Games rebuilt from pickles, by their plain data: unpickling many matches of one game
# (OpenSpiel states, Ray results) compiles it once per process.
_GAMES: dict[str, Game] = {}
_GAMES_LOCK = threading.Lock()
_GAMES_KEPT = 32


def _game_key(files, path, rules, params) -> str:
    h = hashlib.sha256()
    for part in (path, *rules, *sorted(f"{k}={v}" for k, v in params.items())):
        h.update(part.encode())
        h.update(b"\0")
    for name, text in sorted(files):
        h.update(name.encode())
        h.update(b"\0")
        h.update(text.encode())
        h.update(b"\0")
    return h.hexdigest()


def _restore_game(files, path, rules, params) -> Game:
    """Rebuild a pickled game from its plain data (see ``Game.__reduce__``)."""
    key = _game_key(files, path, rules, params)
    with _GAMES_LOCK:
        game = _GAMES.get(key)
    if game is None:
        game = Game.from_files(files, path, rules, params)
        with _GAMES_LOCK:
            if len(_GAMES) >= _GAMES_KEPT:
                _GAMES.pop(next(iter(_GAMES)))
            _GAMES[key] = game
    return game


def _restore_match(game: Game, seed: int, moves) -> Match:
    """Rebuild a pickled match by playing its moves again from its seed."""
    m = game.start(seed)
    m._replay(list(moves))
    return m


# Imported here so that `flexrules.balance` and `flexrules.plot` are the functions, not
# their modules; Ray and matplotlib are imported only when they are called.
from .balance import Balance, balance  # noqa: E402
from .plot import plot  # noqa: E402
