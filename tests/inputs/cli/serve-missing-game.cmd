# A game that does not exist is a wrong command line for the server too: exit status 2.
flexrules serve tests/inputs/no-such-game --port 0
