# A player in both groups of --duplicate is refused.
flexrules playout games/bridge -n 2 --duplicate N,S=random --duplicate S,W=random --score score_ns
