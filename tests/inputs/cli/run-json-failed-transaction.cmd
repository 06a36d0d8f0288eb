# A transaction that fails: run --json still prints one document, with the error and the
# message chain in the transaction, and the exit status is 1.
flexrules run tests/inputs/tic-tac-toe --json --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --send "place to a1 with player \"X\""
