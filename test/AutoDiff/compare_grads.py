#!/usr/bin/env python3
"""Checks that two derivatives of one program return bitwise equal results
on the same random inputs (a checkpointed and a plain variant, say).

    compare_grads.py --tadc PATH --source FILE.tad --derivative A --derivative B
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grad_check import caller, parse_header  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--tadc", required=True)
ap.add_argument("--source", required=True)
ap.add_argument("--derivative", action="append", required=True)
args = ap.parse_args()
a, b = args.derivative
with tempfile.TemporaryDirectory() as tmp:
    lib_path = os.path.join(tmp, "libcompare.so")
    subprocess.run([args.tadc, args.source, "--emit=lib", "-o", lib_path], check=True)
    functions = parse_header(os.path.join(tmp, "libcompare.h"))
    lib = ctypes.CDLL(lib_path)
    params = [e for e in functions[a] if not e[3]]
    if [p[1:3] for p in params] != [e[1:3] for e in functions[b] if not e[3]]:
        sys.exit(f"{a} and {b} take different parameters")
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-1, 1, size=p[2]) for p in params]
    ra = caller(lib, functions[a], a)(*inputs)
    rb = caller(lib, functions[b], b)(*inputs)
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x is None:
            continue
        if not np.array_equal(x, y):
            sys.exit(f"result {i} differs: max abs difference {np.max(np.abs(x - y))}")
    print(f"{a} and {b}: {sum(x is not None for x in ra)} results bitwise equal")
