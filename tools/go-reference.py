#!/usr/bin/env python3
"""Reference Go games from OpenSpiel, for flexrules' agreement tests.

OpenSpiel (https://github.com/google-deepmind/open_spiel, `pip install open_spiel`) is an
independent, established implementation of Go ("go"): Tromp-Taylor area scoring with komi,
suicide illegal, simple ko, two passes end the game. This script asks it, and only it, what
happens; tests/go_reference.rs replays the same moves in games/go and compares.

    tools/go-reference.py games --size 9 --seed S --count N [--max-length L]
    tools/go-reference.py perft --size 3 --depth D     leaf counts from the start

Points are named as OpenSpiel names them, in lower case (`d4`; columns skip `i`), and
`pass`.

Output format (one item per line, `#` lines are comments):

    game <n> size <size> komi <komi> max <max game length>
    ply <k> mover <black|white> board <rows> illegal <points|->
    play <point|pass>
    ... (a `ply` line after every move, the `play` line between them)
    end <winner black|winner white|draw> plies <k>

`board` is the rows from 1 up, separated by `/`, each from column a: `X` black, `O` white,
`.` empty. `illegal` lists the empty points the player to move may not play (suicide or
ko); every other empty point and `pass` are legal. On the last `ply` line of a finished
game `illegal` is `-`.

OpenSpiel ends a game at its first repeated position (positional superko) and calls it a
draw; the default rules of games/go (simple ko) play on. Such games are left out: a game
that ends that way is played again with the next random numbers (the comment line says how
many were left out). OpenSpiel also ends a game after `max` moves (by default twice the
number of points) and scores it; the tests give games/go the same limit (`max-moves`).
"""

import argparse
import random
import sys

try:
    import pyspiel
except ImportError:
    sys.stderr.write("go-reference: pyspiel is not installed (pip install open_spiel)\n")
    sys.exit(3)


def open_spiel_version():
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:  # noqa: BLE001 - only for the header comment
        return "unknown"


def board(state, size):
    """The rows from 1 up, from OpenSpiel's own printout of the board."""
    lines = str(state).splitlines()
    rows = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            rows[int(parts[0])] = parts[1]
    out = []
    for r in range(1, size + 1):
        row = rows[r]
        assert len(row) == size, line
        out.append(row.replace("+", "."))
    return "/".join(out)


def name(state, action):
    text = state.action_to_string(state.current_player(), action)
    return text.split()[1].lower()


def ply_line(k, state, size, empty):
    mover = "black" if state.current_player() == 0 else "white"
    rows = board(state, size)
    if state.is_terminal():
        illegal = "-"
        mover = "-"
    else:
        legal = {name(state, a) for a in state.legal_actions()}
        bad = sorted(p for p in empty(rows) if p not in legal)
        illegal = " ".join(bad) if bad else "-"
    return "ply %d mover %s board %s illegal %s" % (k, mover, rows, illegal)


def empties(size):
    cols = "abcdefghjklmnopqrstuvwxyz"[:size]

    def empty(rows):
        return [
            "%s%d" % (cols[x], y + 1)
            for y, row in enumerate(rows.split("/"))
            for x, c in enumerate(row)
            if c == "."
        ]

    return empty


def play_games(size, seed, count, max_length, out):
    params = {"board_size": size}
    if max_length:
        params["max_game_length"] = max_length
    game = pyspiel.load_game("go", params)
    komi = game.get_parameters()["komi"]
    limit = game.max_game_length()
    rng = random.Random(seed)
    empty = empties(size)
    skipped = 0
    lines = []
    n = 0
    while n < count:
        state = game.new_initial_state()
        game_lines = []
        k = 0
        game_lines.append(ply_line(k, state, size, empty))
        passes = 0
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            move = name(state, action)
            passes = passes + 1 if move == "pass" else 0
            game_lines.append("play %s" % move)
            state.apply_action(action)
            k += 1
            game_lines.append(ply_line(k, state, size, empty))
        if passes < 2 and k < limit:
            skipped += 1  # ended by OpenSpiel's superko: left out
            continue
        n += 1
        returns = state.returns()
        if returns[0] > returns[1]:
            ending = "winner black"
        elif returns[1] > returns[0]:
            ending = "winner white"
        else:
            ending = "draw"
        lines.append("game %d size %d komi %s max %d" % (n, size, komi, limit))
        lines.extend(game_lines)
        lines.append("end %s plies %d" % (ending, k))
    out.write(
        "# OpenSpiel %s go, random games: size %d, seed %d, count %d, max length %d, "
        "%d left out (superko)\n" % (open_spiel_version(), size, seed, count, limit, skipped)
    )
    for line in lines:
        out.write(line + "\n")


def perft(size, depth, out):
    """`perft <depth> <count>` for each depth from 1: legal move sequences from the start.

    OpenSpiel counts no moves after a repeated position (its superko ends the game), while
    games/go plays on; on 3x3 up to depth 5 the two counts agree.
    """
    game = pyspiel.load_game("go", {"board_size": size})
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
    out.write("# OpenSpiel %s go, perft from the start: size %d\n" % (open_spiel_version(), size))
    for d, c in enumerate(counts, start=1):
        out.write("perft %d %d\n" % (d, c))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("games", help="random games, every ply")
    g.add_argument("--size", type=int, required=True)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--max-length", type=int, default=0)
    p = sub.add_parser("perft", help="leaf counts from the start")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--depth", type=int, required=True)
    args = parser.parse_args()
    if args.command == "games":
        play_games(args.size, args.seed, args.count, args.max_length, sys.stdout)
    else:
        perft(args.size, args.depth, sys.stdout)


if __name__ == "__main__":
    main()
