# Where the steps of perft go, by body: the same numbers on any machine and with any
# --jobs (steps, not time).
flexrules perft tests/inputs/tic-tac-toe 3 --profile --jobs 2
