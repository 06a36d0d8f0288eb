# Goofspiel's bids are simultaneous: to-move gives both players. Random play draws among
# every player's bids; a searching agent refuses, since it would see the bids already made.
flexrules playout games/goofspiel --param cards=5 -n 3 --agent 0=mcts:20
