"""Writes an unrolled tanh network of N layers (f64, width 4, batch 2), runs
its gradient with `tadc run` on random inputs, and checks every weight's
gradient against NumPy's backpropagation (within 1e-9 of its largest
magnitude). With --llvm-ir FILE, tadc also writes the optimized LLVM IR
there; with --exe, it compiles an executable (`--emit=exe`, with each
--tadc-arg) and runs that instead. Prints `N gradients match`, or exits 1
naming the first that does not.

    deep_tanh_check.py TADC LAYERS TMPDIR [--llvm-ir FILE]
                       [--exe [--tadc-arg ARG]...]
"""
import argparse
import os
import subprocess
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("tadc")
ap.add_argument("layers", type=int)
ap.add_argument("tmp")
ap.add_argument("--llvm-ir")
ap.add_argument("--exe", action="store_true")
ap.add_argument("--tadc-arg", action="append", default=[])
args = ap.parse_args()
n = args.layers
os.makedirs(args.tmp, exist_ok=True)
weights = [f"w{i}" for i in range(n)]
source = os.path.join(args.tmp, "deep.tad")
with open(source, "w") as f:
    f.write("fn net(x: f64[2, 4], " +
            ", ".join(f"{w}: f64[4, 4]" for w in weights) + ") -> f64 {\n")
    f.write("  let h = x;\n")
    for w in weights:
        f.write(f"  h = tanh(h @ {w});\n")
    f.write("  return sum(h * h);\n}\n")
    f.write(f"fn net_grad = grad(net, wrt: [{', '.join(weights)}]);\n")

rng = np.random.default_rng(0)
inputs = os.path.join(args.tmp, "inputs")
os.makedirs(inputs, exist_ok=True)
x = rng.standard_normal((2, 4))
ws = [rng.standard_normal((4, 4)) for _ in weights]
np.save(os.path.join(inputs, "x.npy"), x)
for w, value in zip(weights, ws):
    np.save(os.path.join(inputs, f"{w}.npy"), value)
out = os.path.join(args.tmp, "out")
if args.exe:
    exe = os.path.join(args.tmp, "deep")
    subprocess.run([args.tadc, source, "--entry", "net_grad", "--emit=exe",
                    "-o", exe] + args.tadc_arg, check=True)
    command = [exe]
else:
    command = [args.tadc, "run", source, "--entry", "net_grad"]
    if args.llvm_ir:
        command.append(f"--jit-llvm-ir={args.llvm_ir}")
command += [f"--inputs={inputs}", f"--output-dir={out}"]
subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

# Backpropagation: h_{i+1} = tanh(h_i w_i), loss = sum(h_n^2).
hs = [x]
for w in ws:
    hs.append(np.tanh(hs[-1] @ w))
grad_h = 2 * hs[-1]
expected = [None] * n
for i in reversed(range(n)):
    grad_pre = grad_h * (1 - hs[i + 1] ** 2)
    expected[i] = hs[i].T @ grad_pre
    grad_h = grad_pre @ ws[i].T
for i, w in enumerate(weights):
    got = np.load(os.path.join(out, f"grad_{w}.npy"))
    scale = max(float(np.max(np.abs(expected[i]))), 1e-300)
    error = float(np.max(np.abs(got - expected[i]))) / scale
    if not error <= 1e-9:
        sys.exit(f"grad_{w} differs: relative error {error}")
print(f"{n} gradients match")
