# A rules file bound to an unknown target is an error: exit status 1.
flexrules check tests/inputs/tic-tac-toe --rules tests/inputs/tic-tac-toe/variants/unknown-target.fr
