#!/usr/bin/env python3
"""Reference chess games and perft counts from python-chess, for flexrules' agreement tests.

python-chess (https://github.com/niklasf/python-chess, `pip install chess`) is an
independent, established implementation of chess and of the variants games/chess has as
rules files. This script asks it, and only it, what happens; tests/chess_reference.rs
replays the same moves in games/chess and compares.

    tools/chess-reference.py games --variant V --seed S --count N [--max-plies M]
    tools/chess-reference.py perft --variant V --fen F --depth D

Variants: standard, chess960, kingofthehill, threecheck, racingkings, horde, antichess,
atomic, crazyhouse (python-chess's names; antichess is its AntichessBoard: giveaway rules without
castling, as lichess plays them).

Output format of `games` (one item per line, `#` lines are comments):

    game <n> <variant>
    ply <k> fen <placement> <side> <castling> <ep> <halfmove> <fullmove> legal <uci ...|->
    play <uci>
    ... (a `ply` line after every move, the `play` line between them)
    end <white|black|draw|unfinished> reason <reason|-> plies <k>

The FEN fields are those of standard FEN whatever the variant (the en passant square only
when an en passant capture is legal, as python-chess writes it); `legal` is sorted, `-` on
the last line of a finished game. A Chess960 game starts from one of the 960 positions
drawn by the game's generator (its first `ply` line gives it); castling is written as the
king taking its rook (e1h1), and castling rights in X-FEN. Endings and their reasons: checkmate, stalemate,
insufficient material, fifty moves (halfmove clock 100), threefold repetition (the third
occurrence, automatic), and each variant's own (see `ending`). A game not over after
--max-plies moves ends `unfinished`.

Output format of `perft`: `perft <depth> <count>` for each depth from 1. A position where
the game is over (by `ending`: a draw by insufficient material or repetition too) counts no
moves, as in flexrules, where the game records its end; on the standard test positions
at the depths used the counts are the published ones.
"""

import argparse
import random
import sys

try:
    import chess
    import chess.variant
except ImportError:
    sys.stderr.write("chess-reference: python-chess is not installed (pip install chess)\n")
    sys.exit(3)

BOARDS = {
    "standard": chess.Board,
    "kingofthehill": chess.variant.KingOfTheHillBoard,
    "threecheck": chess.variant.ThreeCheckBoard,
    "racingkings": chess.variant.RacingKingsBoard,
    "horde": chess.variant.HordeBoard,
    "antichess": chess.variant.AntichessBoard,
    "atomic": chess.variant.AtomicBoard,
    "crazyhouse": chess.variant.CrazyhouseBoard,
}


def make_board(variant, fen=None, rng=None):
    """A board of the variant from `fen`, else its start; Chess960 games start from a
    position drawn by `rng` among the 960."""
    if variant == "chess960":
        if fen is not None:
            return chess.Board(fen, chess960=True)
        return chess.Board.from_chess960_pos(rng.randrange(960) if rng else 518)
    cls = BOARDS[variant]
    return cls() if fen is None else cls(fen)


def fen(board):
    """Standard six-field FEN, whatever the variant."""
    ep = "-"
    if board.ep_square is not None and board.has_legal_en_passant():
        ep = chess.square_name(board.ep_square)
    castling = board.castling_xfen()
    return " ".join(
        [
            chess.BaseBoard.board_fen(board),
            "w" if board.turn == chess.WHITE else "b",
            castling,
            ep,
            str(board.halfmove_clock),
            str(board.fullmove_number),
        ]
    )


def side(color):
    return "white" if color == chess.WHITE else "black"


def ending(variant, board):
    """(winner or None, reason) when the game is over, else None."""
    legal = any(board.generate_legal_moves())
    if variant != "standard" and board.is_variant_end():
        if board.is_variant_draw():
            return (None, variant_reason(variant, board))
        winner = board.turn if board.is_variant_win() else not board.turn
        return (side(winner), variant_reason(variant, board))
    if board.is_checkmate():
        return (side(not board.turn), "checkmate")
    if board.is_insufficient_material():
        return (None, "insufficient material")
    if not legal:
        if variant == "antichess":
            return (side(board.turn), "no legal move")
        return (None, "stalemate")
    if board.halfmove_clock >= 100:
        return (None, "fifty moves")
    if board.is_repetition(3):
        return (None, "threefold repetition")
    return None


def variant_reason(variant, board):
    return {
        "kingofthehill": "king in the centre",
        "threecheck": "three checks",
        "racingkings": "king on the eighth rank",
        "horde": "horde captured",
        "antichess": "no pieces left",
        "atomic": "king exploded",
    }.get(variant, "variant end")


def games(args):
    print("# python-chess %s, variant %s, seed %d" % (chess.__version__, args.variant, args.seed))
    rng = random.Random(args.seed)
    for n in range(args.count):
        board = make_board(args.variant, rng=rng)
        print("game %d %s" % (n, args.variant))
        plies = 0
        while True:
            over = ending(args.variant, board)
            legal = sorted(m.uci() for m in board.legal_moves) if over is None else []
            print("ply %d fen %s legal %s" % (plies, fen(board), " ".join(legal) or "-"))
            if over is not None:
                winner, reason = over
                print("end %s reason %s plies %d" % (winner or "draw", reason.replace(" ", "-"), plies))
                break
            if plies >= args.max_plies:
                print("end unfinished reason - plies %d" % plies)
                break
            move = rng.choice(legal)
            print("play %s" % move)
            board.push_uci(move)
            plies += 1


def perft(variant, board, depth):
    """Move sequences of length `depth`; a finished game (by `ending`, draws included) has
    no moves, as in flexrules, where the game records its end."""
    if depth == 0:
        return 1
    if ending(variant, board) is not None:
        return 0
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += perft(variant, board, depth - 1)
        board.pop()
    return total


def perft_cmd(args):
    board = make_board(args.variant, args.fen)
    for d in range(1, args.depth + 1):
        print("perft %d %d" % (d, perft(args.variant, board, d)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("games")
    g.add_argument("--variant", default="standard", choices=sorted(BOARDS) + ["chess960"])
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--count", type=int, default=10)
    g.add_argument("--max-plies", type=int, default=300)
    q = sub.add_parser("perft")
    q.add_argument("--variant", default="standard", choices=sorted(BOARDS) + ["chess960"])
    q.add_argument("--fen")
    q.add_argument("--depth", type=int, default=3)
    args = p.parse_args()
    if args.cmd == "games":
        games(args)
    else:
        perft_cmd(args)


if __name__ == "__main__":
    main()
