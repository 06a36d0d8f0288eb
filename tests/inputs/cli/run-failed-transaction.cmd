# Without --json: the failed transaction with its diagnostic, a closing line, exit status 1.
flexrules run tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --send "place to c3 with player \"X\""
