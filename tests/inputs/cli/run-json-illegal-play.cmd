# run --json prints one JSON document also when a --play move cannot be played: what ran,
# and the error. The exit status is 1.
flexrules run tests/inputs/tic-tac-toe --json --play b2,b2
