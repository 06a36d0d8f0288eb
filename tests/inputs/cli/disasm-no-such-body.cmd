# A name no body has: an error with a hint, exit status 2.
flexrules disasm games/awele "law Nothing Like This"
