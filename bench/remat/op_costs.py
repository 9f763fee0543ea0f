#!/usr/bin/env python3
"""The remat cost model against measured time, op by op.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/remat/op_costs.py [--repeat N]

For each op and shape, times a function that runs the op alone (`tadc run
--repeat`, the median call) and reads the op's estimated cost from the remat
report (`--remat-report`, the cost of the op's value in a derivative that
reads it). One cost unit is meant to be the time of a fused elementwise add
on one element, so the last column, nanoseconds per unit, should be the same
for every op: how far it strays is how far the model is from this machine.
The constants in dialects/tad/TadMemoryModel.cpp come from this table
(docs/remat.md records it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import TADC, machine, tadc_run  # noqa: E402

# (label, the op's name in the report, parameters, result type, expression)
CASES = [
    ("matmul 128x256 @ 256x256", "tad.matmul",
     "x: f32[128, 256], w: f32[256, 256]", "f32[128, 256]", "x @ w"),
    ("matmul 128x256 @ 256x1024", "tad.matmul",
     "x: f32[128, 256], w: f32[256, 1024]", "f32[128, 1024]", "x @ w"),
    ("matmul 128x1024 @ 1024x256", "tad.matmul",
     "x: f32[128, 1024], w: f32[1024, 256]", "f32[128, 256]", "x @ w"),
    ("batched 4x128x64 @ 4x64x128", "tad.matmul",
     "x: f32[4, 128, 64], w: f32[4, 64, 128]", "f32[4, 128, 128]", "x @ w"),
    ("matmul f64 128x256 @ 256x256", "tad.matmul",
     "x: f64[128, 256], w: f64[256, 256]", "f64[128, 256]", "x @ w"),
    ("add 128x256", "tad.add", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "x + y"),
    ("add 128x1024", "tad.add", "x: f32[128, 1024], y: f32[128, 1024]",
     "f32[128, 1024]", "x + y"),
    ("div 128x256", "tad.div", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "x / y"),
    ("sqrt 128x256", "tad.sqrt", "x: f32[128, 256]", "f32[128, 256]",
     "sqrt(x)"),
    ("rsqrt 128x256", "tad.rsqrt", "x: f32[128, 256]", "f32[128, 256]",
     "rsqrt(x)"),
    ("sigmoid 128x1024", "tad.sigmoid", "x: f32[128, 1024]",
     "f32[128, 1024]", "sigmoid(x)"),
    ("exp 128x256", "tad.exp", "x: f32[128, 256]", "f32[128, 256]",
     "exp(x)"),
    ("log 128x256", "tad.log", "x: f32[128, 256]", "f32[128, 256]",
     "log(x)"),
    ("pow 128x256", "tad.pow", "x: f32[128, 256], y: f32[128, 256]",
     "f32[128, 256]", "pow(x, y)"),
    ("tanh 128x256", "tad.tanh", "x: f32[128, 256]", "f32[128, 256]",
     "tanh(x)"),
    ("sum rows 128x256", "tad.reduce_sum", "x: f32[128, 256]", "f32[128]",
     "sum(x, axes: [1])"),
    ("max rows 128x256", "tad.reduce_max", "x: f32[128, 256]", "f32[128]",
     "max(x, axes: [1])"),
    ("softmax 4x128x128", "tad.softmax", "x: f32[4, 128, 128]",
     "f32[4, 128, 128]", "softmax(x, axis: -1)"),
    ("logsumexp 4x128x128", "tad.logsumexp", "x: f32[4, 128, 128]",
     "f32[4, 128]", "logsumexp(x, axis: -1)"),
    ("transpose 128x4x64 [1,0,2]", "tad.transpose", "x: f32[128, 4, 64]",
     "f32[4, 128, 64]", "transpose(x, perm: [1, 0, 2])"),
    ("transpose 128x256 [1,0]", "tad.transpose", "x: f32[128, 256]",
     "f32[256, 128]", "transpose(x, perm: [1, 0])"),
]


def model_cost(tmp, op, params, result, expr):
    """The remat report's cost of the op's value, in a derivative whose
    backward sweep reads it (the product's cotangent needs it)."""
    first = params.split(":")[0]
    source = os.path.join(tmp, "model.tad")
    with open(source, "w") as f:
        f.write(f"fn f({params}, y: {result}) -> f32 {{\n"
                f"  return sum(({expr}) * y);\n}}\n"
                f"fn g = grad(f, wrt: [{first}]);\n")
    report = os.path.join(tmp, "report.json")
    subprocess.run([TADC, source, "--emit=ad", "--entry", "g",
                    "--remat-budget=1TiB", f"--remat-report={report}"],
                   check=True, capture_output=True)
    with open(report) as f:
        values = json.load(f)["functions"][0]["values"]
    costs = [v["cost"] for v in values if v["op"] == op]
    if not costs:
        raise SystemExit(f"op_costs: no {op} value in the report of {expr}")
    return costs[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print("| op | measured | model | ns per unit |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, op, params, result, expr in CASES:
            source = os.path.join(tmp, "op.tad")
            with open(source, "w") as f:
                f.write(f"fn h({params}) -> {result} {{ return {expr}; }}\n")
            seconds = tadc_run(source, "h", args.repeat)["median_seconds"]
            units = model_cost(tmp, op, params, result, expr)
            print(f"| {label} | {seconds * 1e6:.1f} us | {units:.0f} | "
                  f"{seconds * 1e9 / units:.3f} |", flush=True)


if __name__ == "__main__":
    main()
