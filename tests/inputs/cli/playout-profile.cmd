# Where the steps of random playouts go, by body, after the statistics.
flexrules playout games/awele -n 3 --seed 4 --profile
