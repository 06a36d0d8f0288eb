# A rules file switches a chess law off by name: with "No Castling Out Of Check"
# disabled, the king in check may castle (e1g1 and e1c1 are legal).
flexrules moves games/chess --param "fen=4k3/8/8/8/8/4r3/8/R3K2R w KQ - 0 1" --rules tests/inputs/house-rules/castle-out-of-check.fr
