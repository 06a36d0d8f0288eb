# With --profile, --disasm lists the instructions of the bodies named, each with how many
# times it ran (the same on any number of threads): most moves leave the knight's law at
# its first test.
flexrules perft games/chess 2 --jobs 2 --profile --disasm "law Knight Moves"
