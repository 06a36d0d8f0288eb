# Atomic chess from a position where White has no king (it was blown up): the game is over
# at once, Black having won, as python-chess's AtomicBoard says of the same FEN (a variant
# win for Black, no legal move); before, every move failed with a runtime error.
flexrules run games/chess --rules games/chess/variants/atomic.fr --param "fen=8/p7/8/2k5/8/8/7P/7r b - - 0 1"
