#!/usr/bin/env python3
"""Runs derivatives on two targets and compares every result.

    compare_targets.py TADC TARGET FILE.tad:ENTRY... [--tolerance T]
                       [--budget BYTES] [--tadc-arg ARG]...

TARGET is `cuda-emulator` (the GPU kernels run thread by thread on the CPU)
or `cuda` (a real GPU). The reference is the CPU with generated matmul
loops, whose loop nests are the kernels' own: with --tolerance 0 (the
default) the results must be equal bit for bit, otherwise within T relative
to the largest magnitude of each result.

With --budget, both compile under that remat budget, and the allocator's
measured peak of the target must not exceed it. --tadc-arg passes an
argument to the target's tadc run (--cuda-matmul=cublas, say).

Prints one line per entry and exits non-zero on the first difference.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(tadc, source, entry, target, folder, budget, extra=(), dims=()):
    os.makedirs(folder)
    stats = os.path.join(folder, "stats.json")
    args = [tadc, "run", source, "--entry", entry, f"--output-dir={folder}",
            f"--stats-json={stats}", *(f"--dim={d}" for d in dims)]
    if target == "cpu":
        args.append("--matmul=loops")
    else:
        args.append(f"--target={target}")
        args += extra
    if budget:
        args.append(f"--remat-budget={budget}")
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}\n{proc.stderr}")
    results = {os.path.basename(p): np.load(p)
               for p in sorted(glob.glob(os.path.join(folder, "*.npy")))}
    with open(stats) as f:
        peak = json.load(f)["peak_bytes"]
    return results, peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tadc")
    parser.add_argument("target", choices=["cuda", "cuda-emulator"])
    parser.add_argument("programs", nargs="+", metavar="FILE:ENTRY")
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--budget", type=int, default=0)
    parser.add_argument("--tadc-arg", action="append", default=[])
    parser.add_argument("--dim", action="append", default=[],
                        help="NAME=SIZE for a generic entry, on both sides")
    args = parser.parse_intermixed_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i, program in enumerate(args.programs):
            source, _, entry = program.rpartition(":")
            expected, _ = run(args.tadc, source, entry, "cpu",
                              os.path.join(tmp, f"{i}-cpu"), args.budget,
                              dims=args.dim)
            actual, peak = run(args.tadc, source, entry, args.target,
                               os.path.join(tmp, f"{i}-target"), args.budget,
                               args.tadc_arg, args.dim)
            if sorted(expected) != sorted(actual) or not expected:
                sys.exit(f"FAIL: {program}: results {sorted(actual)}, "
                         f"expected {sorted(expected)}")
            worst = 0.0
            for name, want in expected.items():
                got = actual[name]
                if got.shape != want.shape or got.dtype != want.dtype:
                    sys.exit(f"FAIL: {program}: {name} is {got.dtype}"
                             f"{list(got.shape)}, expected {want.dtype}"
                             f"{list(want.shape)}")
                if args.tolerance == 0:
                    if got.tobytes() != want.tobytes():
                        sys.exit(f"FAIL: {program}: {name} differs")
                    continue
                w = want.astype(np.float64)
                g = got.astype(np.float64)
                scale = max(np.max(np.abs(w)), 1e-30)
                error = float(np.max(np.abs(g - w))) / scale
                worst = max(worst, error)
                if not error <= args.tolerance:
                    sys.exit(f"FAIL: {program}: {name} differs by {error:.3g} "
                             f"of its largest magnitude (tolerance "
                             f"{args.tolerance})")
            if args.budget and peak > args.budget:
                sys.exit(f"FAIL: {program}: peak {peak} bytes over the "
                         f"budget of {args.budget}")
            how = ("bitwise equal" if args.tolerance == 0 else
                   f"within {worst:.3g}")
            print(f"ok: {program} {args.target}: {len(expected)} results "
                  f"{how}, peak {peak} bytes")


if __name__ == "__main__":
    main()
