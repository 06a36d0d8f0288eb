#!/usr/bin/env python3
"""Reference English draughts games from OpenSpiel, for flexrules' agreement tests.

OpenSpiel (https://github.com/google-deepmind/open_spiel, `pip install open_spiel`) is an
independent, established implementation of English draughts ("checkers"). This script
asks it, and only it, what happens; tests/draughts_reference.rs replays the same moves in
tests/inputs/draughts and compares.

    tools/checkers-reference.py --seed S --count N

plays N games choosing uniformly among OpenSpiel's legal actions with Python's
`random.Random(S)` (one generator for the N games).

Output (one item per line, `#` lines are comments):

    game <n>
    ply <k> mover <white|black> legal <action strings, sorted> play <action>
    ... (one `ply` line for every position with a move; each jump of a multi-jump is a
        ply of its own, by the same mover)
    end <winner white|winner black|draw> plies <k>

Actions are OpenSpiel's own action strings (`a3b4`, `c3e5`: the square left, the square
reached). OpenSpiel's player 0 is White (the `o` men, rows 1-3, first to move), player 1
Black. The game ends when the player to move has no legal action: that player loses,
unless it is because 40 actions in a row took nothing, which is a draw (the returns are
then 0 0).
"""

import argparse
import random
import sys

try:
    import pyspiel
except ImportError:
    sys.stderr.write("checkers-reference: pyspiel is not installed (pip install open_spiel)\n")
    sys.exit(3)

SIDES = ("white", "black")


def open_spiel_version():
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:  # noqa: BLE001 - only for the header comment
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    args = ap.parse_args()
    game = pyspiel.load_game("checkers")
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write(f"# tools/checkers-reference.py --seed {args.seed} --count {args.count} "
              f"(OpenSpiel {open_spiel_version()})\n")
    for n in range(args.count):
        state = game.new_initial_state()
        out.write(f"game {n}\n")
        ply = 0
        while not state.is_terminal():
            player = state.current_player()
            actions = state.legal_actions()
            names = sorted(state.action_to_string(player, a) for a in actions)
            action = rng.choice(actions)
            out.write("ply %d mover %s legal %s play %s\n" % (
                ply, SIDES[player], " ".join(names), state.action_to_string(player, action)))
            state.apply_action(action)
            ply += 1
        r0, r1 = state.returns()
        end = "draw" if r0 == r1 else "winner " + SIDES[0 if r0 > r1 else 1]
        out.write(f"end {end} plies {ply}\n")


if __name__ == "__main__":
    main()
