# --disasm counts runs only with --profile.
flexrules perft games/chess 2 --disasm "law Knight Moves"
