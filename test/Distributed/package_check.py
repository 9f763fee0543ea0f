#!/usr/bin/env python3
"""The Python package under mpirun: each process compiles (one cache for
all, cold at the start) and calls a function with collectives on its own
array; every process gets the sums and means over all of them.

    mpirun -np N python3 package_check.py SCRATCH
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
os.environ["TAD_CACHE_DIR"] = os.path.join(sys.argv[1], "cache")
import tad  # noqa: E402

module = tad.compile(os.path.join(HERE, "Inputs", "collectives.tad"),
                     entry="views")
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
processes = int(os.environ["OMPI_COMM_WORLD_SIZE"])
a = np.arange(24, dtype=np.float64).reshape(4, 6) * (rank + 1)
results = module.views(a)
scale = processes * (processes + 1) / 2  # the sum of rank + 1
base = np.arange(24, dtype=np.float64).reshape(4, 6)
expected = [base[1:3, :] * scale, base[0:2, 2:5] * scale / processes,
            base[3, 1] * scale]
for i, e in enumerate(expected):
    got = np.asarray(results[f"result{i}"])
    if got.shape != np.shape(e) or np.max(np.abs(got - e)) > 1e-12:
        sys.exit(f"FAIL: process {rank}: result{i} is {got}, expected {e}")
print(f"PASS process {rank} of {processes}: tad.compile'd collectives match "
      f"NumPy", flush=True)
