-- Counting loop: the Lua side of the `micro/count` benchmark (benches/runtime.rs).
-- flexrules: (var i 0) (while (< i 10000000) (var i (+ i 1))) i
local n = tonumber(arg[1]) or 10000000
local i = 0
while i < n do
  i = i + 1
end
print(i)
