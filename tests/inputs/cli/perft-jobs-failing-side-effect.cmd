# The same count spread over three threads (--jobs 3): the same sequences and finished
# games, and the same errors, each reported as first met in the walk on one thread.
flexrules perft tests/inputs/tic-tac-toe 3 --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --jobs 3
