# Chess from a stalemate: the game is over at once, so no move and no error.
flexrules perft games/chess 2 --param "fen=7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
