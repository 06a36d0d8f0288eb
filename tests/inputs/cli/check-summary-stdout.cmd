# The summary of a clean check is on standard output.
flexrules check tests/inputs/tic-tac-toe
