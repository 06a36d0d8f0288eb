# A misspelt entity name is refused before any move runs: file, line, column and the
# closest name.
flexrules check tests/inputs/errors/unknown-entity.fr
