#!/usr/bin/env python3
"""The GEMMs that a program hands cuBLAS on --target=cuda, listed on a
machine without a GPU (issue 50).

    /usr/bin/python3 bench/gpu/gemm_calls.py (FILE.tad --entry NAME | --gpt CONFIG)
        [--tadc build/bin/tadc] [--json OUT.json]

Compiles the entry (or bench/gpu/gpt.py's step at CONFIG, e.g. `gpu`)
with `--target=cuda --cuda-matmul=cublas`, runs one call against the
stand-in driver and cuBLAS of test/GPU/Inputs (built here with cc) with
FAKE_CUBLAS_LOG and FAKE_CUBLAS_SKIP, so that each GEMM is checked and
logged but not computed (the inputs are the executable's `--seed 0`
ones), and prints the calls grouped by their operations and sizes in
cuBLAS's column-major terms: how many, and their GFLOP (2 m n k per
matrix). The total is what the step asks of cuBLAS, to set beside the
model's FLOPs and beside the GEMM kernels and times that a lent GPU
measures (bench/gpu/lease.sh: Nsight Compute for tad's step,
bench/gpu/torch_profile.py for PyTorch's). Then the call's `memory:` and
`gpu:` lines: its peak, and how much of it is device memory rather than
managed memory (docs/gpu.md, "Memory, and remat budgets").
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STANDINS = os.path.join(ROOT, "test", "GPU", "Inputs")


def calls_of(log):
    """The logged calls: (kind, opA, opB, m, n, k, batch) per line."""
    calls = []
    for line in log.splitlines():
        words = line.split()
        if words[:2] == ["fake", "libcublas:"] and words[2] == "gemm":
            calls.append(("gemm", *map(int, words[3:8]), 1))
        elif words[:3] == ["fake", "libcublas:", "batched"]:
            calls.append(("batched", *map(int, words[4:9]), int(words[-1])))
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source", nargs="?")
    ap.add_argument("--entry")
    ap.add_argument("--gpt", help="bench/gpu/gpt.py's step at this configuration")
    ap.add_argument("--tadc", default=os.path.join(ROOT, "build", "bin", "tadc"))
    ap.add_argument("--json")
    args = ap.parse_args()
    if bool(args.gpt) == bool(args.source and args.entry):
        ap.error("give FILE.tad and --entry, or --gpt")
    with tempfile.TemporaryDirectory() as tmp:
        source, entry = args.source, args.entry
        if args.gpt:
            sys.path.insert(0, HERE)
            import gpt
            gpt.use(args.gpt)
            source, entry = os.path.join(tmp, "gpt.tad"), "net_value_and_grad"
            with open(source, "w") as f:
                f.write(gpt.source())
        for name, lib in (("fake_libcuda.c", "libcuda.so.1"),
                          ("fake_libcublas.c", "libcublas.so.13")):
            subprocess.run(["cc", "-shared", "-fPIC",
                            os.path.join(STANDINS, name), "-o",
                            os.path.join(tmp, lib)], check=True)
        exe = os.path.join(tmp, "program")
        compiled = subprocess.run(
            [args.tadc, source, "--target=cuda", "--cuda-matmul=cublas",
             "--emit=exe", "--entry", entry, "-o", exe],
            capture_output=True, text=True)
        if compiled.returncode:
            sys.exit(f"gemm_calls.py: tadc failed:\n{compiled.stderr}")
        env = dict(os.environ, LD_LIBRARY_PATH=tmp, FAKE_CUBLAS_LOG="1",
                   FAKE_CUBLAS_SKIP="1")
        ran = subprocess.run([exe, "--seed", "0", "--output-dir",
                              os.path.join(tmp, "out")],
                             capture_output=True, text=True, env=env)
        if ran.returncode or "0 errors" not in ran.stderr:
            sys.exit(f"gemm_calls.py: the program failed:\n{ran.stderr}")
    calls = calls_of(ran.stderr)
    groups = collections.Counter(calls)
    flops = lambda c: 2 * c[3] * c[4] * c[5] * c[6]
    total = sum(flops(c) for c in calls)
    print(f"{os.path.basename(source)}:{entry}: {len(calls)} cuBLAS calls, "
          f"{total} FLOP ({total / 1e9:.3f} GFLOP)")
    print("| calls | kind | opA opB | m | n | k | batch | FLOP |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c, n in sorted(groups.items(), key=lambda g: -flops(g[0]) * g[1]):
        print(f"| {n} | {c[0]} | {'NT'[c[1]]}{'NT'[c[2]]} | {c[3]} | {c[4]} "
              f"| {c[5]} | {c[6]} | {n * flops(c)} |")
    for line in ran.stderr.splitlines() + ran.stdout.splitlines():
        if line.startswith(("memory:", "gpu:")):
            print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"source": source, "entry": entry, "flop": total,
                       "calls": [list(c) for c in calls]}, f, indent=1)


if __name__ == "__main__":
    main()
