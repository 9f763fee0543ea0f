#!/usr/bin/env python3
"""What the fast solver's last resort wins back (issue 52): dense layered
joint graphs with tensor sizes in kilobytes to megabytes, scheduled at a
fraction of their store-all peak with the default solver and without its
last resort (`--scan-looks=0`).

    /usr/bin/python3 bench/remat/last_resort.py [--nodes 602] [--seeds 20]
        [--grad-scales 0.45,0.5,0.6] [--fractions 0.5] [--remat PATH]
        [--scan-looks N] [--json OUT.json]

The graphs are bench/remat/layered_graph.py's with `--skip 0.055 --sizes
loguniform --grad-scale G` for each seed in 1..SEEDS. Prints, per graph,
the cost of the schedule (or none) and the wall time with and without the
last resort, and where none fits without it, the budget as a share of the
smallest budget that the error names then (the runs before the last
resort fit that one); then how many graphs each fits, whether any cost
differs where both fit, and the shares at which the last resort fitted
(Solve.cpp's kLastResortShare runs it only above a share). `--scan-looks N`
runs the last resort with N looks per edge instead of tad-remat's default
(what a lower limit would give up).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import write_json  # noqa: E402
from gaps import REMAT  # noqa: E402
from layered_graph import layered_graph  # noqa: E402


def schedule(remat, path, budget, *extra):
    """(cost or None, wall seconds, the smallest budget that the error
    names or None) of tad-remat at `budget`."""
    start = time.perf_counter()
    run = subprocess.run([remat, path, f"--budget={budget}", *extra],
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode == 0:
        return json.loads(run.stdout)["cost"], seconds, None
    named = re.search(r"smallest budget is (\d+)", run.stderr)
    return None, seconds, int(named.group(1)) if named else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=602)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--grad-scales", default="0.45,0.5,0.6")
    ap.add_argument("--fractions", default="0.5")
    ap.add_argument("--remat", default=REMAT)
    ap.add_argument("--scan-looks", type=int,
                    help="the last resort's looks per edge (default: "
                    "tad-remat's)")
    ap.add_argument("--json")
    args = ap.parse_args()
    looks = ([] if args.scan_looks is None
             else [f"--scan-looks={args.scan_looks}"])
    rows = []
    fractions = [float(f) for f in args.fractions.split(",")]
    print("| grad scale | seed | fraction | with: cost / s | without: cost / s "
          "| budget / smallest named without |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        for scale in (float(g) for g in args.grad_scales.split(",")):
            for seed in range(1, args.seeds + 1):
                with open(path, "w") as f:
                    json.dump(layered_graph(args.nodes, 0.055, seed,
                                            "loguniform", grad_scale=scale), f)
                peak = json.loads(subprocess.run(
                    [args.remat, path], capture_output=True, text=True,
                    check=True).stdout)["peak"]
                for fraction in fractions:
                    budget = int(peak * fraction)
                    cost, seconds, _ = schedule(args.remat, path, budget,
                                                *looks)
                    cost0, seconds0, named0 = schedule(
                        args.remat, path, budget, "--scan-looks=0")
                    share = round(budget / named0, 3) if named0 else None
                    rows.append({"grad_scale": scale, "seed": seed,
                                 "fraction": fraction, "store_all": peak,
                                 "budget": budget, "cost": cost,
                                 "seconds": round(seconds, 3),
                                 "cost_without": cost0,
                                 "seconds_without": round(seconds0, 3),
                                 "share_of_named": share})
                    print(f"| {scale} | {seed} | {fraction} | "
                          f"{cost or 'none'} / {seconds:.2f} | "
                          f"{cost0 or 'none'} / {seconds0:.2f} | "
                          f"{share or ''} |")
    fits = sum(r["cost"] is not None for r in rows)
    fits0 = sum(r["cost_without"] is not None for r in rows)
    differ = sum(r["cost"] != r["cost_without"] for r in rows
                 if r["cost_without"] is not None)
    failing = sorted(r["seconds"] for r in rows if r["cost"] is None)
    failing0 = sorted(r["seconds_without"] for r in rows
                      if r["cost_without"] is None)
    median = lambda xs: xs[len(xs) // 2] if xs else 0
    print(f"{len(rows)} budgets on graphs of {args.nodes} nodes at "
          f"{args.fractions} of store-all: a schedule on {fits} with the last "
          f"resort, {fits0} without; {differ} costs differ where both fit; "
          f"refusing takes {median(failing):.2f} s (median) with it, "
          f"{median(failing0):.2f} s without")
    won = sorted(r["share_of_named"] for r in rows
                 if r["cost"] is not None and r["cost_without"] is None)
    refused = [r["share_of_named"] for r in rows
               if r["cost"] is None and r["share_of_named"] is not None]
    if won:
        print(f"the last resort fitted {len(won)} budgets, at {won[0]} to "
              f"{won[-1]} of the smallest budget named without it; "
              f"{sum(s < won[0] for s in refused)} refused budgets lie "
              f"below {won[0]}")
    if args.json:
        write_json(args.json, "the fast solver's last resort", rows,
                   nodes=args.nodes, fractions=fractions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
