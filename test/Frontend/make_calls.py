#!/usr/bin/env python3
"""Writes a .tad program whose loss calls a chain of N functions, c{N-1}
calling c{N-2} ... calling c0, declared in reverse order when asked (so
that the search for recursion meets the deepest function first): inputs
for limits.test."""
import sys

n, reverse = int(sys.argv[1]), len(sys.argv) > 2 and sys.argv[2] == "reverse"
chain = ["fn c0(x: f32[4]) -> f32[4] { return tanh(x); }"]
chain += [f"fn c{i}(x: f32[4]) -> f32[4] {{ return c{i - 1}(x) * 0.5; }}"
          for i in range(1, n)]
loss = f"fn f(x: f32[4]) -> f32 {{ return sum(c{n - 1}(x)); }}"
lines = [loss] + chain[::-1] if reverse else chain + [loss]
print("\n".join(lines + ["fn df = grad(f);"]))
