# Atomic chess just after Black blew up White's king, with Black's king attacked by the
# bishop on d6 (a position python-chess gives at the end of such a game): it is a finished
# game won by Black, not an error about the kings (the check of the side that just moved
# does not matter once the side to move has lost its king).
flexrules run games/chess --rules games/chess/variants/atomic.fr --param "fen=8/4k3/3B4/8/p7/P6P/1r6/8 w - - 0 69"
