# One player searches, the other plays at random; a player named with --agent that never
# has the move (a typo: the game's players are "X" and "O") gets a warning.
flexrules playout tests/inputs/tic-tac-toe -n 30 --agent O=mcts:100 --agent x=mcts
