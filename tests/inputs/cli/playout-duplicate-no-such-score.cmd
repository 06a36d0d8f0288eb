# A --score the outcome does not have: no board is scored, which is an error saying why.
flexrules playout games/bridge -n 2 --jobs 1 --duplicate N,S=random --duplicate E,W=random --score points
