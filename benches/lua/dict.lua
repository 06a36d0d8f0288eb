-- Dictionary counts: the Lua side of the `micro/dict` benchmark (benches/runtime.rs).
-- 10^6 counts into a table of 1000 integer keys, then the sum of its values.
-- flexrules: (var d (dict)) (var i 0)
--            (while (< i 1000000)
--              (do (var k (% i 1000)) (var d (put d k (+ (get d k 0) 1))) (var i (+ i 1)) end))
--            (sum (values d))
local n = tonumber(arg[1]) or 1000000
local d = {}
local i = 0
while i < n do
  local k = i % 1000
  d[k] = (d[k] or 0) + 1
  i = i + 1
end
local total = 0
for _, v in pairs(d) do
  total = total + v
end
print(total)
