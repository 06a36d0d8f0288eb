# --explain on a correct game after three moves: the marked cells are vetoed by
# "Cell Must Be Empty", which says which mark holds the cell.
flexrules moves tests/inputs/tic-tac-toe --explain --play b2,a1,c3
