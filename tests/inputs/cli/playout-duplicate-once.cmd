# playout --duplicate needs two groups of players, each with its agent.
flexrules playout games/bridge -n 2 --duplicate N,S=random --score score_ns
