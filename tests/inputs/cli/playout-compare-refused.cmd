# Every configuration is opened before any game is played: a rules file that does not
# load stops the run at once.
flexrules playout games/awele -n 400 --compare games/awele/variants/capture-four-grandslam.se
