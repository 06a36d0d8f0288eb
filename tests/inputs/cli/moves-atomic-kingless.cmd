# Atomic chess with White's king gone: no move is left, and none fails.
flexrules moves games/chess --rules games/chess/variants/atomic.fr --param "fen=8/p7/8/2k5/8/8/7P/7r b - - 0 1"
