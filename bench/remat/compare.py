#!/usr/bin/env python3
"""Two tad-remat binaries on the graphs of the MILP comparison (docs/remat-solver.md): the
cases where the fast solver's cost differs, and the solver times of both.

    /usr/bin/python3 bench/remat/compare.py OLD_TAD_REMAT NEW_TAD_REMAT

The graphs are milp_gaps.py's, for every seed and size that the MILP comparison
ran (the same generators, the same random streams), at the budget
fractions of gaps.py. No MILP is solved: where no cost differs, the gap
columns of the MILP tables hold for the new binary as they stand, and only
their time columns are the old binary's. Times are one run each.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gaps import FRACTIONS  # noqa: E402
from milp_gaps import graphs as table_graphs  # noqa: E402

# (seed, sizes, graphs per kind and size), as the MILP comparison runs milp_gaps.py.
CONFIGS = [(0, [30, 50], 3), (1, [30, 50], 3), (2, [30, 50], 3),
           (4, [30, 50], 3), (3, [24], 5), (0, [100], 1), (5, [30, 50], 3),
           (6, [30, 50], 3)]


def graphs():
    """(label, node-link data) of every config, as milp_gaps.py draws them."""
    for seed, sizes, count in CONFIGS:
        for name, _, _, data in table_graphs(random.Random(seed), sizes, count):
            yield f"seed {seed} {name}", data


def solve(binary, path, *args):
    out = subprocess.run([binary, path, "--time", *args],
                         capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binaries = sys.argv[1:]
    times = [[], []]
    cases, differ = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for label, data in graphs():
            path = os.path.join(tmp, "graph.json")
            with open(path, "w") as f:
                json.dump(data, f)
            peak = solve(binaries[0], path)["peak"]
            for fraction in FRACTIONS:
                budget = int(fraction * peak)
                results = [solve(b, path, f"--budget={budget}",
                                 "--solver=fast") for b in binaries]
                cases += 1
                for t, r in zip(times, results):
                    if r:
                        t.append(1000 * r["seconds"])
                costs = [r and r["cost"] for r in results]
                if costs[0] != costs[1]:
                    differ.append((label, fraction, budget, *costs))
    print(f"{cases} cases; the fast solver's cost differs in {len(differ)}:")
    print("\n| graph | budget / store-all peak | budget | old | new |")
    print("| --- | --- | --- | --- | --- |")
    for label, fraction, budget, old, new in differ:
        show = lambda c: "no schedule" if c is None else f"{c:g}"
        print(f"| {label} | {fraction} | {budget} | {show(old)} | "
              f"{show(new)} |")
    print("\n| binary | median ms | 90th percentile ms | max ms |")
    print("| --- | --- | --- | --- |")
    for name, t in zip(("old", "new"), times):
        t.sort()
        at = lambda q: t[min(len(t) - 1, int(q * len(t)))]
        print(f"| {name} | {at(0.5):.1f} | {at(0.9):.1f} | {t[-1]:.1f} |")


if __name__ == "__main__":
    main()
