# An agent that searches must know whose turn it is: the game must define `to-move`.
flexrules playout tests/inputs/paper -n 5 --agent mcts
