# Draughts searched by MCTS: its rules ask the engine whether a jump must be continued
# inside moves that the search and the questions try, a king's multi-jump among them, and
# every game ends (a win, a loss or the forty-move draw), none stopped by an error.
flexrules playout tests/inputs/draughts -n 4 --seed 2 --agent mcts:30
