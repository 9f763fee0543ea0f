#!/usr/bin/env python3
"""The cost gap of tad-remat's fast DAG solver and of the DTR greedy
against its exact mode on random small graphs, at budgets from 0.5 to 0.95
of the store-all peak.

    /usr/bin/python3 bench/remat/gaps.py [--graphs 200] [--forward 8] [--seed 0]

For every graph and budget fraction f the budget is max(f x store-all peak,
exact minimum); the gap is solver cost / exact cost - 1. Prints the
distribution of gaps per solver as a markdown table; `--json FILE` also writes every case's gap, with the machine
and the date (docs/results-remat.md shows them).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import ROOT, machine, write_json  # noqa: E402

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
    parser.add_argument("--keep", help="write the graphs to this folder "
                        "(graph<i>.json, named in the worst cases)")
    parser.add_argument("--json", help="also write the gaps to this file")
    args = parser.parse_args()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    rng = random.Random(args.seed)

    solvers = ["fast", "dtr"]
    gaps = {s: [] for s in solvers}
    failed = {s: 0 for s in solvers}
    failed_at_minimum = {s: 0 for s in solvers}
    worse_than_dtr, clamped, cases = 0, 0, 0
    worst = []  # (gap, graph, fraction, budget, fast cost, exact cost)
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.graphs):
            path = os.path.join(args.keep or tmp,
                                f"graph{index}.json" if args.keep else
                                "graph.json")
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
                at_minimum = budget <= minimum
                if budget < minimum:
                    budget, clamped = minimum, clamped + 1
                exact, error = solve(path, budget, "exact")
                assert exact, error
                cases += 1
                costs = {}
                for solver in solvers:
                    result, _ = solve(path, budget, solver)
                    if result is None:
                        failed[solver] += 1
                        failed_at_minimum[solver] += at_minimum
                        continue
                    assert result["cost"] >= exact["cost"] - 1e-9, (budget,
                                                                    solver)
                    costs[solver] = result["cost"]
                    gap = result["cost"] / exact["cost"] - 1
                    gaps[solver].append((fraction, gap))
                    if solver == "fast":
                        worst.append((gap, index, fraction, budget,
                                      result["cost"], exact["cost"],
                                      at_minimum))
                if "dtr" in costs and ("fast" not in costs or
                                       costs["fast"] > costs["dtr"] + 1e-9):
                    worse_than_dtr += 1

    def summary(values):
        values = sorted(values)
        at = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        zero = sum(1 for g in values if g < 1e-9)
        return (f"{len(values)} | {100 * zero / len(values):.0f}% | "
                f"{100 * at(0.5):.1f}% | {100 * at(0.9):.1f}% | "
                f"{100 * values[-1]:.1f}%")

    print(f"tad-remat against its exact mode: {args.graphs} random graphs of "
          f"{2 * args.forward} nodes, seed {args.seed}; {machine()}\n")
    print("| solver | budget / store-all peak | cases | optimal | median gap "
          "| 90th percentile | worst |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for solver in solvers:
        for fraction in FRACTIONS:
            print(f"| {solver} | {fraction} | " + summary(
                [g for f, g in gaps[solver] if f == fraction]) + " |")
        print(f"| {solver} | all | " +
              summary([g for _, g in gaps[solver]]) + " |")
    print(f"\n{cases} cases; " + "; ".join(
        f"{s} found no schedule in {failed[s]} ({failed_at_minimum[s]} of "
        "them at the exact minimum budget)" for s in solvers) +
        f"; fast cost more than dtr in {worse_than_dtr}; {clamped} budgets "
        "were below the feasible minimum and were raised to it.")
    print("\nWorst cases of the fast solver:\n")
    print("| graph | budget / store-all peak | budget | fast | exact | gap |")
    print("| --- | --- | --- | --- | --- | --- |")
    for gap, index, fraction, budget, fast, exact, at_minimum in sorted(
            worst, reverse=True)[:5]:
        where = " (the exact minimum)" if at_minimum else ""
        print(f"| graph{index} | {fraction} | {budget}{where} | {fast:g} | "
              f"{exact:g} | {100 * gap:.1f}% |")
    if args.json:
        write_json(args.json, "tad-remat's fast and DTR solvers against its "
                   "exact mode", [{"solver": s, "fraction": f, "gap": g}
                                  for s in solvers for f, g in gaps[s]],
                   graphs=args.graphs, forward=args.forward, seed=args.seed,
                   cases=cases, failed=failed,
                   failed_at_minimum=failed_at_minimum,
                   worse_than_dtr=worse_than_dtr, clamped=clamped)


if __name__ == "__main__":
    main()
