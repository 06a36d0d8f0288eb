"""Balance runs on Ray: many games of a game (and of it with rules files compared), spread
over the cores of one machine or a cluster, added up exactly as ``flexrules playout``
adds them up.

Game ``i`` of a run seeded ``seed`` is the command line's game ``i`` of ``flexrules
playout --seed <seed>``: the same seed, the same random choices, the same agents. The
games are split into stretches of consecutive numbers; each stretch is a Ray task that
loads the game from plain data (its files' text, rules files included, and parameters:
nothing on the worker's disk is read) and returns the stretch's tally. The tallies are
merged in game order, so the result depends only on the seed, never on the number of
workers or machines::

    import flexrules
    result = flexrules.balance("games/awele", rules=["games/awele/variants/capture-four.fr"],
                               games=2000, seed=1)
    print(result)            # win rates with 95% intervals, and how each changed
    result.plot("awele.png")
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from . import _flexrules
from ._flexrules import Game

__all__ = ["Balance", "balance"]

_RAY_HINT = (
    "flexrules.balance runs its games on Ray, which cannot be imported here "
    "(hint: pip install ray, on every machine of the cluster)"
)


def _import_ray():
    try:
        import ray
    except ImportError as e:
        raise ImportError(_RAY_HINT) from e
    return ray


def _play_stretch(plain, seed, first, count, agents, max_plies):
    """A Ray task's work: games ``first..first+count`` of the game given as plain data."""
    import flexrules

    game = flexrules._restore_game(*plain)
    data = flexrules._flexrules.play_games(game, seed, first, count, agents, max_plies)
    return first, count, data


_REMOTE = None


def _remote(ray):
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(_play_stretch)
    return _REMOTE


class Balance:
    """The result of :func:`balance`: the summary ``flexrules playout --json`` prints for
    the same run (``summary``; with rules compared, ``{"configurations": [...]}``), and
    the figures read from it.

    - ``games``: games played per configuration.
    - ``wins``: the game as given, per winner (by its text): ``{"games", "rate", "ci95"}``.
    - ``draws``: the same for the games without a winner.
    - ``changes``: per rules file compared, per outcome (each winner's text, and
      ``"draw"``): ``{"points", "ci95"}``, the change of its rate from the game as given
      in percentage points with its 95% interval (Newcombe's), as ``--compare`` says.
    - ``configurations``: each configuration's summary, the game as given first.
    """

    def __init__(
        self,
        summary: dict,
        *,
        game: str,
        seed: int,
        agents: Any,
        rules: Sequence[str],
        max_plies: int,
    ):
        self.summary = summary
        self.game = game
        self.seed = seed
        self.agents = agents
        self.rules = list(rules)
        self.max_plies = max_plies
        if "configurations" in summary:
            self.configurations = list(summary["configurations"])
        else:
            self.configurations = [dict(summary, rules=None)]

    @property
    def base(self) -> dict:
        """The summary of the game as given."""
        return self.configurations[0]

    @property
    def games(self) -> int:
        return self.base["games"]

    @property
    def wins(self) -> dict:
        return self.base["wins"]

    @property
    def draws(self) -> dict:
        return self.base["draws"]

    @property
    def seconds(self) -> float:
        return self.base["seconds"]

    @property
    def changes(self) -> dict:
        out = {}
        for c in self.configurations[1:]:
            change = c["change"]
            per = dict(change["wins"])
            per["draw"] = change["draws"]
            out[c["rules"]] = per
        return out

    def plot(self, path) -> Path:
        """Draw the result into ``path`` (``.svg`` or ``.png``): see ``flexrules.plot``."""
        from .plot import plot

        return plot(self, path)

    def __repr__(self) -> str:
        def block(s: dict, heading: str) -> list:
            lines = [
                f"{heading}{s['games']} games, mean length {s['mean_plies']:.1f} moves "
                f"({s['seconds']:.2f} s)"
            ]
            for w, row in s["wins"].items():
                lo, hi = row["ci95"]
                lines.append(
                    f"  winner {w:<8} {row['games']:>7}  {row['rate'] * 100:5.1f}%  "
                    f"(95% CI {lo * 100:.1f}%-{hi * 100:.1f}%)"
                )
            d = s["draws"]
            lo, hi = d["ci95"]
            lines.append(
                f"  draw            {d['games']:>7}  {d['rate'] * 100:5.1f}%  "
                f"(95% CI {lo * 100:.1f}%-{hi * 100:.1f}%)"
            )
            for key, what in (
                ("stuck", "no legal move but not finished"),
                ("too_long", "stopped at the move limit"),
                ("failed", "stopped by an error"),
            ):
                if s[key]:
                    lines.append(f"  {what}: {s[key]}")
            return lines

        agents = "" if self.agents is None else f", agents {self.agents!r}"
        lines = [f"<Balance {self.game} seed {self.seed}{agents}>"]
        compared = len(self.configurations) > 1
        for i, c in enumerate(self.configurations):
            heading = ""
            if compared:
                heading = "the game as given: " if i == 0 else f"with {c['rules']}: "
            lines.extend(block(c, heading))
            if i == 0:
                continue
            lines.append(
                "  change from the game as given (points; * where the interval leaves out 0):"
            )
            for outcome, ch in self.changes[c["rules"]].items():
                what = "draw" if outcome == "draw" else f"winner {outcome}"
                lo, hi = ch["ci95"]
                mark = " *" if lo > 0 or hi < 0 else ""
                lines.append(
                    f"    {what:<15} {ch['points']:>+6.1f}  (95% CI {lo:+.1f} to {hi:+.1f}){mark}"
                )
        return "\n".join(lines)


def _progress(done: int, total: int, began: float, out) -> None:
    elapsed = time.monotonic() - began
    out.write(f"\rflexrules.balance: {done}/{total} games ({elapsed:.1f} s)")
    out.flush()


def balance(
    game: Union[Game, str, os.PathLike],
    rules: Sequence[Union[str, os.PathLike]] = (),
    games: int = 100,
    agents: Union[None, str, Sequence[str], dict] = None,
    seed: int = 0,
    ray_address: Optional[str] = None,
    workers: Optional[int] = None,
    max_plies: int = 10_000,
    chunk: Optional[int] = None,
    progress: bool = True,
    params: Optional[dict] = None,
) -> Balance:
    """Play ``games`` games of ``game`` (a ``flexrules.Game``, or a path loaded with
    ``params``) on Ray, and again with each rules file of ``rules`` put in force too
    (compared with the game as given, as ``flexrules playout --compare``), every move
    chosen at random or by ``agents`` (as ``--agent``: a str for every player, a list of
    ``[player=]agent``, or a dict player -> agent), each game stopped after ``max_plies``
    moves.

    Ray: ``ray_address`` (else the environment variable ``RAY_ADDRESS``) names a running
    cluster; without either, a local Ray starts with ``workers`` CPUs (all of them when
    None). If Ray is already initialised, it is used as it is. ``workers`` also bounds
    the tasks running at once. ``chunk`` is the games per task (by default about four
    tasks per worker). ``progress`` writes the games done to standard error.

    A game or rules file that does not load raises ``LoadError``, wrong agents
    ``ValueError``, both before any game is played. The result depends only on ``seed``.
    """
    ray = _import_ray()
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games is a whole number, at least 1, not {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed is a whole number from 0 to 2**64-1, not {seed!r}")
    if isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < 0:
        raise ValueError(f"max_plies is a whole number, not {max_plies!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers is a whole number, at least 1 (or None), not {workers!r}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ValueError(f"chunk is a whole number, at least 1 (or None), not {chunk!r}")
    if isinstance(rules, (str, os.PathLike)):
        rules = [rules]
    rules = [os.fspath(r) for r in rules]

    # Every configuration loads (and its agents are checked) before any game is played.
    if isinstance(game, Game):
        if params:
            raise ValueError(
                "params are for a game given by its path; a flexrules.Game has its own "
                "(hint: flexrules.Game(path, params=...))"
            )
        base = game
    else:
        base = Game(os.fspath(game), params=params)
    configs = [(None, base)]
    for r in rules:
        configs.append((r, Game(base.path, rules=[*base.rules, r], params=base.params)))
    for _, g in configs:
        _flexrules.check_agents(g, agents)
    agent_arg = agents
    if isinstance(agents, dict):
        agent_arg = {str(k): v for k, v in agents.items()}

    if not ray.is_initialized():
        address = ray_address or os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=workers)
    if workers is not None:
        parallel = workers
    else:
        parallel = max(1, int(ray.cluster_resources().get("CPU", 1)))
    if chunk is None:
        chunk = max(1, math.ceil(games / (parallel * 4)))

    remote = _remote(ray)
    stretches = [(first, min(chunk, games - first)) for first in range(0, games, chunk)]
    work = []
    for ci, (_, g) in enumerate(configs):
        plain = ray.put((g.files(), g.path, g.rules, g.params))
        for first, count in stretches:
            work.append((ci, plain, first, count))
    total = games * len(configs)
    limit = len(work) if workers is None else workers
    parts: list = [dict() for _ in configs]
    owner = {}
    pending = []
    done = 0
    began = shown = time.monotonic()
    out = sys.stderr
    if progress:
        _progress(0, total, began, out)
    queue = iter(work)

    def submit() -> bool:
        item = next(queue, None)
        if item is None:
            return False
        ci, plain, first, count = item
        ref = remote.remote(plain, seed, first, count, agent_arg, max_plies)
        owner[ref] = ci
        pending.append(ref)
        return True

    while len(pending) < limit and submit():
        pass
    try:
        while pending:
            ready, _ = ray.wait(pending, num_returns=1)
            for ref in ready:
                pending.remove(ref)
                first, count, data = ray.get(ref)
                parts[owner.pop(ref)][first] = data
                done += count
                submit()
            # At most a few lines a second, and always the last.
            if progress and (done == total or time.monotonic() - shown >= 0.2):
                shown = time.monotonic()
                _progress(done, total, began, out)
    finally:
        if progress:
            out.write("\n")
            out.flush()
        for ref in pending:
            ray.cancel(ref)
    seconds = time.monotonic() - began

    merged = [
        _flexrules.merge_tallies([p[first] for first in sorted(p)]) for p in parts
    ]
    if len(configs) == 1:
        summary = _flexrules.summary(base, merged[0], None, seconds, agent_arg)
    else:
        compare = [(r, g, t) for (r, g), t in zip(configs[1:], merged[1:])]
        summary = _flexrules.summary(base, merged[0], compare, seconds, agent_arg)
    return Balance(
        summary,
        game=base.path,
        seed=seed,
        agents=agents,
        rules=rules,
        max_plies=max_plies,
    )
