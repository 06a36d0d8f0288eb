# Beside each depth's count, how many of those sequences ended the game. From b2 then a1,
# the full tree to the end: every sequence of 7 more moves fills the board.
flexrules perft tests/inputs/tic-tac-toe 7 --play b2,a1
