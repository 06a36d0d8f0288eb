# An agent that searches must know whose turn it is: the game must define `to-move`.
flexrules playout games/mini-awele -n 5 --agent mcts
