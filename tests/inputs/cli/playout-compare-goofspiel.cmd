# Goofspiel with ties carrying over has fewer draws than the game as given.
flexrules playout games/goofspiel --param cards=5 -n 2000 --compare games/goofspiel/variants/ties-carry-over.fr
