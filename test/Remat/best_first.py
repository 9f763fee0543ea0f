#!/usr/bin/env python3
"""Best-first eviction against the scan it stands in for.

    best_first.py TAD_REMAT [--seeds N]

The last resort's runs score resident values in the order of their lower
bounds and stop at the first bound above the best score
(LookaheadOptions::bestFirst) instead of scoring every value in turn. With
an unbounded walk for a recompute cost, which scores do not depend on the
order of the walks while they stay within the walk's depth cap, both must
choose the same victim at every eviction: this runs each rc/b variant
(2, 6, 10, 14: with and without keeping ancestors, breadth and depth first)
on dense layered joint graphs scanning (--queue-nodes above their size,
so that the walk is unbounded), with and without --best-first, at three
budgets each, and checks that the outputs are identical. So that the
check cannot pass on runs that evict nothing, it also requires that most
runs fit and recompute.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "remat"))
from layered_graph import layered_graph  # noqa: E402

VARIANTS = (2, 6, 10, 14)
FRACTIONS = (0.5, 0.65, 0.8)


def run(remat, *args):
    done = subprocess.run([remat, *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("remat")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=202)
    args = ap.parse_args()
    runs = recomputed = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        for seed in range(1, args.seeds + 1):
            with open(path, "w") as f:
                json.dump(layered_graph(args.nodes, 0.055, seed, "loguniform",
                                        grad_scale=0.5), f)
            rc, out, err = run(args.remat, path)
            if rc:
                sys.exit(f"store-all failed on seed {seed}: {err}")
            store_all = json.loads(out)
            for fraction in FRACTIONS:
                budget = int(store_all["peak"] * fraction)
                for variant in VARIANTS:
                    common = [path, "--solver=lookahead",
                              f"--variant={variant}", f"--budget={budget}",
                              "--queue-nodes=1000000"]
                    scan = run(args.remat, *common)
                    best = run(args.remat, *common, "--best-first")
                    runs += 1
                    if scan != best:
                        failures.append(f"seed {seed}, budget {budget}, "
                                        f"variant {variant}")
                    elif scan[0] == 0 and \
                            json.loads(scan[1])["cost"] > store_all["cost"]:
                        recomputed += 1
    for failure in failures:
        print(f"differs: {failure}")
    print(f"{runs} runs, {len(failures)} differ, {recomputed} fit and "
          "recompute")
    if failures or recomputed < runs // 2:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
