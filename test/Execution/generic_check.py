#!/usr/bin/env python3
"""One generic model (Inputs/generic.tad, batch size B) at several batch
sizes from one source: `tadc run` with B read off the .npy inputs, an
executable compiled with --dim, a library with two instances
(--instantiate), and the Python package's tad.generic, each against NumPy's
value and gradients (hand-derived backpropagation, float64).

    generic_check.py TADC SCRATCH
"""
import os
import subprocess
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "Inputs", "generic.tad")
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import tad  # noqa: E402

NAMES = ["value", "grad_w1", "grad_b1", "grad_w2", "grad_b2"]


def inputs(batch, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((batch, 4)),
            "y": rng.standard_normal((batch, 3)),
            "w1": rng.standard_normal((4, 6)) * 0.5,
            "b1": rng.standard_normal(6) * 0.1,
            "w2": rng.standard_normal((6, 3)) * 0.5,
            "b2": rng.standard_normal(3) * 0.1}


def reference(x, y, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    d = h @ w2 + b2 - y
    value = np.mean(d * d)
    dd = 2 * d / d.size
    dh = dd @ w2.T * (1 - h * h)
    return {"value": value, "grad_w1": x.T @ dh, "grad_b1": dh.sum(0),
            "grad_w2": h.T @ dd, "grad_b2": dd.sum(0)}


def check(label, got, batch, seed):
    want = reference(**inputs(batch, seed))
    for name in NAMES:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12,
                                   atol=1e-14, err_msg=f"{label}: {name}")
    print(f"PASS {label}: B = {batch}, {len(NAMES)} results match NumPy")


def save(batch, seed):
    folder = os.path.join(scratch, f"in{batch}")
    os.makedirs(folder, exist_ok=True)
    for name, a in inputs(batch, seed).items():
        np.save(os.path.join(folder, name + ".npy"), a)
    return folder


def load(folder):
    return {n: np.load(os.path.join(folder, n + ".npy")) for n in NAMES}


# tadc run: B from the inputs' shapes.
folder = save(3, seed=1)
subprocess.run([tadc, "run", SOURCE, "--entry", "net_grad", "--inputs",
                folder, "--output-dir", os.path.join(scratch, "run3")],
               check=True, stdout=subprocess.DEVNULL)
check("tadc run", load(os.path.join(scratch, "run3")), 3, seed=1)

# An executable compiled at B = 5.
exe = os.path.join(scratch, "net5")
subprocess.run([tadc, SOURCE, "--entry", "net_grad", "--dim", "B=5",
                "--emit=exe", "-o", exe], check=True)
folder = save(5, seed=2)
subprocess.run([exe, "--inputs", folder, "--output-dir",
                os.path.join(scratch, "exe5")], check=True,
               stdout=subprocess.DEVNULL)
check("executable", load(os.path.join(scratch, "exe5")), 5, seed=2)

# A library with two instances, each exported under its sizes.
m = tad.compile(SOURCE, options=["--instantiate=net_grad[B=8]",
                                 "--instantiate=net_grad[B=3]"])
for batch, seed in ((8, 3), (3, 4)):
    out = getattr(m, f"net_grad_B{batch}")(**inputs(batch, seed))
    check(f"library net_grad_B{batch}", out, batch, seed)

# Ten instances in one library: the loop nests that differ only in B share
# a function each, B its argument (tad-outline-loop-nests), so the library
# holds far fewer nests than ten single instances would.
TEN = [f"--instantiate=net_grad[B={b}]" for b in range(2, 12)]
m = tad.compile(SOURCE, options=TEN)
for batch in range(2, 12):
    out = getattr(m, f"net_grad_B{batch}")(**inputs(batch, 10 + batch))
    check(f"library of ten, net_grad_B{batch}", out, batch, 10 + batch)


def nests(options):
    llvm = subprocess.run([tadc, SOURCE, "--emit=llvm", "-o", "-"] + options,
                          check=True, capture_output=True, text=True).stdout
    return sum(line.lstrip().startswith("llvm.func internal @") and
               "_loop" in line.split("(")[0] for line in llvm.splitlines())


one, ten = nests(TEN[:1]), nests(TEN)
assert ten * 2 < one * 10, (one, ten)
print(f"PASS shared nests: {ten} for ten instances, {one} for one")

# A library of 130 instances: past 128 C interfaces, every entry's code is
# generated as at -O0 (lib/Driver/QuickCodegen.cpp), its loop nests shared
# across sizes; each instance still computes its own sizes' values.
TANH = os.path.join(scratch, "tanh.tad")
with open(TANH, "w") as f:
    f.write("fn loss[B](x: f64[B], w: f64[B]) -> f64 "
            "{ return sum(tanh(x * w)); }\n"
            "fn dloss = grad(loss, wrt: [w]);\n")
m = tad.compile(TANH, options=[f"--instantiate=dloss[B={b}]"
                               for b in range(1, 131)])
for batch in (1, 2, 9, 77, 130):
    rng = np.random.default_rng(batch)
    x, w = rng.standard_normal(batch), rng.standard_normal(batch)
    np.testing.assert_allclose(getattr(m, f"dloss_B{batch}")(x=x, w=w)["grad_w"],
                               (1 - np.tanh(x * w) ** 2) * x, rtol=1e-12)
    np.testing.assert_allclose(getattr(m, f"loss_B{batch}")(x=x, w=w)["result0"],
                               np.tanh(x * w).sum(), rtol=1e-12)
print("PASS library of 130 instances: B = 1, 2, 9, 77, 130 match NumPy")

# The package's compile at sizes given by name.
m = tad.compile(SOURCE, entry="net_grad", dims={"B": 4})
check("tad.compile(dims=)", m.net_grad(**inputs(4, 7)), 4, seed=7)

# The package's generic entry: an instance per batch size, at the call.
f = tad.generic(SOURCE, "net_grad")
for batch, seed in ((2, 5), (7, 6)):
    check("tad.generic", f(**inputs(batch, seed)), batch, seed)
