#!/usr/bin/env python3
"""Measures tad's f32 math functions in ulp against a reference.

Runs `fn f(x: f32[N]) -> f32[N] { return FN(x); }` with `tadc run` on a
sweep of f32 inputs: every STRIDE-th bit pattern of each sign from 0 to
+inf, a dense sweep around each function's switch points, and the
extremes (zeros, the subnormal and normal limits, inf, NaN). The reference
is NumPy's float64 function rounded to f32: its error is below 1e-16
relative, so it is the correctly rounded f32 result except where the exact
value lies within 1e-16 of a rounding boundary. NaN must give NaN, inf the
right inf. Fails if any result is more than --max-ulp from the reference.

    math_ulp.py --tadc PATH [--stride 997] [--max-ulp 2] [FN ...]
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

FUNCTIONS = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "log1p": np.log1p,
    "expm1": np.expm1,
    "softplus": lambda x: np.logaddexp(0.0, x),
    "logsigmoid": lambda x: -np.logaddexp(0.0, -x),
}

# Where an expansion changes method or the result leaves the normal range.
SWITCH_POINTS = {
    "exp": [88.72283, -87.33655, -103.972, 0.3466, 0.0],
    "log": [1.0, 2.0 ** -126, 1.41421356, 0.70710678],
    "tanh": [0.625, 9.01, 0.0],
    "sigmoid": [0.0, -88.7, 16.6, -103.972],
    # Where 1 + x and exp(x) round to 1, where log1p(x) is about x, and
    # where exp(-|x|) leaves the normal range.
    "log1p": [0.0, 2.0 ** -24, 1.0, 0.5, 2.0 ** 24],
    "expm1": [0.0, 2.0 ** -25, 0.3466, 88.72283, 17.33],
    "softplus": [0.0, 16.6, 87.33655, 103.972, 1e4],
    "logsigmoid": [0.0, 16.6, 87.33655, 103.972, 1e4],
}


def sweep(function, stride):
    finite = np.arange(0, 0x7F800000, stride, dtype=np.int64).astype(np.uint32)
    limits = np.array([0, 1, 2, 0x007FFFFF, 0x00800000, 0x00800001,
                       0x7F7FFFFF, 0x7F800000, 0x7FC00000], dtype=np.uint32)
    positive = np.concatenate([finite, limits]).view(np.float32)
    dense = []
    for point in SWITCH_POINTS[function]:
        centre = np.array([abs(point)], dtype=np.float32).view(np.uint32)[0]
        around = np.arange(int(centre) - 4096, int(centre) + 4096,
                           dtype=np.int64)
        around = around[(around >= 0) & (around < 0x7F800000)]
        dense.append(around.astype(np.uint32).view(np.float32))
    magnitudes = np.concatenate([positive] + dense)
    return np.concatenate([magnitudes, -magnitudes]).astype(np.float32)


def ordered(values):
    """f32 bit patterns as integers that count ulps across zero."""
    bits = values.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def measure(tadc, function, stride, workdir):
    x = sweep(function, stride)
    source = os.path.join(workdir, function + ".tad")
    with open(source, "w") as f:
        f.write(f"fn f(x: f32[{x.size}]) -> f32[{x.size}] "
                f"{{ return {function}(x); }}\n")
    np.save(os.path.join(workdir, "x.npy"), x)
    out = os.path.join(workdir, "out-" + function)
    os.makedirs(out, exist_ok=True)
    subprocess.run([tadc, "run", source, "--entry", "f",
                    "--input", "x=" + os.path.join(workdir, "x.npy"),
                    "--output-dir", out],
                   check=True, stdout=subprocess.DEVNULL)
    got = np.load(os.path.join(out, "result0.npy"))
    with np.errstate(all="ignore"):
        want = FUNCTIONS[function](x.astype(np.float64)).astype(np.float32)
    ulp = np.abs(ordered(got) - ordered(want))
    ulp[np.isnan(got) & np.isnan(want)] = 0
    ulp[np.isnan(got) != np.isnan(want)] = 2 ** 40
    return x, got, want, ulp


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tadc", required=True)
    parser.add_argument("--stride", type=int, default=997)
    parser.add_argument("--max-ulp", type=int, default=2)
    parser.add_argument("functions", nargs="*", default=list(FUNCTIONS))
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as workdir:
        for function in args.functions:
            x, got, want, ulp = measure(args.tadc, function, args.stride,
                                        workdir)
            worst = int(ulp.max())
            print(f"{function}: {x.size} inputs, max {worst} ulp, "
                  f"{int((ulp > 1).sum())} above 1 ulp")
            if worst > args.max_ulp:
                failed = True
                for k in np.argsort(-ulp)[:5]:
                    print(f"  {function}({x[k]!r}) = {got[k]!r}, "
                          f"reference {want[k]!r} ({int(ulp[k])} ulp)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
