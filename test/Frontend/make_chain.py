#!/usr/bin/env python3
"""Writes a .tad program whose loss is sum(x + x + ... + x) with N terms,
nested in DEPTH parenthesized groups when asked: inputs for limits.test."""
import sys

terms, depth = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0
chain = " + ".join(["x"] * terms)
expr = chain
for _ in range(depth):
    expr = "(" + expr + ") + " + chain
print("fn f(x: f32[4]) -> f32 {\n  return sum(" + expr + ");\n}\n"
      "fn df = grad(f);")
