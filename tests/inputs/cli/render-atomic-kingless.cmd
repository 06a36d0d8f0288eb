# The board of a game over before any move (atomic chess, White's king gone) says who won,
# not whose move it is.
flexrules render games/chess --rules games/chess/variants/atomic.fr --param "fen=8/p7/8/2k5/8/8/7P/7r b - - 0 1" --format text
