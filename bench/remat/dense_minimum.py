#!/usr/bin/env python3
"""Is the fast solver's smallest budget on dense layered graphs the true
one? On graphs small enough for the exact search (at most 20 nodes), the
smallest budget of each solver, by bisection over tad-remat's exit status.

    /usr/bin/python3 bench/remat/dense_minimum.py [--sizes 18,20]
        [--skips 0.1,0.2,0.3] [--seeds 1,2,3] [--remat PATH]

The graphs are bench/remat/layered_graph.py's (a layer chain with skip
connections and its reverse-mode graph). Prints a markdown table: the
store-all peak, each solver's smallest budget in bytes and as a fraction
of that peak (docs/remat-solver.md).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gaps import REMAT  # noqa: E402
from layered_graph import layered_graph  # noqa: E402


def fits(remat, path, budget, solver):
    return subprocess.run([remat, path, f"--budget={budget}",
                           f"--solver={solver}"],
                          capture_output=True).returncode == 0


def smallest(remat, path, peak, solver):
    low, high = 1, peak
    while low < high:
        mid = (low + high) // 2
        if fits(remat, path, mid, solver):
            high = mid
        else:
            low = mid + 1
    return high


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="18,20")
    parser.add_argument("--skips", default="0.1,0.2,0.3")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--remat", default=REMAT)
    args = parser.parse_args()
    print("| nodes | skip | seed | store-all peak | exact minimum | "
          "fast minimum |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        for size in [int(s) for s in args.sizes.split(",")]:
            for skip in [float(s) for s in args.skips.split(",")]:
                for seed in [int(s) for s in args.seeds.split(",")]:
                    with open(path, "w") as f:
                        json.dump(layered_graph(size, skip, seed), f)
                    out = subprocess.run([args.remat, path],
                                         capture_output=True, text=True,
                                         check=True)
                    peak = json.loads(out.stdout)["peak"]
                    exact = smallest(args.remat, path, peak, "exact")
                    fast = smallest(args.remat, path, peak, "fast")
                    print(f"| {size} | {skip:g} | {seed} | {peak} | "
                          f"{exact} ({exact / peak:.3f}) | "
                          f"{fast} ({fast / peak:.3f}) |", flush=True)


if __name__ == "__main__":
    main()
