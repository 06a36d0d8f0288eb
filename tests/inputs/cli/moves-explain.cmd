# --explain gives every candidate's verdict: b1 is vetoed by the law (with what it
# notified), the corners and b2 fail with an error, the others are legal.
flexrules moves tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/corner-typo.fr --explain --play b1
