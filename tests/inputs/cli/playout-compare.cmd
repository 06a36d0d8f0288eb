# --compare plays the same games again with a rules file added and says how each outcome's
# rate moved from the game as given, with a 95% interval; a change whose interval leaves
# out 0 is marked. First to twenty ends Awele's games sooner, and leaves no draws.
flexrules playout games/awele -n 400 --compare games/awele/variants/first-to-twenty.fr
