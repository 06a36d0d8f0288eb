"""flexrules games registered as OpenSpiel games (flexrules.openspiel).

- OpenSpiel's own random simulation test (with serialization) passes on every bundled game.
- MCTS (open_spiel.python.algorithms.mcts) plays Awele and a short chess game.
- Awele and OpenSpiel's "oware", Go and OpenSpiel's "go" (9x9, komi 7.5) agree move by
  move on random games: the player to move, the legal moves (by their action strings:
  OpenSpiel's Go names a move "B d4", flexrules "d4"), the end and the returns; live, and
  against the games recorded by tools/oware-reference.py and tools/go-reference.py in
  tests/inputs/awele-reference and tests/inputs/go-reference.
- A move offered outside the action space, and a game without one, are refused with an
  error naming them.
"""

import pickle
import random
import re

import pytest

pyspiel = pytest.importorskip("pyspiel")

import flexrules  # noqa: E402
from flexrules import openspiel  # noqa: E402

_REGISTERED = {}


def registered(root, name, game, **kw):
    """Register `game` (a directory of games/) once per test session, as `name`."""
    if name not in _REGISTERED:
        _REGISTERED[name] = openspiel.register(root / "games" / game, short_name=name, **kw)
    return pyspiel.load_game(_REGISTERED[name])


def jochess_board(root, stem):
    path = root.parent / "shared" / "jochess" / f"{stem}.xml"
    if not path.is_file():
        pytest.skip(f"{path} is missing (joChess's board files beside the project)")
    return str(path)


# ---------------------------------------------------------------------------------------
# OpenSpiel's random simulation test on every bundled game.

SIMS = [
    # name, directory, registration, sims
    ("fr_awele", "awele", {}, 4),
    ("fr_mini_awele", "mini-awele", {"max_game_length": 2000}, 2),
    ("fr_chess", "chess", {"max_game_length": 400}, 2),
    ("fr_go9", "go", {"params": {"size": 9}}, 2),
    ("fr_goofspiel", "goofspiel", {"params": {"cards": 4}}, 4),
    ("fr_goofspiel_random3", "goofspiel", {"params": {"cards": 4, "players": 3, "order": "random"}}, 3),
    ("fr_bridge", "bridge", {"utility_range": (-7600, 7600)}, 2),
    ("fr_archipelago", "archipelago", {"params": {"rounds": 3}}, 2),
]


@pytest.mark.parametrize("name,game,kw,sims", SIMS, ids=[s[0] for s in SIMS])
def test_random_simulation(root, name, game, kw, sims):
    g = registered(root, name, game, **kw)
    pyspiel.random_sim_test(g, num_sims=sims, serialize=True, verbose=False)


def test_random_simulation_jochess(root):
    board = jochess_board(root, "2PlayerBoard")
    g = registered(root, "fr_jochess", "jochess", params={"board": board}, max_game_length=300)
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


def test_game_types(root):
    awele = registered(root, "fr_awele", "awele").get_type()
    assert awele.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert awele.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert awele.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert awele.utility == pyspiel.GameType.Utility.ZERO_SUM
    goof = registered(root, "fr_goofspiel", "goofspiel", params={"cards": 4})
    assert goof.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert goof.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert goof.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert goof.num_distinct_actions() == 2 * 4 + 1  # the bids, and (no move)
    bridge = registered(root, "fr_bridge", "bridge", utility_range=(-7600, 7600))
    assert bridge.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert bridge.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert bridge.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert bridge.num_players() == 4
    assert bridge.num_distinct_actions() == 38 + 52
    assert bridge.max_chance_outcomes() == 1024
    rand = registered(root, "fr_goofspiel_random3", "goofspiel",
                      params={"cards": 4, "players": 3, "order": "random"})
    assert rand.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert rand.num_players() == 3


def test_a_state_copies_pickles_and_sees(root):
    g = registered(root, "fr_goofspiel", "goofspiel", params={"cards": 4})
    s = g.new_initial_state()
    assert s.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert s.legal_actions(0) == [0, 1, 2, 3]
    assert [s.action_to_string(1, a) for a in s.legal_actions(1)] == ["1:1", "1:2", "1:3", "1:4"]
    s.apply_actions([3, 5])  # 0 bids 4, 1 bids 2
    c = s.clone()
    assert str(c) == str(s) and c.history() == s.history()
    t = g.deserialize_state(s.serialize())
    assert str(t) == str(s)
    again = pickle.loads(pickle.dumps(s))
    assert str(again) == str(s)
    # Each player's information state holds its own bid, not the other's (the bids
    # revealed are in the views of both).
    assert "played 0:4" in s.information_state_string(0)
    assert "played 1:2" not in s.information_state_string(0)
    assert "played 1:2" in s.information_state_string(1)


def test_bridge_returns_each_sides_score(root):
    g = registered(root, "fr_bridge", "bridge", utility_range=(-7600, 7600))
    rng = random.Random(5)
    for _ in range(2):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            else:
                s.apply_action(rng.choice(s.legal_actions()))
        n, e, so, w = s.returns()
        assert n == so == -e == -w


# ---------------------------------------------------------------------------------------
# Refusals.


def test_a_game_without_action_space_is_refused(tmp_path):
    (tmp_path / "game.fr").write_text(
        "#entity game\n  #property n 0\n#instance game of game\n"
        "#actions (list (list \"game\" (new message \"go\" with \"name\" \"go\")))\n"
        "#define to-move () 0\n"
    )
    with pytest.raises(ValueError, match="defines no `action-space`"):
        openspiel.register(tmp_path, short_name="fr_no_space")


def test_a_game_that_does_not_say_whose_turn_it_is_is_refused(tmp_path):
    # A game whose laws veto the other player's moves but that defines no `to-move` (as
    # the paper's example was first written): OpenSpiel could not tell whose move it is.
    (tmp_path / "game.fr").write_text(
        "#entity game\n  #property n 0\n#instance game of game\n"
        "#actions (list (list \"game\" (new message \"go\" with \"name\" \"go\")))\n"
        "#define action-space () (list \"go\")\n"
    )
    with pytest.raises(ValueError, match="OpenSpiel needs to know whose turn it is: .*to-move"):
        openspiel.register(tmp_path, short_name="fr_no_turn")


def test_a_move_outside_the_action_space_is_named(tmp_path):
    (tmp_path / "game.fr").write_text(
        "#entity game\n  #property n 0\n  #state default\n"
        "    #onMessage go\n      (update property \"n\" to (+ (property \"n\") 1))\n"
        "#instance game of game\n"
        "#actions (list (list \"game\" (new message \"go\" with \"name\" \"go\"))"
        " (list \"game\" (new message \"go\" with \"name\" \"stop\")))\n"
        "#define to-move () 0\n"
        "#define action-space () (list \"go\")\n"
    )
    name = openspiel.register(tmp_path, short_name="fr_outside", chance=False)
    s = pyspiel.load_game(name).new_initial_state()
    with pytest.raises(Exception, match="`stop` is offered but is not in the game's action-space"):
        s.legal_actions()


# ---------------------------------------------------------------------------------------
# MCTS.


def test_mcts_plays_awele_and_chess(root):
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import evaluate_bots, mcts

    for name, game, length in [("fr_awele_short", "awele", 40), ("fr_chess_short", "chess", 8)]:
        g = registered(root, name, game, max_game_length=length)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
        bots = [
            mcts.MCTSBot(g, 2.0, 12, evaluator, random_state=np.random.RandomState(2)),
            mcts.MCTSBot(g, 2.0, 12, evaluator, random_state=np.random.RandomState(3)),
        ]
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, np.random.RandomState(4))
        assert len(returns) == 2 and abs(sum(returns)) < 1e-9


# ---------------------------------------------------------------------------------------
# Agreement with OpenSpiel's oware and go.


def oware_name(state, action):
    return state.action_to_string(state.current_player(), action)


def go_name(state, action):
    # "B d4", "W PASS" -> "d4", "pass"
    return state.action_to_string(state.current_player(), action).split(" ", 1)[1].lower()


def agree(ours, theirs, their_name, rng, skip=lambda state: False):
    """Play one random game on both; False when `skip` says the reference ended in a way
    flexrules does not follow (documented in the tests that use it)."""
    plies = 0
    while not theirs.is_terminal():
        assert not ours.is_terminal(), f"ply {plies}: flexrules ended, OpenSpiel did not"
        assert ours.current_player() == theirs.current_player(), f"ply {plies}"
        mine = {ours.action_to_string(ours.current_player(), a): a for a in ours.legal_actions()}
        ref = {their_name(theirs, a): a for a in theirs.legal_actions()}
        assert sorted(mine) == sorted(ref), f"ply {plies}: legal moves differ"
        name = rng.choice(sorted(ref))
        ours.apply_action(mine[name])
        theirs.apply_action(ref[name])
        plies += 1
    if skip(theirs):
        return False
    assert ours.is_terminal(), f"ply {plies}: OpenSpiel ended, flexrules did not"
    assert list(ours.returns()) == pytest.approx(list(theirs.returns()))
    return True


def test_awele_agrees_with_openspiel_oware(root):
    ours = registered(root, "fr_awele_1000", "awele", max_game_length=1000)
    theirs = pyspiel.load_game("oware")
    rng = random.Random(7)
    for _ in range(6):
        s, t = ours.new_initial_state(), theirs.new_initial_state()
        # A game OpenSpiel stops at its 1000-ply limit ends undecided on both sides.
        agree(s, t, oware_name, rng)


GO = {"params": {"size": 9, "komi": 7.5, "max-moves": 162}}


def superko(state):
    # OpenSpiel's go ends a game at a repeated position and calls it a draw (superko);
    # games/go's simple ko does not forbid it (tests/inputs/go-reference/README.md).
    return list(state.returns()) == [0.0, 0.0]


def test_go_agrees_with_openspiel_go(root):
    ours = registered(root, "fr_go9_162", "go", **GO)
    theirs = pyspiel.load_game("go", {"board_size": 9, "komi": 7.5})
    rng = random.Random(11)
    played = 0
    for _ in range(4):
        played += agree(ours.new_initial_state(), theirs.new_initial_state(), go_name, rng, superko)
    assert played > 0


def fixture_games(path):
    games, game = [], None
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "game":
            game = {"plies": [], "moves": [], "end": None}
            games.append(game)
        elif words[0] == "ply":
            game["plies"].append(words)
        elif words[0] == "play":
            game["moves"].append(words[1])
        elif words[0] == "end":
            game["end"] = words[1:]
    return games


def replay(game, ours, legal_of):
    """Replay a recorded game on our registered game: the legal moves before each ply and
    the ending must be those recorded."""
    s = ours.new_initial_state()
    for k, move in enumerate(game["moves"]):
        mine = {s.action_to_string(s.current_player(), a): a for a in s.legal_actions()}
        assert sorted(mine) == sorted(legal_of(game["plies"][k])), f"ply {k}"
        s.apply_action(mine[move])
    end = game["end"]
    if end[0] == "unfinished":
        return
    assert s.is_terminal()
    returns = list(s.returns())
    if end[0] == "draw":
        assert returns == [0.0, 0.0]
    else:
        winner = end[1]
        index = {"0": 0, "1": 1, "black": 0, "white": 1}[winner]
        assert returns[index] == 1.0 and returns[1 - index] == -1.0


def test_awele_replays_the_recorded_oware_games(root):
    ours = registered(root, "fr_awele_1000", "awele", max_game_length=1000)
    path = root / "tests" / "inputs" / "awele-reference" / "games-seed1.txt"
    for game in fixture_games(path)[:20]:
        replay(game, ours, lambda ply: ply[ply.index("legal") + 1:])


def go_legal(ply):
    rows = ply[ply.index("board") + 1].split("/")
    illegal = set(ply[ply.index("illegal") + 1:]) - {"-"}
    columns = "abcdefghjklmnopqrstuvwxyz"
    empty = [f"{columns[x]}{y + 1}" for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."]
    return [p for p in empty if p not in illegal] + ["pass"]


def test_go_replays_the_recorded_openspiel_games(root):
    ours = registered(root, "fr_go9_162", "go", **GO)
    path = root / "tests" / "inputs" / "go-reference" / "games-9x9-seed1.txt"
    header = path.read_text().splitlines()[1]
    assert re.match(r"game 1 size 9 komi 7\.5 max 162", header), header
    for game in fixture_games(path)[:8]:
        replay(game, ours, go_legal)
