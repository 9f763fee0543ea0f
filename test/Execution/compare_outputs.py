"""Compares the .npy results in folders against the first folder's: prints
`N results compared`, and a line with `differ` for each result that is not
within float32 rounding (rtol 1e-5 of the result's largest magnitude)."""
import os
import sys

import numpy as np

reference, others = sys.argv[1], sys.argv[2:]
names = sorted(n for n in os.listdir(reference) if n.endswith(".npy"))
for folder in others:
    if sorted(n for n in os.listdir(folder) if n.endswith(".npy")) != names:
        print(f"{folder}: other results differ from {reference}'s")
for name in names:
    want = np.load(os.path.join(reference, name)).astype(np.float64)
    scale = max(float(np.max(np.abs(want))), 1e-30)
    for folder in others:
        got = np.load(os.path.join(folder, name)).astype(np.float64)
        error = float(np.max(np.abs(got - want))) / scale
        if got.shape != want.shape or not error <= 1e-5:
            print(f"{folder}/{name}: results differ (relative error {error})")
print(f"{len(names)} results compared")
