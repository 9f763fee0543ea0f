#!/usr/bin/env python3
"""The remat cost model against measured time, op by op.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/remat/op_costs.py [--repeat N] [--json FILE]

For each op and shape, times a function that runs the op alone (`tadc run
--repeat`, the median call) and reads the function's estimated cost from
`tad-opt --tad-test-memory-model`. One cost unit is meant to be the time
of a fused elementwise add on one element, so the last column, nanoseconds
per unit, should be the same for every op: how far it strays is how far
the model is from this machine.
The constants in dialects/tad/TadMemoryModel.cpp come from this table
(docs/results-remat.md shows it, docs/remat-model.md why).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import TADC, machine, tadc_run, write_json  # noqa: E402

TAD_OPT = os.path.join(os.path.dirname(TADC), "tad-opt")

# (label, parameters, result type, expression)
CASES = [
    ("matmul 128x256 @ 256x256",
     "x: f32[128, 256], w: f32[256, 256]", "f32[128, 256]", "x @ w"),
    ("matmul 128x256 @ 256x1024",
     "x: f32[128, 256], w: f32[256, 1024]", "f32[128, 1024]", "x @ w"),
    ("matmul 128x1024 @ 1024x256",
     "x: f32[128, 1024], w: f32[1024, 256]", "f32[128, 256]", "x @ w"),
    ("batched 4x128x64 @ 4x64x128",
     "x: f32[4, 128, 64], w: f32[4, 64, 128]", "f32[4, 128, 128]", "x @ w"),
    ("matmul f64 128x256 @ 256x256",
     "x: f64[128, 256], w: f64[256, 256]", "f64[128, 256]", "x @ w"),
    ("add 128x256", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "x + y"),
    ("add 128x1024", "x: f32[128, 1024], y: f32[128, 1024]",
     "f32[128, 1024]", "x + y"),
    ("four ops fused 128x256", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "(x + y) * x - y * 2.0"),
    ("div 128x256", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "x / y"),
    ("sqrt 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "sqrt(x)"),
    ("rsqrt 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "rsqrt(x)"),
    ("sigmoid 128x1024", "x: f32[128, 1024]",
     "f32[128, 1024]", "sigmoid(x)"),
    ("exp 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "exp(x)"),
    ("log 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "log(x)"),
    ("pow 128x256", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "pow(x, y)"),
    ("tanh 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "tanh(x)"),
    ("log1p 128x256", "x: f32[128, 256]", "f32[128, 256]", "log1p(x)"),
    ("expm1 128x256", "x: f32[128, 256]", "f32[128, 256]", "expm1(x)"),
    ("softplus 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "softplus(x)"),
    ("logsigmoid 128x256", "x: f32[128, 256]", "f32[128, 256]",
     "logsigmoid(x)"),
    ("exp f64 128x256", "x: f64[128, 256]", "f64[128, 256]", "exp(x)"),
    ("log1p f64 128x256", "x: f64[128, 256]", "f64[128, 256]",
     "log1p(x)"),
    ("expm1 f64 128x256", "x: f64[128, 256]", "f64[128, 256]",
     "expm1(x)"),
    ("softplus f64 128x256", "x: f64[128, 256]", "f64[128, 256]",
     "softplus(x)"),
    ("log f64 128x256", "x: f64[128, 256]", "f64[128, 256]", "log(x)"),
    ("tanh f64 128x256", "x: f64[128, 256]", "f64[128, 256]", "tanh(x)"),
    ("sum rows 128x256", "x: f32[128, 256]", "f32[128]",
     "sum(x, axes: [1])"),
    ("sum columns 128x256", "x: f32[128, 256]", "f32[256]",
     "sum(x, axes: [0])"),
    ("max rows 128x256", "x: f32[128, 256]", "f32[128]",
     "max(x, axes: [1])"),
    ("softmax 4x128x128", "x: f32[4, 128, 128]",
     "f32[4, 128, 128]", "softmax(x, axis: -1)"),
    ("logsumexp 4x128x128", "x: f32[4, 128, 128]",
     "f32[4, 128]", "logsumexp(x, axis: -1)"),
    ("transpose 128x4x64 [1,0,2]", "x: f32[128, 4, 64]",
     "f32[4, 128, 64]", "transpose(x, perm: [1, 0, 2])"),
    ("transpose 128x256 [1,0]", "x: f32[128, 256]",
     "f32[256, 128]", "transpose(x, perm: [1, 0])"),
    ("transpose 128x1024 [1,0]", "x: f32[128, 1024]",
     "f32[1024, 128]", "transpose(x, perm: [1, 0])"),
]


def model_cost(source):
    """The remat cost model's estimate of the function in `source`, in cost
    units (tad-opt --tad-test-memory-model on the frontend's IR)."""
    tad = subprocess.run([TADC, source, "--emit=tad"], check=True,
                         capture_output=True, text=True).stdout
    remark = subprocess.run([TAD_OPT, "--tad-test-memory-model", "-o",
                             os.devnull], input=tad, check=True,
                            capture_output=True, text=True).stderr
    match = re.search(r"cost ([0-9.]+) units", remark)
    if not match:
        raise SystemExit(f"op_costs: no cost in {remark!r}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--only", nargs="*",
                        help="the cases whose label starts with one of these")
    parser.add_argument("--json", help="also write the rows here, with the "
                        "machine, the OpenBLAS kernel and the date")
    args = parser.parse_args()
    rows, blas_core = [], None
    print(f"machine: {machine()}")
    print("| op | measured | model | ns per unit |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, params, result, expr in CASES:
            if args.only and not any(label.startswith(o) for o in args.only):
                continue
            source = os.path.join(tmp, "op.tad")
            with open(source, "w") as f:
                f.write(f"fn h({params}) -> {result} {{ return {expr}; }}\n")
            stats = tadc_run(source, "h", args.repeat)
            seconds = stats["median_seconds"]
            blas_core = stats.get("blas_core", blas_core)
            units = model_cost(source)
            rows.append({"op": label, "seconds": seconds, "units": units,
                         "ns_per_unit": seconds * 1e9 / units})
            print(f"| {label} | {seconds * 1e6:.1f} us | {units:.0f} | "
                  f"{seconds * 1e9 / units:.3f} |", flush=True)
    if args.json:
        write_json(args.json, "remat op costs, 1 thread", rows,
                   env="OPENBLAS_NUM_THREADS=1", blas_core=blas_core)


if __name__ == "__main__":
    main()
