# playout --duplicate: the same twelve deals played at two tables, the two example bidding
# systems swapping partnerships; the mean North-South score at each table and the first
# system's gain per board, with 95% intervals.
flexrules playout games/bridge -n 12 --jobs 2 --duplicate N,S=system:games/bridge/systems/natural.xml --duplicate E,W=system:games/bridge/systems/natural-weak-twos.xml --score score_ns
