# A journal names its game relative to the journal file: loaded from another directory,
# it finds the game beside it and replays to the same world.
# cwd: tests/inputs/repl/games
flexrules repl ../../tic-tac-toe
:load ../../journals/tic-tac-toe.journal
:history
:moves
