#!/usr/bin/env python3
"""Writes a .tad program of N structs, each a field of the next (S0 holds
a tensor), and a function taking the last: inputs for limits.test."""
import sys

n = int(sys.argv[1])
print("struct S0 { w: f32 }")
for i in range(1, n):
    print(f"struct S{i} {{ s: S{i - 1} }}")
print(f"fn f(p: S{n - 1}) -> f32 {{ return 1.0; }}")
