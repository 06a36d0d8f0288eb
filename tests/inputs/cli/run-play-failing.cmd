# Playing a move whose side-effect fails gives the error, not "not legal".
flexrules run tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --play b1,a1
