"""Checks that the C program's printed results equal tadc run's .npy files
exactly (both run the same compiled code on the same inputs)."""
import sys

import numpy as np

text, outdir = sys.argv[1], sys.argv[2]
printed = {}
for line in open(text):
    if line.startswith("result"):
        key, value = line.split(" = ")
        printed[key] = np.float32(float(value))
h = np.load(f"{outdir}/result0.npy").reshape(-1)
loss = np.load(f"{outdir}/result1.npy")
bad = [i for i in range(h.size) if printed[f"result0[{i}]"] != h[i]]
if bad or printed["result1"] != loss:
    print(f"MISMATCH at {bad[:5]}; result1 {printed['result1']} vs {loss}")
    sys.exit(1)
print(f"OK: {h.size + 1} values equal")
