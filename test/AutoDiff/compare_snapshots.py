#!/usr/bin/env python3
"""Binomial checkpointing of loops changes what is stored and recomputed,
not what is computed: the results of `tadc run --loop-snapshots=N` equal
those of the full tape (N = 0) bit for bit. With --smaller, the measured
peak must also be below the full tape's (for loops long enough that their
tape outweighs the extra state that checkpointing carries).

    compare_snapshots.py [--smaller] TADC FILE.tad ENTRY N [N ...]
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def run(tadc, source, entry, snapshots, out):
    os.makedirs(out)
    proc = subprocess.run([tadc, "run", source, "--entry", entry,
                           f"--loop-snapshots={snapshots}",
                           f"--output-dir={out}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: --loop-snapshots={snapshots}:\n{proc.stderr}")
    peak = int(re.search(r"memory: peak (\d+) bytes", proc.stdout).group(1))
    return peak, {os.path.basename(p): np.load(p)
                  for p in glob.glob(os.path.join(out, "*.npy"))}


def main():
    args = sys.argv[1:]
    smaller = args[0] == "--smaller"
    tadc, source, entry, *counts = args[1:] if smaller else args
    with tempfile.TemporaryDirectory() as tmp:
        full_peak, full = run(tadc, source, entry, 0, os.path.join(tmp, "0"))
        for n in counts:
            peak, results = run(tadc, source, entry, n, os.path.join(tmp, n))
            same = results.keys() == full.keys() and all(
                np.array_equal(results[k], full[k]) for k in full)
            if not same:
                sys.exit(f"FAIL: {entry} --loop-snapshots={n}: results differ "
                         "from the full tape")
            if smaller and peak >= full_peak:
                sys.exit(f"FAIL: {entry} --loop-snapshots={n}: peak {peak} "
                         f"not below the full tape's {full_peak}")
            print(f"ok: {entry} snapshots {n}: equal to the full tape, peak "
                  f"{peak} (full tape {full_peak})")


if __name__ == "__main__":
    main()
