#!/usr/bin/env python3
"""The cost gap of tad-remat's fast solver and of the DTR greedy against the
Checkmate MILP optimum (bench/remat/milp.py, solved by CBC) on random
graphs of 30 to 100 nodes, at budgets from 0.5 to 0.95 of the store-all
peak.

    /usr/bin/python3 bench/remat/milp_gaps.py [--sizes 30,50,100]
        [--graphs 3] [--seconds 120] [--seed 0]

For every size, --graphs joint graphs (gaps.py's generator with size / 2
forward nodes) and --graphs gradient chains (solvers.py's, size / 2 steps),
and every budget fraction f, the budget is f x the store-all peak. The gap
is solver cost / MILP optimum - 1. It is negative where the solver beats
the optimum of the frontier-advancing MILP, which cannot express every
schedule. Cases where CBC does not prove optimality within --seconds are
counted apart, as are budgets at which no frontier-advancing schedule fits.
Prints markdown tables (docs/remat-solver.md summarizes them) and the worst cases.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import machine  # noqa: E402
from gaps import FRACTIONS, random_graph  # noqa: E402
from milp import read_graph, solve_milp  # noqa: E402
from solvers import random_chain, run  # noqa: E402

WITHIN = 0.005  # the target: within 0.5% of the optimum


def percent(x):
    return f"{100 * x:.1f}%"


def summary(gaps):
    """cases | within 0.5% | median | 90th percentile | worst."""
    if not gaps:
        return "0 | - | - | - | -"
    gaps = sorted(gaps)
    at = lambda q: gaps[min(len(gaps) - 1, int(q * len(gaps)))]
    within = sum(g <= WITHIN + 1e-12 for g in gaps)
    return (f"{len(gaps)} | {100 * within / len(gaps):.0f}% | "
            f"{percent(at(0.5))} | {percent(at(0.9))} | {percent(gaps[-1])}")


def graphs(rng, sizes, count):
    """(name, kind, size, node-link data) of every graph of the tables:
    for each size, `count` joint graphs and `count` gradient chains, drawn
    in turn from `rng`. compare.py builds the same graphs."""
    for size in sizes:
        for g in range(count):
            for kind, data in (("joint", random_graph(rng, size // 2)),
                               ("chain", random_chain(rng, size // 2))):
                yield f"{kind}{size}-{g}", kind, size, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,50,100")
    parser.add_argument("--graphs", type=int, default=3,
                        help="graphs of each kind and size")
    parser.add_argument("--seconds", type=float, default=120,
                        help="CBC's time limit per case")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", help="write the graphs to this folder")
    parser.add_argument("--cache",
                        help="a file of CBC's results, read and extended: "
                        "re-running with a changed tad-remat then takes "
                        "seconds")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = random.Random(args.seed)

    cache = {}
    if args.cache and os.path.exists(args.cache):
        with open(args.cache) as f:
            for line in f:
                entry = json.loads(line)
                cache[entry["key"]] = entry
    cases = []  # one dict per graph and budget
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        for name, kind, size, data in graphs(rng, sizes, args.graphs):
            path = os.path.join(folder, name + ".json")
            with open(path, "w") as f:
                json.dump(data, f)
            graph = read_graph(data)
            store_all = run(path)
            for fraction in FRACTIONS:
                budget = int(fraction * store_all["peak"])
                case = {"graph": name, "kind": kind, "size": size,
                        "fraction": fraction, "budget": budget}
                for solver in ("fast", "dtr"):
                    result = run(path, f"--budget={budget}",
                                 f"--solver={solver}")
                    case[solver] = result and result["cost"]
                    case[solver + "_s"] = result and result["seconds"]
                key = hashlib.sha256(json.dumps(
                    [data, budget, args.seconds]).encode()).hexdigest()
                if key not in cache:
                    milp = solve_milp(graph, budget, args.seconds)
                    cache[key] = {"key": key, "milp": milp.cost,
                                  "status": milp.status,
                                  "milp_s": milp.seconds}
                    if args.cache:
                        with open(args.cache, "a") as f:
                            print(json.dumps(cache[key]), file=f)
                case.update({k: cache[key][k]
                             for k in ("milp", "status", "milp_s")})
                print(json.dumps(case), file=sys.stderr, flush=True)
                cases.append(case)

    print(f"tad-remat against the Checkmate MILP (CBC, {args.seconds:g} s "
          f"per case): joint graphs and gradient chains, {args.graphs} of "
          f"each per size, seed {args.seed}; {machine()}\n")
    print("Cases where CBC proved the MILP optimum. Gap: solver cost / MILP "
          "optimum - 1.\n")
    print("| solver | graphs | cases | within 0.5% | median gap | "
          "90th percentile | worst |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    optimal = [c for c in cases if c["status"] == "optimal"]
    groups = [(f"{kind} {size}", lambda c, k=kind, s=size:
               c["kind"] == k and c["size"] == s)
              for size in sizes for kind in ("joint", "chain")]
    groups += [("all", lambda c: True)]
    for solver in ("fast", "dtr"):
        for label, member in groups:
            gaps = [c[solver] / c["milp"] - 1 for c in optimal
                    if member(c) and c[solver] is not None]
            print(f"| {solver} | {label} | {summary(gaps)} |")

    print("\n| graphs | fast: median ms | fast: max ms | "
          "CBC: median s | CBC: max s |")
    print("| --- | --- | --- | --- | --- |")
    for label, member in groups:
        mine = [c for c in cases if member(c)]
        fast = sorted(c["fast_s"] for c in mine if c["fast_s"] is not None)
        cbc = sorted(c["milp_s"] for c in mine if c["milp_s"] is not None)
        mid = lambda v, scale, digits: (f"{scale * v[len(v) // 2]:.{digits}f}"
                                        if v else "-")
        top = lambda v, scale, digits: (f"{scale * v[-1]:.{digits}f}"
                                        if v else "-")
        print(f"| {label} | {mid(fast, 1000, 1)} | {top(fast, 1000, 1)} | "
              f"{mid(cbc, 1, 1)} | {top(cbc, 1, 1)} |")

    count = lambda test: sum(1 for c in cases if test(c))
    status = lambda c: c["status"]
    fast_at_most_milp = lambda c: (c["fast"] is not None and
                                   c["fast"] <= c["milp"] + 1e-9)
    print(f"\n{len(cases)} cases; CBC proved the optimum in {len(optimal)}, "
          f"stopped at the time limit with a schedule in "
          f"{count(lambda c: status(c) == 'feasible')} (fast at most that "
          f"schedule's cost in "
          f"{count(lambda c: status(c) == 'feasible' and fast_at_most_milp(c))}"
          f"), without one in {count(lambda c: status(c) == 'unknown')}, "
          f"and proved that no frontier-advancing schedule fits in "
          f"{count(lambda c: status(c) == 'infeasible')} (fast found one in "
          f"{count(lambda c: status(c) == 'infeasible' and c['fast'])}). "
          f"Where the MILP has a schedule, fast found none in "
          f"{count(lambda c: c['milp'] is not None and c['fast'] is None)} "
          f"and dtr none in "
          f"{count(lambda c: c['milp'] is not None and c['dtr'] is None)}; "
          f"fast cost more than dtr in "
          f"{count(lambda c: c['dtr'] is not None and (c['fast'] is None or c['fast'] > c['dtr'] + 1e-9))}.")

    worst = sorted((c for c in optimal if c["fast"] is not None),
                   key=lambda c: c["fast"] / c["milp"], reverse=True)
    print("\nWorst cases of the fast solver:\n")
    print("| graph | budget / store-all peak | budget | fast | dtr | MILP "
          "| fast gap |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for c in worst[:5]:
        dtr = "no schedule" if c["dtr"] is None else f"{c['dtr']:g}"
        print(f"| {c['graph']} | {c['fraction']} | {c['budget']} | "
              f"{c['fast']:g} | {dtr} | {c['milp']:g} | "
              f"{percent(c['fast'] / c['milp'] - 1)} |")

if __name__ == "__main__":
    main()
