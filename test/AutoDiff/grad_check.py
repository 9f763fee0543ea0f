#!/usr/bin/env python3
"""Checks tad's derivatives against central finite differences in f64.

    grad_check.py --tadc PATH --source FILE.tad --primal f --derivative df
                  [--seed N] [--rtol R] [--atol A] [--tadc-arg ARG ...]

The program is compiled once with `tadc --emit=lib`; NumPy calls the primal
and the derivative through ctypes. `df` is grad, value_and_grad or vjp of
`f` (read from the .tad source); every wrt parameter's derivative is
compared, element by element, with (L(x + h e) - L(x - h e)) / 2h, where L
is f's first result (grad, value_and_grad) or <c, f(x)> for random
cotangents c (vjp).
"""

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

CTYPE = {"double": np.float64, "float": np.float32, "int32_t": np.int32,
         "int64_t": np.int64}


def is_integer(dtype):
    return np.issubdtype(dtype, np.integer)


def parse_header(path):
    """{function: [(name, dtype, shape, is_result)]} from the C header. The
    names are the .tad ones of the header's comments: a record's leaves are
    `p.l1.w` there (p_l1_w in C)."""
    text = open(path).read()
    functions = {}
    for m in re.finditer(r"^int (\w+)\((.*?)\);", text, re.M):
        name, params = m.group(1), m.group(2)
        if name.startswith("tad_call_"):
            continue  # the same call with its pointers in an array
        comment = re.search(rf"/\* {name}\((.*?)\)\n \*   -> \((.*?)\) \*/",
                            text, re.S)
        names = re.findall(r"([\w.]+): \w+", comment.group(1) + ", " +
                           comment.group(2))
        entries = []
        for i, p in enumerate(params.split(", ")):
            ctype, pname = re.match(r"(?:const )?(\w+) \*(\w+)", p).groups()
            shape_m = re.search(
                rf"{name}_{re.escape(pname.rstrip('_'))}_shape\[\] = \{{(.*?)\}}; /\* rank (\d+)",
                text)
            rank = int(shape_m.group(2))
            shape = tuple(int(s) for s in shape_m.group(1).split(", ")) if rank else ()
            entries.append((names[i], CTYPE[ctype], shape,
                            not p.startswith("const")))
        functions[name] = entries
    return functions


def caller(lib, entries, name):
    """A Python function calling `name` on NumPy inputs; returns the
    results (None in the positions of inputs)."""
    fn = getattr(lib, name)

    def call(*inputs):
        args, outs, keep = [], [], []
        it = iter(inputs)
        for _, dtype, shape, is_result in entries:
            if is_result:
                out = np.zeros(shape, dtype=dtype)
                outs.append(out)
                args.append(out.ctypes.data_as(ctypes.c_void_p))
            else:
                a = np.ascontiguousarray(next(it), dtype=dtype)
                keep.append(a)
                args.append(a.ctypes.data_as(ctypes.c_void_p))
        if fn(*args) != 0:
            raise RuntimeError(f"{name} failed")
        return outs
    return call


def request_of(source, derivative):
    """(kind, primal, wrt names or None) of a .tad request, or of an MLIR
    declaration with #tad.derivative (whose parameters are arg0, arg1...)."""
    m = re.search(rf"@{derivative}\(.*?#tad\.derivative<(\w+) of @(\w+) wrt \[([^\]]*)\]>",
                  source, re.S)
    if m:
        wrt = [f"arg{int(i)}" for i in m.group(3).split(",")]
        return m.group(1), m.group(2), wrt
    m = re.search(rf"fn\s+{derivative}\s*=\s*(grad|value_and_grad|vjp)\(\s*(\w+)"
                  rf"(?:\s*,\s*wrt:\s*\[([^\]]*)\])?", source)
    kind, primal, wrt = m.group(1), m.group(2), m.group(3)
    return kind, primal, [w.strip() for w in wrt.split(",")] if wrt else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tadc", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--derivative", action="append", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="inputs are uniform in [-scale, scale]")
    ap.add_argument("--positive", action="store_true",
                    help="inputs are uniform in [0.5, 1.5] (for log, sqrt, pow)")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-8)
    ap.add_argument("--step", type=float, default=1e-6)
    ap.add_argument("--samples", type=int, default=0,
                    help="check this many random elements per parameter "
                         "(0: every element)")
    ap.add_argument("--int-range", type=int, nargs=2, default=(0, 4),
                    metavar=("LOW", "HIGH"),
                    help="integer inputs (token ids) are uniform in "
                         "[LOW, HIGH); they are never differentiated")
    ap.add_argument("--tadc-arg", action="append", default=[],
                    help="pass this to tadc too (e.g. --remat-budget=16KiB)")
    args = ap.parse_args()

    source = open(args.source).read()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        lib_path = os.path.join(tmp, "libcheck.so")
        subprocess.run([args.tadc, args.source, "--emit=lib", "-o", lib_path]
                       + args.tadc_arg, check=True)
        functions = parse_header(os.path.join(tmp, "libcheck.h"))
        lib = ctypes.CDLL(lib_path)
        for derivative in args.derivative:
            kind, primal, wrt = request_of(source, derivative)
            p_entries = functions[primal]
            params = [e for e in p_entries if not e[3]]
            results = [e for e in p_entries if e[3]]
            # A record differentiates as its leaves (p.l1.w, ...); without
            # wrt, the float parameters (integers have no derivative).
            names = [p[0] for p in params]
            wrt = ([n for w in wrt for n in names
                    if n == w or n.startswith(w + ".")] if wrt else
                   [p[0] for p in params if not is_integer(p[1])])
            rng = np.random.default_rng(args.seed)
            low, high = (0.5, 1.5) if args.positive else (-args.scale, args.scale)
            xs = [rng.integers(*args.int_range, size=p[2]).astype(p[1])
                  if is_integer(p[1]) else rng.uniform(low, high, size=p[2])
                  for p in params]
            cots = [rng.uniform(-1, 1, size=r[2]) for r in results]
            f = caller(lib, p_entries, primal)
            df = caller(lib, functions[derivative], derivative)

            def loss(inputs):
                outs = f(*inputs)
                if kind == "vjp":
                    return sum(float(np.sum(c * o)) for c, o in zip(cots, outs))
                return float(outs[0])

            d_inputs = xs + (cots if kind == "vjp" else [])
            d_outs = df(*d_inputs)
            if kind == "value_and_grad":
                d_outs = d_outs[len(results):]
            for name, got in zip(wrt, d_outs):
                index = [p[0] for p in params].index(name)
                want = np.array(got, dtype=np.float64, copy=True)
                elements = list(np.ndindex(*xs[index].shape))
                if args.samples and len(elements) > args.samples:
                    picks = rng.choice(len(elements), args.samples, replace=False)
                    elements = [elements[i] for i in picks]
                for e in elements:
                    plus = [x.copy() for x in xs]
                    minus = [x.copy() for x in xs]
                    plus[index][e] += args.step
                    minus[index][e] -= args.step
                    want[e] = (loss(plus) - loss(minus)) / (2 * args.step)
                if not np.allclose(got, want, rtol=args.rtol, atol=args.atol):
                    err = np.max(np.abs(got - want))
                    print(f"FAIL {derivative} d/d{name}: max abs error {err:.3g}\n"
                          f"  tad {got.ravel()[:6]}\n  fd  {want.ravel()[:6]}")
                    failures += 1
                else:
                    print(f"PASS {derivative} d/d{name} {tuple(xs[index].shape)}, "
                          f"{len(elements)} element(s): max abs error "
                          f"{np.max(np.abs(got - want)):.2g}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
