#!/usr/bin/env python3
"""Runs the executables of a bundle made by scripts/gpu-bundle.py (as
run.py in the bundle's folder) and checks them against the CPU's results.

    run.py [--repeat N]

Needs python3 and numpy. For each program: runs it on seed 0's inputs,
compares every result with NAME.expected/ (within the bundle's tolerance of
the result's largest magnitude, or bit for bit at tolerance 0), checks the
measured peak against the budget it was compiled with, and prints one line
with the median time and the peak. Runs every program, so that one run on a
GPU machine reports all of them, and exits non-zero if any failed.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def check(case, repeat, tmp):
    name = case["name"]
    out = os.path.join(tmp, name)
    os.makedirs(out)
    stats = os.path.join(out, "stats.json")
    args = [os.path.join(HERE, name), "--seed", "0", "--output-dir", out,
            "--stats-json", stats, "--repeat", str(repeat)]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"{name}: exit status {proc.returncode}: {proc.stderr.strip()}"
    expected_dir = os.path.join(HERE, name + ".expected")
    expected = sorted(os.path.basename(p)
                      for p in glob.glob(os.path.join(expected_dir, "*.npy")))
    worst = 0.0
    for result in expected:
        path = os.path.join(out, result)
        if not os.path.exists(path):
            return f"{name}: no {result}"
        want = np.load(os.path.join(expected_dir, result))
        got = np.load(path)
        if got.shape != want.shape or got.dtype != want.dtype:
            return (f"{name}: {result} is {got.dtype}{list(got.shape)}, "
                    f"expected {want.dtype}{list(want.shape)}")
        if case["tolerance"] == 0:
            if got.tobytes() != want.tobytes():
                return f"{name}: {result} differs"
            continue
        w, g = want.astype(np.float64), got.astype(np.float64)
        error = float(np.max(np.abs(g - w))) / max(np.max(np.abs(w)), 1e-30)
        worst = max(worst, error)
        if not error <= case["tolerance"]:
            return (f"{name}: {result} differs by {error:.3g} of its largest "
                    f"magnitude (tolerance {case['tolerance']})")
    with open(stats) as f:
        measured = json.load(f)
    peak = measured["peak_bytes"]
    if case["budget"] and peak > case["budget"]:
        return f"{name}: peak {peak} bytes over the budget of {case['budget']}"
    how = ("bitwise equal" if case["tolerance"] == 0
           else f"within {worst:.3g}")
    graphs = measured.get("graph_launches", 0)
    print(f"ok: {name}: {len(expected)} results {how}, peak {peak} bytes"
          + (f" (budget {case['budget']})" if case["budget"] else "")
          + f", median {measured['median_seconds'] * 1e3:.3f} ms"
          + (f", {graphs} graphs in the last call" if graphs else ""),
          flush=True)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            failure = check(case, args.repeat, tmp)
            if failure:
                print("FAIL: " + failure, flush=True)
                failures += 1
    if failures:
        sys.exit(f"{failures} of {len(cases)} programs failed")
    print(f"all {len(cases)} programs match the CPU")


if __name__ == "__main__":
    main()
