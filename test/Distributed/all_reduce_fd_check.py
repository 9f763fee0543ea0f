#!/usr/bin/env python3
"""The derivative of all_reduce against finite differences across processes
(Inputs/collectives.tad, float64).

With collectives, a program run by P processes computes P outputs f_p from
P inputs x_p; its derivative is that of their sum F = sum_p f_p (the SPMD
convention, docs/distributed.md). Each process's gradient from f_grad must
equal the central difference of F when that process's input element moves
and the others' stay, F summed over the processes' outputs. Also checks the
forward collectives against NumPy.

    all_reduce_fd_check.py TADC MPIRUN SCRATCH [all]

Each finite difference runs the processes twice: make test checks one
element of each process's x and w (a different one per process), and
`all` (test/Full/all-reduce-derivative.test) every element.
"""
import os
import shlex
import subprocess
import sys

import numpy as np

tadc, mpirun, scratch = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3]
EVERY_ELEMENT = sys.argv[4:] == ["all"]
if sys.argv[4:] not in ([], ["all"]):
    sys.exit(f"FAIL: unknown arguments {sys.argv[4:]}")
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "Inputs", "collectives.tad")
P, STEP = 2, 1e-6
os.makedirs(scratch, exist_ok=True)


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}\n{done.stdout}{done.stderr}")


def evaluate(exe, xs, ws, tag):
    """Runs `exe` on P processes, process p on (xs[p], ws[p]); returns each
    process's results by name."""
    folder = os.path.join(scratch, tag)
    for p in range(P):
        os.makedirs(os.path.join(folder, f"in{p}"), exist_ok=True)
        np.save(os.path.join(folder, f"in{p}", "x.npy"), xs[p])
        np.save(os.path.join(folder, f"in{p}", "w.npy"), ws[p])
    run(mpirun + ["-np", str(P), exe, "--inputs", os.path.join(folder, "in%r"),
                  "--output-dir", os.path.join(folder, "out%r")])
    return [{name[:-len(".npy")]: np.load(os.path.join(folder, f"out{p}", name))
             for name in os.listdir(os.path.join(folder, f"out{p}"))}
            for p in range(P)]


value_exe = os.path.join(scratch, "f")
grad_exe = os.path.join(scratch, "f_grad")
run([tadc, SOURCE, "--entry", "f", "--emit=exe", "-o", value_exe])
run([tadc, SOURCE, "--entry", "f_grad", "--emit=exe", "-o", grad_exe])

rng = np.random.default_rng(11)
xs = [rng.standard_normal(3) for _ in range(P)]
ws = [rng.standard_normal(3) for _ in range(P)]


def numpy_f(p):
    s = sum(x * w for x, w in zip(xs, ws))
    m = sum(np.tanh(s) * x for x in xs) / P
    return np.sum(m * m) + np.sum((s - s ** 3 / 6.0) * ws[p])


values = [r["result0"] for r in evaluate(value_exe, xs, ws, "value")]
for p in range(P):
    if abs(values[p] - numpy_f(p)) > 1e-12:
        sys.exit(f"FAIL: process {p} computed {values[p]}, NumPy "
                 f"{numpy_f(p)}")
print(f"PASS forward: sum and mean across {P} processes match NumPy")

# Views as operands: rows (read in place), a block of columns (copied
# first), one element.
views_exe = os.path.join(scratch, "views")
run([tadc, SOURCE, "--entry", "views", "--emit=exe", "-o", views_exe])
mats = [rng.standard_normal((4, 6)) for _ in range(P)]
folder = os.path.join(scratch, "views_run")
for p in range(P):
    os.makedirs(os.path.join(folder, f"in{p}"), exist_ok=True)
    np.save(os.path.join(folder, f"in{p}", "a.npy"), mats[p])
run(mpirun + ["-np", str(P), views_exe, "--inputs",
              os.path.join(folder, "in%r"), "--output-dir",
              os.path.join(folder, "out%r")])
expected = [sum(m[1:3, :] for m in mats), sum(m[0:2, 2:5] for m in mats) / P,
            sum(m[3, 1] for m in mats)]
for p in range(P):
    for i, e in enumerate(expected):
        got = np.load(os.path.join(folder, f"out{p}", f"result{i}.npy"))
        if got.shape != np.shape(e) or np.max(np.abs(got - e)) > 1e-12:
            sys.exit(f"FAIL: views: result {i} of process {p} is {got}, "
                     f"NumPy {e}")
print(f"PASS views: rows, a block of columns and an element across {P} "
      f"processes match NumPy")

grads = evaluate(grad_exe, xs, ws, "grad")
worst = 0.0
for q in range(P):
    for which, arrays in (("x", xs), ("w", ws)):
        analytic = grads[q]["grad_" + which]
        for i in (range(3) if EVERY_ELEMENT else [q % 3]):
            total = []
            for sign in (1, -1):
                moved = [a.copy() for a in arrays]
                moved[q][i] += sign * STEP
                args = (moved, ws) if which == "x" else (xs, moved)
                total.append(sum(r["result0"] for r in evaluate(
                    value_exe, *args, f"fd_{q}_{which}{i}_{sign}")))
            numeric = (total[0] - total[1]) / (2 * STEP)
            error = abs(numeric - analytic[i]) / max(1.0, abs(numeric))
            worst = max(worst, error)
            if error > 1e-6:
                sys.exit(f"FAIL: d(sum of outputs)/d{which}[{i}] on process "
                         f"{q}: f_grad {analytic[i]}, finite differences "
                         f"{numeric}")
print(f"PASS derivative: {'every gradient element' if EVERY_ELEMENT else 'a gradient element of x and of w'} of {P} "
      f"processes matches central differences of the summed outputs "
      f"(within 1e-6)")
print(f"  largest relative error {worst:.3g}", file=sys.stderr)
