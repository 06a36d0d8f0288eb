# Playouts stopped by an error are counted as such and the first error is shown.
flexrules playout tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr -n 20
