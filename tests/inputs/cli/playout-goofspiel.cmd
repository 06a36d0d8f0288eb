# Goofspiel, two players, five cards, random bids: the player to move is both of them.
flexrules playout games/goofspiel --param cards=5 -n 500
