#!/usr/bin/env python3
"""The fast solver's lookahead variants one at a time, on large graphs:
which of them fit the smallest budgets, which are the cheapest, and how
long each takes (the measurements behind the lead variants and the
variants left out on large graphs, docs/remat-solver.md).

    /usr/bin/python3 bench/remat/variants.py [--dense 1002,2402]
        [--joint 1000,2000] [--graphs A.json,B.json]
        [--fractions 0.5,0.9,0.95] [--variants 0,1,2,3,4,5,6,7,8,12]

Each variant runs as `tad-remat --solver=lookahead --variant=N`, with the
queue, recompute limit and walk the fast solver gives it on that graph,
and is tightened as the portfolio tightens it. For each graph (dense
layered graphs of bench/remat/layered_graph.py, random joint graphs of
gaps.py, and any node-link files given), prints each variant's cost
relative to store-all and its time at each fraction of the store-all
peak, then each variant's own smallest budget as a fraction of that peak
(bisection to 1/64 of the range from the largest compute to the peak).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import machine  # noqa: E402
from gaps import REMAT, random_graph  # noqa: E402
from layered_graph import layered_graph  # noqa: E402

NAMES = ["rc/(b*d)", "rc/(b*d^2)", "rc/b", "1/d"]


def name(variant):
    return (NAMES[variant % 4] + (", keep" if variant & 4 else "") +
            (", depth" if variant & 8 else ""))


def solve(path, budget, variant):
    """(cost, seconds) of one variant, or None when it finds no schedule."""
    out = subprocess.run([REMAT, path, f"--budget={budget}", "--time",
                          "--solver=lookahead", f"--variant={variant}"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    summary = json.loads(out.stdout)
    return summary["cost"], summary["seconds"]


def smallest(path, low, high, variant):
    """The variant's own smallest budget by bisection, to 1/64 of
    [low, high]."""
    lo, hi = low, high
    while hi - lo > (high - low) // 64:
        mid = lo + (hi - lo) // 2
        if solve(path, mid, variant):
            hi = mid
        else:
            lo = mid + 1
    return hi


def report(label, path, fractions, variants):
    store_all = json.loads(subprocess.run([REMAT, path], capture_output=True,
                                          text=True, check=True).stdout)
    peak, cost = store_all["peak"], store_all["cost"]
    error = subprocess.run([REMAT, path, "--budget=0"], capture_output=True,
                           text=True).stderr
    # "computing one node needs N bytes": the largest compute.
    low = int(error.split("needs ")[1].split(" ")[0])
    print(f"\n{label}: cost relative to store-all / solver s, by budget "
          f"(a fraction of the store-all peak)\n")
    print("| variant | " + " | ".join(f"{f:g}" for f in fractions) +
          " | smallest budget |")
    print("| --- |" + " --- |" * (len(fractions) + 1))
    for variant in variants:
        cells = []
        for fraction in fractions:
            result = solve(path, int(fraction * peak), variant)
            cells.append("-" if result is None else
                         f"{result[0] / cost:.3f} / {result[1]:.3f}")
        least = smallest(path, low, peak, variant) / peak
        print(f"| {variant} ({name(variant)}) | " + " | ".join(cells) +
              f" | {least:.3f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dense", default="1002,2402")
    parser.add_argument("--joint", default="1000,2000")
    parser.add_argument("--graphs", default="")
    parser.add_argument("--fractions", default="0.5,0.9,0.95")
    parser.add_argument("--variants", default="0,1,2,3,4,5,6,7,8,12")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    fractions = [float(f) for f in args.fractions.split(",")]
    variants = [int(v) for v in args.variants.split(",")]
    split = lambda text: [s for s in text.split(",") if s]
    print(f"tad-remat's lookahead variants alone; {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        graphs = []
        for nodes in split(args.dense):
            path = os.path.join(tmp, f"dense{nodes}.json")
            with open(path, "w") as f:
                json.dump(layered_graph(int(nodes), 0.05, args.seed), f)
            graphs.append((f"dense layered graph, {nodes} nodes", path))
        for nodes in split(args.joint):
            path = os.path.join(tmp, f"joint{nodes}.json")
            with open(path, "w") as f:
                json.dump(random_graph(random.Random(args.seed),
                                       int(nodes) // 2), f)
            graphs.append((f"random joint graph, {nodes} nodes", path))
        graphs += [(path, path) for path in split(args.graphs)]
        for label, path in graphs:
            report(label, path, fractions, variants)


if __name__ == "__main__":
    main()
