# A rules file that adds a law, switches a game law off, and switches its own law off and
# on again: all in order, so the file checks clean.
flexrules check games/chess --rules tests/inputs/house-rules/add-then-disable.fr
