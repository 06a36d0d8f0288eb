# check --rules checks a variant file against the game: the misspelt label is a warning
# (the exit status stays 0) and the summary goes to standard output.
flexrules check tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/misspelt-label.fr
