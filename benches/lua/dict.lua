-- Dictionary updates: the Lua side of the `micro/dict` benchmark (benches/runtime.rs).
-- 10^6 puts into a table of 1000 integer keys, then the sum of its values.
-- flexrules: (var d (dict)) (var i 0)
--            (while (< i 1000000) (do (var d (put d (% i 1000) i)) (var i (+ i 1)) end))
--            (sum (values d))
local n = tonumber(arg[1]) or 1000000
local d = {}
local i = 0
while i < n do
  d[i % 1000] = i
  i = i + 1
end
local total = 0
for _, v in pairs(d) do
  total = total + v
end
print(total)
