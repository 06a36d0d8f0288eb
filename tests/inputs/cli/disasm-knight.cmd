# The instructions the law "Knight Moves" compiles to: each with the steps it counts and
# its source line; a fused instruction's plain sequence indented under it.
flexrules disasm games/chess "law Knight Moves"
