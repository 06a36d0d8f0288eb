# Playing a vetoed move names the law and what it notified.
flexrules run tests/inputs/tic-tac-toe --play b2,b2
