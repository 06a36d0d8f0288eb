# An item of the #actions list that is not (list <recipient> <message>) stops a playout
# even though playouts read only the candidates they draw: the list is checked whole.
flexrules playout tests/inputs/playout-games/malformed-action.fr -n 3
