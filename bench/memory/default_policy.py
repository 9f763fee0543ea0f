#!/usr/bin/env python3
"""tad's default compile (the remat pass's overhead policy at 2%,
docs/remat.md) against its store-all compile and PyTorch 1.13 eager, on
bench/memory/run.py's workloads: the 64-block resnet and the four
transformer blocks, each as a loop and unrolled; and bench/step/mlp.py's
8-layer MLP (its `grad`).

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/memory/default_policy.py
        [--rounds 5] [--repeat 5] [--bound P%] [--threads N] [--json FILE]

Peaks as run.py measures them (tad: the runtime allocator, `tadc run
--stats-json`; PyTorch: the profiler's memory events of one step, in a
process of its own). Step times on one thread (`--threads`: the
runtime's pool, which also cuts the matmuls), the two
tad compiles alternating in rounds, each the median of its steps; the
measured overhead is the default's median over store-all's less one;
`same_code` says whether the two derivatives are the same IR (then the
measured overhead is the machine's noise).
Writes JSON with the CPU model and the date.
"""
import argparse
import datetime
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import run as memory  # noqa: E402
from common import machine, tadc_run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(HERE), "step"))
import mlp  # noqa: E402


def mlp_torch_peak_child():
    """PyTorch's peak of one step of the MLP (`--torch-mlp-peak`), measured
    as run.py measures its workloads', in a process of its own."""
    import torch
    torch.set_num_threads(1)
    step, _ = mlp.torch_step(torch, False, mlp.inputs_of("unrolled"))
    print(memory.torch_peak_here(torch, step))


def torch_peak(name):
    if name != "mlp":
        return memory.torch_peak(name, False)
    import subprocess
    proc = subprocess.run([sys.executable, os.path.abspath(__file__),
                           "--torch-mlp-peak"], check=True,
                          capture_output=True, text=True)
    return int(proc.stdout.split()[-1])


def report_of(source, extra, tmp):
    """The remat report's function entry of a compile with `extra`."""
    import subprocess
    path = os.path.join(tmp, "report.json")
    subprocess.run([memory.TADC, source, "--emit=ad", "--entry", "net_grad",
                    "-o", os.devnull, f"--remat-report={path}", *extra],
                   check=True, capture_output=True)
    with open(path) as f:
        return json.load(f)["functions"][0]


def same_code(source, policy, tmp):
    """Whether the default's derivative is store-all's (`--emit=ad`, less
    the budget the policy records on it): then a measured overhead is the
    machine's noise, not the schedule's."""
    import re
    import subprocess
    texts = []
    for extra in (["--remat-budget=store-all"], policy):
        path = os.path.join(tmp, "ad.mlir")
        subprocess.run([memory.TADC, source, "--emit=ad", "--entry",
                        "net_grad", "-o", path, *extra], check=True,
                       capture_output=True)
        with open(path) as f:
            texts.append(re.sub(r"tad\.budget = \d+ : i64, ", "", f.read()))
    return texts[0] == texts[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bound", help="the overhead policy at this bound "
                    "(--remat-overhead) instead of the default compile")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json",
                    default=os.path.join(HERE, "default_policy.json"))
    ap.add_argument("--torch-mlp-peak", action="store_true",
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_mlp_peak:
        return mlp_torch_peak_child()
    policy = [f"--remat-overhead={args.bound}"] if args.bound else []
    sides = {"store-all": ["--remat-budget=store-all"], "default": policy}
    rows = []
    blas_core = None  # the OpenBLAS kernel the runtime ran
    with tempfile.TemporaryDirectory() as tmp:
        for name, source_of, forms in (
                ("resnet", memory.resnet_source, ("loop", "unrolled")),
                ("transformer", memory.transformer_source,
                 ("loop", "unrolled")),
                ("mlp", lambda unrolled: mlp.source(request="grad"),
                 ("unrolled",))):
            peak_of_torch = torch_peak(name)
            for form in forms:
                source = os.path.join(tmp, f"{name}_{form}.tad")
                with open(source, "w") as f:
                    f.write(source_of(form == "unrolled"))
                times = {side: [] for side in sides}
                peaks = {}
                for _ in range(args.rounds):
                    for side, extra in sides.items():
                        stats = tadc_run(source, "net_grad", args.repeat,
                                         extra=[f"--threads={args.threads}",
                                                *extra])
                        times[side].append(stats["median_seconds"])
                        peaks[side] = stats["peak_bytes"]
                        blas_core = stats.get("blas_core", blas_core)
                report = report_of(source, policy, tmp)
                base = float(np.median(times["store-all"]))
                row = {"workload": name, "form": form,
                       "torch_peak_bytes": peak_of_torch,
                       "store_all_peak_bytes": peaks["store-all"],
                       "default_peak_bytes": peaks["default"],
                       "store_all_ms": 1e3 * base,
                       "default_ms": 1e3 * float(np.median(times["default"])),
                       "predicted_overhead": report["recompute_overhead"],
                       "budget": report["budget"],
                       "same_code": same_code(source, policy, tmp)}
                row["measured_overhead"] = row["default_ms"] / row[
                    "store_all_ms"] - 1
                rows.append(row)
                print(f"{name} {form}: store-all {peaks['store-all']} "
                      f"({row['store_all_ms']:.1f} ms), default "
                      f"{peaks['default']} ({row['default_ms']:.1f} ms, "
                      f"predicted {100 * row['predicted_overhead']:.1f}%, "
                      f"measured {100 * row['measured_overhead']:.1f}%), "
                      f"PyTorch {peak_of_torch}: "
                      f"{peaks['default'] / peak_of_torch:.2f}x"
                      + (", the same code" if row["same_code"] else ""),
                      flush=True)
    record = {"benchmark": "default compile against store-all and PyTorch "
                           f"eager, {args.threads} thread(s)",
              "command": "OPENBLAS_NUM_THREADS=1 /usr/bin/python3 "
                         "bench/memory/default_policy.py "
                         f"--rounds {args.rounds} --repeat {args.repeat}"
                         + (f" --bound {args.bound}" if args.bound else "")
                         + (f" --threads {args.threads}"
                            if args.threads != 1 else ""),
              "threads": args.threads,
              "blas_core": blas_core,
              "machine": machine(),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "rows": rows}
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
