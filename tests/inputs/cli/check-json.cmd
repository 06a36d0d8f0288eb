# check --format json: one JSON object per diagnostic, with its place, and the other places
# it points at (here the first definition) as notes; exit status 1.
flexrules check tests/inputs/errors/duplicate-entity.fr --format json
