# With ties carrying over, the tied first prize (3) goes with the second (2) to player 0's
# next win: 5 points, where the game as given discards it (2 points).
flexrules run games/goofspiel --param cards=3 --rules games/goofspiel/variants/ties-carry-over.fr --play 0:3,1:3,0:2,1:1
