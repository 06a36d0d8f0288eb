# A candidate that fails while an agent searches stops the game, as in a random playout.
flexrules playout tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr -n 3 --agent X=mcts:50
