#!/usr/bin/env python3
"""Solver time and schedule cost of tad-remat on large random joint graphs,
against store-all, Chen et al.'s sqrt(n) checkpointing and the DTR greedy.

    /usr/bin/python3 bench/remat/solvers.py [--sizes 100,500,1000,2000,4000]

For every size: the store-all schedule (no recomputation: its cost is the
least possible and its peak the most needed), Chen's schedule, the fast
solver at Chen's peak, and the fast and DTR solvers at 0.5, 0.7 and 0.9 of
the store-all peak. Cost is the total compute cost of the schedule; the
time is tad-remat's own `--time` (the solver, without reading the file),
the median of three runs. Prints markdown tables (recorded in
docs/remat.md).
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

FRACTIONS = [0.5, 0.7, 0.9]


def run(path, *args):
    """tad-remat's summary and its median solver time over three runs, or
    None when it finds no schedule."""
    results = []
    for _ in range(3):
        out = subprocess.run([REMAT, path, "--time", *args],
                             capture_output=True, text=True)
        if out.returncode != 0:
            return None
        results.append(json.loads(out.stdout))
    results.sort(key=lambda r: r["seconds"])
    return results[1]


def cell(result, store_all):
    if result is None:
        return "no schedule | -"
    return (f"{result['cost'] / store_all['cost']:.3f} | "
            f"{1000 * result['seconds']:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,1000,2000,4000")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"tad-remat on random joint graphs (bench/remat/gaps.py's "
          f"generator, seed {args.seed}); {machine()}\n")
    print("Cost relative to store-all (1.000 = no recomputation), and "
          "solver time in ms.\n")
    print("| nodes | Chen: peak / store-all | Chen: cost | fast at Chen's "
          "peak: cost | ms |")
    print("| --- | --- | --- | --- | --- |")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = os.path.join(tmp, f"graph{size}.json")
            with open(path, "w") as f:
                json.dump(random_graph(random.Random(args.seed), size // 2), f)
            store_all = run(path)
            chen = run(path, "--solver=chen")
            fast_at_chen = run(path, f"--budget={chen['peak']}",
                               "--solver=fast")
            print(f"| {size} | {chen['peak'] / store_all['peak']:.3f} | "
                  f"{chen['cost'] / store_all['cost']:.3f} | "
                  f"{cell(fast_at_chen, store_all)} |")
            row = [size]
            for fraction in FRACTIONS:
                budget = int(fraction * store_all["peak"])
                for solver in ["fast", "dtr"]:
                    row.append(cell(run(path, f"--budget={budget}",
                                        f"--solver={solver}"), store_all))
            rows.append(row)

    print("\n| nodes | " + " | ".join(
        f"{s} at {f}: cost | ms" for f in FRACTIONS for s in ["fast", "dtr"])
        + " |")
    print("| --- |" + " --- | --- |" * (2 * len(FRACTIONS)))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


if __name__ == "__main__":
    main()
