# perft needs at least one thread.
flexrules perft tests/inputs/tic-tac-toe 2 --jobs 0
