# #disable naming no rule: the game does not start; the error gives file, line and
# column of the name and the rule meant.
flexrules moves games/chess --rules tests/inputs/house-rules/misspelt-disable.fr
