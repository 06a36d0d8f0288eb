# An unknown --param is a wrong command line: exit status 2.
flexrules run tests/inputs/tic-tac-toe --param size=4
