# Chess from a position where Black is already checkmated: the game is over as soon as it
# is set up, White having won (the outcome in the JSON).
flexrules run games/chess --json --param "fen=7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
