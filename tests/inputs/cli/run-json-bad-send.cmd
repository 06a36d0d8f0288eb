# A malformed --send is a wrong command line (exit status 2); --json still prints one
# document, with the error.
flexrules run tests/inputs/tic-tac-toe --json --send "place a1"
