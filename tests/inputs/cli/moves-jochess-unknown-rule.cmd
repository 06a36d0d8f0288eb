# A rules file that switches off a rule the board file does not have: the game does not
# start, and the error lists the file's rules.
flexrules moves games/jochess --param board=../shared/jochess/2PlayerBoard.xml --rules tests/inputs/house-rules/jochess-unknown-rule.fr
