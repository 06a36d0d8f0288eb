# Tic-tac-toe's whole tree: 549,945 sequences, of which 255,168 are finished games (131,184
# won by X, 77,904 by O, 46,080 drawn), shown beside each depth and in total.
flexrules perft tests/inputs/tic-tac-toe 9
