#!/usr/bin/env python3
"""The cost gap of tad-remat's greedy DAG solver against its exact mode on
random small graphs, at budgets from 0.5 to 0.95 of the store-all peak.

    /usr/bin/python3 bench/remat/gaps.py [--graphs 200] [--forward 8] [--seed 0]

For every graph and budget fraction f the budget is max(f x store-all peak,
exact minimum); the gap is dtr cost / exact cost - 1. Prints the
distribution of gaps as a markdown table (recorded in docs/remat.md).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import ROOT, machine  # noqa: E402

REMAT = os.environ.get("TAD_REMAT",
                       os.path.join(ROOT, "build", "bin", "tad-remat"))
FRACTIONS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]


def random_graph(rng, forward):
    """The joint graph of the gradient of a random forward DAG, as reverse
    mode builds it: forward nodes f0..f(k-1), each with one or two earlier
    inputs (mostly the previous node), then one adjoint node per forward node
    in reverse order, which reads the adjoints of the node's users and the
    node's own inputs (its residuals). 2k nodes in all."""
    cost = lambda: rng.randint(1, 10)
    ram = lambda: rng.randint(1, 8) * 16
    nodes = [{"id": f"f{i}", "cost_cpu": cost(), "cost_ram": ram()}
             for i in range(forward)]
    inputs = {0: set()}
    for v in range(1, forward):
        inputs[v] = {v - 1}
        if v > 1 and rng.random() < 0.4:
            inputs[v].add(rng.randrange(v - 1))
    links = [(f"f{u}", f"f{v}") for v in inputs for u in sorted(inputs[v])]
    for v in reversed(range(forward)):
        nodes.append({"id": f"g{v}", "cost_cpu": cost(), "cost_ram": ram()})
        users = [w for w in inputs if v in inputs[w]]
        for w in users:
            links.append((f"g{w}", f"g{v}"))
        for u in sorted(inputs[v]) if users else [v]:
            links.append((f"f{u}", f"g{v}"))
        if users and not inputs[v]:
            links.append((f"f{v}", f"g{v}"))
    return {"nodes": nodes,
            "links": [{"source": u, "target": v} for u, v in links]}


def solve(path, budget, solver):
    run = subprocess.run([REMAT, path, f"--budget={budget}",
                          f"--solver={solver}"], capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip()
    return json.loads(run.stdout), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=200)
    parser.add_argument("--forward", type=int, default=8,
                        help="forward nodes per graph (twice as many in all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    gaps, dtr_failed, clamped = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        for _ in range(args.graphs):
            with open(path, "w") as f:
                json.dump(random_graph(rng, args.forward), f)
            store_all = json.loads(subprocess.run(
                [REMAT, path], capture_output=True, text=True,
                check=True).stdout)
            # The exact minimum, from the error message below the smallest
            # compute footprint (budget 0 always fails and names it).
            _, error = solve(path, 0, "exact")
            minimum = int(error.split("feasible minimum is ")[1].split()[0])
            for fraction in FRACTIONS:
                budget = int(fraction * store_all["peak"])
                if budget < minimum:
                    budget, clamped = minimum, clamped + 1
                exact, error = solve(path, budget, "exact")
                assert exact, error
                dtr, _ = solve(path, budget, "dtr")
                if dtr is None:
                    dtr_failed += 1
                    continue
                assert dtr["cost"] >= exact["cost"] - 1e-9, (budget, path)
                gaps.append((fraction, dtr["cost"] / exact["cost"] - 1))

    def summary(values):
        values = sorted(values)
        at = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        zero = sum(1 for g in values if g < 1e-9)
        return (f"{len(values)} | {100 * zero / len(values):.0f}% | "
                f"{100 * at(0.5):.1f}% | {100 * at(0.9):.1f}% | "
                f"{100 * values[-1]:.1f}%")

    print(f"tad-remat dtr against exact: {args.graphs} random graphs of "
          f"{2 * args.forward} nodes, seed {args.seed}; {machine()}\n")
    print("| budget / store-all peak | cases | dtr optimal | median gap | "
          "90th percentile | worst |")
    print("| --- | --- | --- | --- | --- | --- |")
    for fraction in FRACTIONS:
        print(f"| {fraction} | " +
              summary([g for f, g in gaps if f == fraction]) + " |")
    print(f"| all | {summary([g for _, g in gaps])} |")
    print(f"\ndtr found no schedule in {dtr_failed} of "
          f"{dtr_failed + len(gaps)} cases where the exact solver did; "
          f"{clamped} budgets were below the feasible minimum and were "
          "raised to it.")


if __name__ == "__main__":
    main()
