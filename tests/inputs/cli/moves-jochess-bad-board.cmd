# A joChess board file given as a parameter is read when the game is loaded: a mistake in
# it is a diagnostic with the file's line and column, and the game does not load.
flexrules moves games/jochess --param board=tests/inputs/boards/malformed/jochess-bad-allowed-move.xml
