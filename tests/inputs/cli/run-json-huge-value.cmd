# A value that shares its parts is refused by --json (exit 1) rather than written out: a
# list of 2^20 references to one list of 100,000 integers.
flexrules run tests/inputs/huge/shared-list.fr --send "go to x" --json
