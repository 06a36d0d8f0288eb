# Tic-tac-toe played by Monte Carlo tree search on both sides: nearly every game is drawn,
# where random play gives X three games in five. The result depends only on the seed.
flexrules playout tests/inputs/tic-tac-toe -n 40 --agent mcts:300 --jobs 2
