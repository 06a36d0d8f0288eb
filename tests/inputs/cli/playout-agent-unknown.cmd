# An agent the command line cannot read is a usage error.
flexrules playout tests/inputs/tic-tac-toe --agent X=minimax
