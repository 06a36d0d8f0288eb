# Chess from a position where Black is already checkmated: the game is over as soon as it
# is set up, White having won (`run --json` gives the same outcome).
flexrules run games/chess --param "fen=7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
