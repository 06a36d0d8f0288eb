-- Recursive Fibonacci: the Lua side of the `micro/fib` benchmark (benches/runtime.rs).
-- flexrules: #define fib (n) (if (< n 2) n else (+ (fib (- n 1)) (fib (- n 2))))
local function fib(n)
  if n < 2 then
    return n
  else
    return fib(n - 1) + fib(n - 2)
  end
end
print(fib(tonumber(arg[1]) or 27))
