#!/usr/bin/env python3
"""Compile time of `tadc --emit=lib`: tanh MLPs of 25, 50, 100 and 200
layers (width 1024, batch 64; the gradient of every weight), with and
without a budget, and bench/memory/run.py's 4 transformer blocks. Each
compile is timed whole (wall clock, the median of --repeat), and split by
`--emit=llvm-ir` (tad's passes and the translation) against the rest
(LLVM's optimizer and code generator, the C wrapper and the link).

    /usr/bin/python3 bench/compile/run.py [--repeat N] [--depths 25 50 100 200]
        [--json FILE]

`--json` also writes the rows, with the machine and the date
(docs/results.md shows them).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(BENCH, "memory"))
sys.path.insert(0, os.path.join(BENCH, "step"))
from common import TADC, machine, write_json  # noqa: E402
import mlp  # noqa: E402  (bench/step/mlp.py's network, deeper)
import run as memory  # noqa: E402


def seconds(args, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--depths", type=int, nargs="*", default=[25, 50, 100, 200])
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print("| program | budget | `--emit=lib` | of which `--emit=llvm-ir` "
          "| per layer |")
    print("| --- | --- | --- | --- | --- |")
    programs = [(f"MLP, {d} layers", mlp.source(d, "grad"), d)
                for d in args.depths]
    programs.append(("transformer, 4 blocks",
                     memory.transformer_source(True), 4))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, text, layers in programs:
            source = os.path.join(tmp, "p.tad")
            with open(source, "w") as f:
                f.write(text)
            base = [TADC, source, "--entry", "net_grad"]
            # Without a budget, and halfway from the feasible minimum to
            # the store-all peak (the peak itself where they are equal).
            for budget in (None, "half"):
                extra = []
                if budget == "half":
                    minimum = memory.tad_minimum(source)
                    report = os.path.join(tmp, "report.json")
                    subprocess.run(base + ["--emit=ad", "--remat-budget=1TiB",
                                           f"--remat-report={report}"],
                                   capture_output=True, check=True)
                    with open(report) as f:
                        top = json.load(f)["functions"][0]["store_all_peak"]
                    budget = (minimum + top) // 2
                    extra = [f"--remat-budget={budget}"]
                lib = seconds(base + ["--emit=lib", "-o",
                                      os.path.join(tmp, "libp.so")] + extra,
                              args.repeat)
                ir = seconds(base + ["--emit=llvm-ir", "-o", os.devnull]
                             + extra, args.repeat)
                print(f"| {label} | {budget or 'none'} | {lib:.2f} s | "
                      f"{ir:.2f} s | {lib / layers * 1e3:.0f} ms |",
                      flush=True)
                rows.append({"program": label, "layers": layers,
                             "budget": budget, "lib_seconds": lib,
                             "llvm_ir_seconds": ir})
    if args.json:
        write_json(args.json, "tadc --emit=lib of MLPs and 4 transformer "
                   "blocks", rows, repeat=args.repeat)


if __name__ == "__main__":
    main()
