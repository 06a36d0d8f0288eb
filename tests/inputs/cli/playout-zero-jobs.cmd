# --jobs 0 is refused as a wrong command line.
flexrules playout tests/inputs/tic-tac-toe --jobs 0
