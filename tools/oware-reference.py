#!/usr/bin/env python3
"""Reference Oware games and perft counts from OpenSpiel, for flexrules' agreement tests.

OpenSpiel (https://github.com/google-deepmind/open_spiel, `pip install open_spiel`) is an
independent, established implementation of Oware abapa ("oware"). This script asks it, and
only it, what happens; tests/awele_reference.rs replays the same moves in games/awele and
compares.

    tools/oware-reference.py games --seed S --count N    random games
    tools/oware-reference.py perft --depth D             leaf counts from the start

Houses are written in flexrules' order: A..F (player 0, OpenSpiel's houses 0..5) then
a..f (player 1, OpenSpiel's houses 6..11); sowing goes A->F->a->f->A in both. A move is the
letter of the house it empties, as OpenSpiel's own action_to_string names it.

Output format of `games` (one item per line, `#` lines are comments):

    game <n>
    ply <k> houses <12 numbers A..f> scores <s0> <s1> mover <p> legal <letters|->
    play <letter>
    ... (a `ply` line after every move, the `play` line between them)
    end <winner 0|winner 1|draw|unfinished> plies <k>

`mover` is the player whose turn it is in OpenSpiel's board; on the last `ply` line of a
finished game it is the player who would have moved next, and `legal` is `-`. OpenSpiel
stops a game at 1000 plies without deciding it: such a game ends with `end unfinished`.

Output format of `perft`: `perft <depth> <count>` for each depth from 1.
"""

import argparse
import random
import sys

try:
    import pyspiel
except ImportError:
    sys.stderr.write("oware-reference: pyspiel is not installed (pip install open_spiel)\n")
    sys.exit(3)

LETTERS = "ABCDEFabcdef"


def open_spiel_version():
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:  # noqa: BLE001 - only for the header comment
        return "unknown"


def board(state):
    """(houses A..f, scores, player to move) of an OpenSpiel oware state.

    The observation string is "<player> | <score0> <score1> | <house 0> ... <house 11>",
    the board as OpenSpiel keeps it (houses 0..5 are player 0's, sowing goes upward).
    """
    player, scores, houses = state.observation_string(0).split("|")
    houses = [int(x) for x in houses.split()]
    scores = [int(x) for x in scores.split()]
    assert len(houses) == 12 and len(scores) == 2, state.observation_string(0)
    return houses, scores, int(player)


def move_name(state, action):
    return state.action_to_string(state.current_player(), action)


def ply_line(k, state):
    houses, scores, mover = board(state)
    if state.is_terminal():
        legal = "-"
    else:
        names = sorted(move_name(state, a) for a in state.legal_actions())
        legal = " ".join(names) if names else "-"
    return "ply %d houses %s scores %d %d mover %d legal %s" % (
        k,
        " ".join(str(h) for h in houses),
        scores[0],
        scores[1],
        mover,
        legal,
    )


def result(state):
    returns = state.returns()
    if returns[0] > returns[1]:
        return "winner 0"
    if returns[1] > returns[0]:
        return "winner 1"
    return "draw"


def play_games(seed, count, out):
    game = pyspiel.load_game("oware")
    limit = game.max_game_length()
    rng = random.Random(seed)
    out.write(
        "# OpenSpiel %s oware, random games: seed %d, count %d\n"
        % (open_spiel_version(), seed, count)
    )
    for n in range(1, count + 1):
        state = game.new_initial_state()
        out.write("game %d\n" % n)
        k = 0
        out.write(ply_line(k, state) + "\n")
        while not state.is_terminal() and k < limit:
            action = rng.choice(state.legal_actions())
            out.write("play %s\n" % move_name(state, action))
            state.apply_action(action)
            k += 1
            out.write(ply_line(k, state) + "\n")
        ending = result(state) if state.is_terminal() else "unfinished"
        out.write("end %s plies %d\n" % (ending, k))


def perft(depth, out):
    game = pyspiel.load_game("oware")
    counts = [0] * depth

    def walk(state, ply):
        if ply == depth or state.is_terminal():
            return
        actions = state.legal_actions()
        counts[ply] += len(actions)
        if ply + 1 < depth:
            for a in actions:
                walk(state.child(a), ply + 1)

    walk(game.new_initial_state(), 0)
    out.write("# OpenSpiel %s oware, perft from the start\n" % open_spiel_version())
    for d, c in enumerate(counts, start=1):
        out.write("perft %d %d\n" % (d, c))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("games", help="random games, every ply")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    p = sub.add_parser("perft", help="leaf counts from the start")
    p.add_argument("--depth", type=int, required=True)
    args = parser.parse_args()
    if args.command == "games":
        play_games(args.seed, args.count, sys.stdout)
    else:
        perft(args.depth, sys.stdout)


if __name__ == "__main__":
    main()
