# A house rule with two mistakes in its side-effects: the corner moves and b2 fail with an
# error. They are reported (each distinct error once, with its diagnostic and message
# chain) instead of being left out as if they were illegal; the exit status is 1.
flexrules moves tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr
