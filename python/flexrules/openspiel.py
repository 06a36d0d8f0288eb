"""flexrules games as OpenSpiel games.

``register(game_dir, short_name=..., rules=[...], params={...})`` registers a pyspiel
Python game played by the flexrules engine; ``pyspiel.load_game(short_name)`` then loads
it, and every OpenSpiel algorithm that works on Python games (random simulation tests,
MCTS, CFR on small games, ...) can play it.

How the game is described to OpenSpiel (lang/REFERENCE.md, "OpenSpiel"):

- Actions: the game's ``action-space`` hook lists every move name a match can offer; its
  order gives the action numbers. A move offered that is not in it stops the game with
  an error naming the move. In a simultaneous game, one more action (the last number),
  ``(no move)``, is the only legal action of a player who has nothing to do at a
  simultaneous node (OpenSpiel's random simulation draws an action for every player
  there, and cannot draw from an empty list).
- Players: the game's ``players`` (``Game.players()``), in that order.
- Dynamics: SIMULTANEOUS when several players are to move at the start (``to-move``
  gives a list), else SEQUENTIAL. In a simultaneous game, a position where several
  players are to move is a simultaneous node (the orders are played in player order),
  one where a single player is to move (a wait's answer) is that player's node.
- Chance: a game whose start depends on the seed, or that draws at random during play,
  starts with a chance node choosing the match's seed among ``seeds`` equally likely
  outcomes (EXPLICIT_STOCHASTIC); the engine's own draws then follow from the seed.
  Detected at registration: matches started from seeds 1 and 2 compare every seat's view
  and the legal moves at the start, then play the same random moves for up to
  ``probe_plies`` plies comparing the public view and the legal moves after each.
  ``chance=True/False`` skips the detection.
- Information: IMPERFECT when the game defines ``resample`` or a seat's view at the
  start differs from the public view; else PERFECT.
- Utility: ``returns`` when the game defines it; else the winner (the player whose text
  is the outcome's ``winner``) gets 1 and each other player -1/(n-1), no winner 0 each
  (ZERO_SUM). A game that defines ``returns`` is ZERO_SUM when its returns summed to 0
  in ``probe_games`` random games, else GENERAL_SUM; its ``utility_range`` is a
  registration argument (default -1e6, 1e6). A match that is stuck (no legal move, not
  finished) or reaches ``max_game_length`` steps ends with 0 for everyone.
- Observations: the player's view (``Match.view``); the information state, what the
  player saw with perfect recall: in a perfect information game the seed and the moves
  played, else the player's own moves and each view it had, step by step.
"""

from __future__ import annotations

import random
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyspiel

import flexrules

__all__ = ["register", "NO_MOVE"]

#: The name of the action of a player with nothing to do at a simultaneous node.
NO_MOVE = "(no move)"

# Registered games by short name: what the states of each need (kept here, not on the
# states, which OpenSpiel copies attribute by attribute).
_SPECS: Dict[str, "_Spec"] = {}


class _Spec:
    """What a registered game is: the flexrules game and what was found out about it."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)

    def start(self, seed: int) -> "flexrules.Match":
        if seed == 0 and self.start0 is not None:
            return self.start0.fork()
        return _watched(self.game.start(seed))

    def action(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise ValueError(
                f"{self.where}: the move `{name}` is offered but is not in the game's "
                f"action-space ({len(self.space)} names); add it to the game's "
                f"`#define action-space ()`"
            ) from None


def _watched(m: "flexrules.Match") -> "flexrules.Match":
    """`m`, drawn from now on: a representation draws what changes from the first view
    asked for, so every match is watched from its start, for the same views whatever
    the moment it was asked (a state rebuilt by replaying, and the state it was saved
    from)."""
    m.view(None)
    return m


def _views(m: "flexrules.Match", players: Sequence[str]) -> List[str]:
    return [m.view(None)] + [m.view(p) for p in players]


def _names(m: "flexrules.Match") -> List[str]:
    return sorted(mv.name for mv in m.legal_moves())


def _draws(spec: _Spec, plies: int) -> bool:
    """Whether the game's start or play depends on the seed (see the module's doc)."""
    a, b = spec.game.start(1), spec.game.start(2)
    if _views(a, spec.players) != _views(b, spec.players):
        return True
    rng = random.Random(0)
    for _ in range(plies):
        if a.finished or b.finished:
            return a.finished != b.finished
        la, lb = _names(a), _names(b)
        if la != lb:
            return True
        if not la:
            return False
        name = rng.choice(la)
        a.play(name)
        b.play(name)
        if a.view(None) != b.view(None):
            return True
    return False


def _returns_sum_to_zero(spec: _Spec, games: int) -> bool:
    rng = random.Random(0)
    for g in range(games):
        m = spec.start(g if spec.chance else 0)
        for _ in range(spec.max_game_length):
            if m.finished:
                break
            names = _names(m)
            if not names:
                break
            m.play(rng.choice(names))
        if m.finished and abs(sum(_returns(spec, m))) > 1e-9:
            return False
    return True


def _returns(spec: _Spec, m: "flexrules.Match") -> List[float]:
    """The returns of a finished match, one per player."""
    n = len(spec.players)
    if spec.has_returns:
        values = m.call("returns")
        if not isinstance(values, list) or len(values) != n or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
        ):
            raise ValueError(
                f"{spec.where}: the game's (returns) gave {values!r}; it must give a list "
                f"of {n} numbers, one per player of (players): {spec.players}"
            )
        return [float(v) for v in values]
    winner = m.winner
    if winner is None:
        return [0.0] * n
    text = str(winner).lower() if isinstance(winner, bool) else str(winner)
    if text not in spec.players:
        raise ValueError(
            f"{spec.where}: the winner {text!r} is not one of the players {spec.players}; "
            f"define `#define returns ()` to say what each player gets"
        )
    lose = -1.0 / (n - 1) if n > 1 else 0.0
    return [1.0 if p == text else lose for p in spec.players]


class _Held:
    """A match held by a state: copied by forking it (cheap), pickled as its seed and the
    moves played, and rebuilt by replaying them."""

    def __init__(self, short_name: str, seed: int, match: "flexrules.Match") -> None:
        self.short_name = short_name
        self.seed = seed
        self.match = match

    def __deepcopy__(self, memo: Any) -> "_Held":
        return _Held(self.short_name, self.seed, self.match.fork())

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (self.short_name, self.seed, list(self.match.moves)))


def _rebuild(short_name: str, seed: int, moves: List[str]) -> _Held:
    spec = _SPECS[short_name]
    m = spec.start(seed)
    for name in moves:
        m.play(name)
    return _Held(short_name, seed, m)


class _State(pyspiel.State):
    """A position of a flexrules match (before the seed is chosen, in a game of chance)."""

    def __init__(self, game: "_Game") -> None:
        super().__init__(game)
        spec = game.spec
        self._short = spec.short_name
        self._held = None if spec.chance else _Held(spec.short_name, 0, spec.start(0))
        # The moves of each step, each (player index or None, move name): what the
        # information states replay.
        self._steps: List[List[Tuple[Optional[int], str]]] = []
        self._ended = False  # stuck, or max_game_length reached
        self._node: Optional[Tuple[int, Dict[int, List[int]]]] = None

    # -- what the position is ---------------------------------------------------------

    def _spec(self) -> _Spec:
        return _SPECS[self._short]

    def _match(self) -> "flexrules.Match":
        assert self._held is not None, "the seed is not chosen yet"
        return self._held.match

    def _decide(self) -> Tuple[int, Dict[int, List[int]]]:
        """(current player, legal actions by player index), worked out once a position."""
        if self._node is not None:
            return self._node
        spec = self._spec()
        if self._held is None:
            self._node = (pyspiel.PlayerId.CHANCE, {})
            return self._node
        m = self._match()
        if self._ended or m.finished:
            self._node = (pyspiel.PlayerId.TERMINAL, {})
            return self._node
        moves = m.legal_moves()
        if not moves or len(self._steps) >= spec.max_game_length:
            self._ended = True
            self._node = (pyspiel.PlayerId.TERMINAL, {})
            return self._node
        to_move = [p for p in m.players_to_move() if p in spec.player_index]
        by: Dict[int, List[int]] = {}
        if spec.simultaneous and len(to_move) > 1:
            for mv in moves:
                if mv.player not in spec.player_index:
                    raise ValueError(
                        f"{spec.where}: several players are to move ({', '.join(to_move)}) "
                        f"and the move `{mv.name}` names no player of {spec.players} "
                        f"(its message's `player` or `by`)"
                    )
                by.setdefault(spec.player_index[mv.player], []).append(spec.action(mv.name))
            self._node = (pyspiel.PlayerId.SIMULTANEOUS, by)
            return self._node
        if len(to_move) == 1:
            player = spec.player_index[to_move[0]]
        else:
            owners = {mv.player for mv in moves}
            if len(owners) != 1 or next(iter(owners)) not in spec.player_index:
                raise ValueError(
                    f"{spec.where}: the moves {[mv.name for mv in moves][:5]} belong to no "
                    f"one player (to-move gives {to_move}); OpenSpiel needs a player to move"
                )
            player = spec.player_index[next(iter(owners))]
        by[player] = [spec.action(mv.name) for mv in moves]
        self._node = (player, by)
        return self._node

    def current_player(self) -> int:
        return self._decide()[0]

    def _legal_actions(self, player: int) -> List[int]:
        current, by = self._decide()
        if current == pyspiel.PlayerId.SIMULTANEOUS and player not in by:
            return [self._spec().no_move]
        return sorted(set(by.get(player, [])))

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        seeds = self._spec().seeds
        return [(s, 1.0 / seeds) for s in range(seeds)]

    def _apply_action(self, action: int) -> None:
        spec = self._spec()
        current, by = self._decide()
        self._node = None
        if current == pyspiel.PlayerId.CHANCE:
            self._held = _Held(spec.short_name, action, spec.start(action))
            return
        if action not in by.get(current, []):
            raise ValueError(f"{spec.where}: action {action} is not legal for player {current}")
        name = spec.space[action]
        self._match().play(name)
        self._steps.append([(current, name)])

    def _apply_actions(self, actions: Sequence[int]) -> None:
        spec = self._spec()
        _, by = self._decide()
        self._node = None
        m = self._match()
        step = []
        for player, action in enumerate(actions):
            if action == spec.no_move and player not in by:
                continue
            if action not in by.get(player, []):
                raise ValueError(
                    f"{spec.where}: action {action} is not legal for player {player} here"
                )
            name = spec.space[action]
            try:
                m.play(name)
            except flexrules.MoveError as e:
                raise ValueError(
                    f"{spec.where}: the orders given at once do not all stand: "
                    f"`{name}` of player {spec.players[player]} was refused after the "
                    f"orders before it ({e})"
                ) from e
            step.append((player, name))
        self._steps.append(step)

    def _action_to_string(self, player: int, action: int) -> str:
        spec = self._spec()
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        if action == spec.no_move and spec.simultaneous:
            return NO_MOVE
        return spec.space[action]

    def is_terminal(self) -> bool:
        return self._decide()[0] == pyspiel.PlayerId.TERMINAL

    def returns(self) -> List[float]:
        spec = self._spec()
        if self._held is None or not self._match().finished:
            return [0.0] * len(spec.players)
        return _returns(spec, self._match())

    def __str__(self) -> str:
        if self._held is None:
            return "(the seed is not chosen yet)"
        return self._match().view(None)

    # -- what a player sees -------------------------------------------------------------

    def _observation(self, player: int) -> str:
        spec = self._spec()
        if self._held is None:
            return ""
        view = self._match().view(spec.players[player])
        if spec.perfect and spec.chance:
            return f"seed {self._held.seed}\n{view}"
        return view

    def _information_state(self, player: int) -> str:
        spec = self._spec()
        if self._held is None:
            return ""
        if spec.perfect:
            head = f"seed {self._held.seed}\n" if spec.chance else ""
            return head + " ".join(self._match().moves)
        me = spec.players[player]
        m = spec.start(self._held.seed)
        lines = [m.view(me)]
        last = lines[0]
        for step in self._steps:
            for who, name in step:
                m.play(name)
                if who == player:
                    lines.append(f"played {name}")
            view = m.view(me)
            if view != last:
                lines.append(view)
                last = view
        return "\n".join(lines)


class _Observer:
    """The observation (perfect_recall false) or the information state (true), as text."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = None
        self.dict: Dict[str, Any] = {}

    def set_from(self, state: _State, player: int) -> None:
        pass

    def string_from(self, state: _State, player: int) -> str:
        if self.perfect_recall:
            return state._information_state(player)
        return state._observation(player)


class _Game(pyspiel.Game):
    """A registered flexrules game: `register` makes a subclass of it for each game, with
    the game's short name (pyspiel keeps the class it registers until the interpreter
    exits; a function there would be released without the interpreter's lock and abort
    the exit)."""

    _short = ""

    def __init__(self, params: Optional[Dict[str, Any]] = None) -> None:
        spec = _SPECS[self._short]
        super().__init__(spec.game_type, spec.game_info, params or {})
        self.spec = spec

    def new_initial_state(self) -> _State:
        return _State(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(iig_obs_type, params)


def register(
    game_dir: Any,
    short_name: Optional[str] = None,
    rules: Sequence[Any] = (),
    params: Optional[Dict[str, Any]] = None,
    seeds: int = 1024,
    max_game_length: int = 10_000,
    chance: Optional[bool] = None,
    utility_range: Optional[Tuple[float, float]] = None,
    probe_plies: int = 200,
    probe_games: int = 3,
    long_name: Optional[str] = None,
) -> str:
    """Register the flexrules game in `game_dir` (with `rules` files and `params`) as the
    OpenSpiel game `short_name` (default: ``flexrules_<directory name>``); returns the
    short name. See the module's documentation for how the game is described."""
    game = flexrules.Game(game_dir, rules=list(rules), params=params)
    where = str(game_dir)
    name = short_name or "flexrules_" + re.sub(r"\W", "_", str(game.path).rstrip("/").split("/")[-1])
    if name in _SPECS or name in pyspiel.registered_names():
        raise ValueError(
            f"{where}: an OpenSpiel game is already registered as `{name}`; give another short_name"
        )
    if seeds < 1:
        raise ValueError(f"seeds is the number of seeds a chance node chooses from, at least 1, not {seeds}")
    if max_game_length < 1:
        raise ValueError(f"max_game_length is at least 1, not {max_game_length}")
    start0 = _watched(game.start(0))
    if not start0.defines("action-space"):
        raise ValueError(
            f"{where}: the game defines no `action-space`, which OpenSpiel needs: define "
            f"`#define action-space ()` giving every move name a match can offer "
            f"(lang/REFERENCE.md, \"OpenSpiel hooks\")"
        )
    space = start0.call("action-space")
    if not isinstance(space, list) or not all(isinstance(s, str) for s in space):
        raise ValueError(f"{where}: the game's (action-space) gave {space!r:.200}, not a list of move names")
    index: Dict[str, int] = {}
    for i, s in enumerate(space):
        if s in index:
            raise ValueError(f"{where}: the game's (action-space) names `{s}` twice (at {index[s]} and {i})")
        index[s] = i
    players = [str(p) for p in game.players()]
    try:
        simultaneous = len(start0.players_to_move()) > 1
    except flexrules.MoveError as e:
        raise ValueError(f"{where}: OpenSpiel needs to know whose turn it is: {e}") from e
    spec = _Spec(
        game=game, where=where, short_name=name, space=list(space), index=index,
        players=players, player_index={p: i for i, p in enumerate(players)},
        simultaneous=simultaneous, no_move=len(space), seeds=seeds,
        max_game_length=max_game_length, has_returns=start0.defines("returns"),
        start0=None, chance=False, perfect=True,
    )
    spec.chance = _draws(spec, probe_plies) if chance is None else bool(chance)
    spec.start0 = None if spec.chance else start0
    spec.perfect = not start0.defines("resample") and len(set(_views(start0, players))) == 1
    zero_sum = not spec.has_returns or _returns_sum_to_zero(spec, probe_games)
    if utility_range is None:
        utility_range = (-1e6, 1e6) if spec.has_returns else (-1.0, 1.0)
    n = len(players)
    spec.game_type = pyspiel.GameType(
        short_name=name,
        long_name=long_name or f"flexrules {where}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if spec.chance else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION if spec.perfect else pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )
    spec.game_info = pyspiel.GameInfo(
        num_distinct_actions=len(space) + (1 if simultaneous else 0),
        max_chance_outcomes=seeds if spec.chance else 0,
        num_players=n,
        min_utility=float(utility_range[0]),
        max_utility=float(utility_range[1]),
        utility_sum=0.0 if zero_sum else None,
        max_game_length=max_game_length,
    )
    _SPECS[name] = spec
    spec.cls = type("Game_" + re.sub(r"\W", "_", name), (_Game,), {"_short": name})
    pyspiel.register_game(spec.game_type, spec.cls)
    return name
