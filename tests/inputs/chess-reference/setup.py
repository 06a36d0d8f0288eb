#!/usr/bin/env python3
"""What python-chess says of positions set up from FEN, for flexrules' setup test.

    python3 tests/inputs/chess-reference/setup.py tests/inputs/chess-reference/setup.txt

reads lines `setup <variant> <result> <reason> moves <n> <fen>` (`#` lines are comments;
the result, reason and count may be `?`) and prints each again with python-chess's answer
for the position set up from the FEN: the ending as tools/chess-reference.py judges it
(`ending`: result `white`, `black`, `draw` or `unfinished`, the reason with `-` for spaces,
`-` when unfinished) and the number of legal moves (0 when the game is over). A
Three-check FEN may carry its check counter (`3+3` after the en passant square, or `+0+0`
at the end), as python-chess reads it.
"""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
reference = runpy.run_path(os.path.join(HERE, "..", "..", "..", "tools", "chess-reference.py"),
                           run_name="chess_reference")
make_board, ending = reference["make_board"], reference["ending"]
chess = reference["chess"]


def main():
    print("# python-chess %s" % chess.__version__)
    with open(sys.argv[1]) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            variant, fen = words[1], " ".join(words[6:])
            board = make_board(variant, fen)
            over = ending(variant, board)
            if over is None:
                result, reason, moves = "unfinished", "-", board.legal_moves.count()
            else:
                result, reason, moves = over[0] or "draw", over[1].replace(" ", "-"), 0
            print("setup %s %s %s moves %d %s" % (variant, result, reason, moves, fen))


if __name__ == "__main__":
    main()
