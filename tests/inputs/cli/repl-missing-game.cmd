# A game that does not exist is a wrong command line for the REPL too: exit status 2.
flexrules repl tests/inputs/no-such-game
