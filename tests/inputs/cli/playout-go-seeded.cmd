# Go random games with a fixed seed: the same games whatever the number of jobs, and the
# same as when #actions walked every cell and a group asked every neighbour (the empty
# points kept by the game come in the board's order, and the answers did not change).
flexrules playout games/go --param size=9 -n 40 --seed 1 --jobs 2
