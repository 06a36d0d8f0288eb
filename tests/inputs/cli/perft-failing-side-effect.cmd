# perft counts only the moves that commit and reports each distinct error once, with how
# many candidates it stopped and where it was first met.
flexrules perft tests/inputs/tic-tac-toe 3 --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr
