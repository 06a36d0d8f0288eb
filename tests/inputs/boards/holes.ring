12 hole
