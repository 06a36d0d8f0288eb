0 hole
