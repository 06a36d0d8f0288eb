# games/jochess needs a board file: without --param board it does not start, and says how.
flexrules moves games/jochess
