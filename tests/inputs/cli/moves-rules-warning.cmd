# --rules shows the rules file's warnings when the game starts, and the game runs.
flexrules moves tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/misspelt-label.fr
