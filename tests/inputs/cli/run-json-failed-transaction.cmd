# A transaction that fails: run --json still prints one document, with the error, the
# message chain and the diagnostic (place, hint, notes) in the transaction; exit status 1.
flexrules run tests/inputs/tic-tac-toe --json --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --send "place to a1 with player \"X\""
