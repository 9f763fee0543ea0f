#!/usr/bin/env python3
"""Solver time and schedule cost of tad-remat on large random joint graphs,
against store-all, Chen et al.'s sqrt(n) checkpointing and the DTR greedy.

    /usr/bin/python3 bench/remat/solvers.py [--sizes 100,500,1000,2000,4000]

For every size: the store-all schedule (no recomputation: its cost is the
least possible and its peak the most needed), Chen's schedule, the fast
solver at Chen's peak, and the fast and DTR solvers at 0.5, 0.7 and 0.9 of
the store-all peak. Cost is the total compute cost of the schedule; the
time is tad-remat's own `--time` (the solver, without reading the file),
the median of three runs. Then the exact chain dynamic program on gradient
chains of 8 to 48 steps with random sizes, against DTR. Prints markdown
tables; `--json FILE` also writes every run's
tad-remat summary, with the machine and the date (docs/results-remat.md shows
them).
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
from common import machine, write_json  # noqa: E402
from gaps import REMAT, random_graph  # noqa: E402

FRACTIONS = [0.5, 0.7, 0.9]


def run(path, *args):
    """tad-remat's summary and its median solver time over three runs, or
    None when it finds no schedule. The schedule's events are left out:
    the tables read its cost, peak and time, and a run's events are
    megabytes of JSON."""
    results = []
    for _ in range(3):
        out = subprocess.run([REMAT, path, "--time", *args],
                             capture_output=True, text=True)
        if out.returncode != 0:
            return None
        results.append(json.loads(out.stdout))
    results.sort(key=lambda r: r["seconds"])
    results[1].pop("events", None)
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
    parser.add_argument("--json", help="also write the runs to this file")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"tad-remat on random joint graphs (bench/remat/gaps.py's "
          f"generator, seed {args.seed}); {machine()}\n")
    print("Cost relative to store-all (1.000 = no recomputation), and "
          "solver time in ms.\n")
    print("| nodes | Chen: peak / store-all | Chen: cost | fast at Chen's "
          "peak: cost | ms |")
    print("| --- | --- | --- | --- | --- |")
    rows, runs = [], []
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
            runs.append({"graph": "joint", "nodes": size, "fraction": None,
                         "store_all": store_all, "chen": chen,
                         "fast": fast_at_chen})
            row = [size]
            for fraction in FRACTIONS:
                budget = int(fraction * store_all["peak"])
                results = {}
                for solver in ["fast", "dtr"]:
                    results[solver] = run(path, f"--budget={budget}",
                                          f"--solver={solver}")
                    row.append(cell(results[solver], store_all))
                runs.append({"graph": "joint", "nodes": size,
                             "fraction": fraction, "budget": budget,
                             "store_all": store_all, **results})
            rows.append(row)

    print("\n| nodes | " + " | ".join(
        f"{s} at {f}: cost | ms" for f in FRACTIONS for s in ["fast", "dtr"])
        + " |")
    print("| --- |" + " --- | --- |" * (2 * len(FRACTIONS)))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    runs += chains(args.seed)
    if args.json:
        write_json(args.json, "tad-remat's solvers on random graphs", runs,
                   seed=args.seed)


def random_chain(rng, steps):
    """The gradient of a chain of `steps` steps with random costs and
    sizes: f_i reads f_{i-1}; b_i reads f_i and b_{i+1}."""
    nodes = [{"id": f"f{i}", "cost_cpu": rng.randint(1, 9),
              "cost_ram": 8 * rng.randint(1, 8)} for i in range(steps)]
    nodes += [{"id": f"b{i}", "cost_cpu": rng.randint(1, 9),
               "cost_ram": 8 * rng.randint(1, 8)}
              for i in reversed(range(steps))]
    links = [(f"f{i - 1}", f"f{i}") for i in range(1, steps)]
    for i in reversed(range(steps)):
        links.append((f"f{i}", f"b{i}"))
        if i + 1 < steps:
            links.append((f"b{i + 1}", f"b{i}"))
    return {"nodes": nodes,
            "links": [{"source": u, "target": v} for u, v in links]}


def chains(seed):
    """The chain dynamic program (which `--solver=fast` hands gradient
    chains to) at 0.4 and 0.7 of the store-all peak; returns the runs."""
    print("\nGradient chains (random sizes): the fast solver, which hands them "
          "to the exact chain dynamic program, against DTR; cost relative to "
          "store-all, time in ms, and the method that answered (the "
          "heuristics where the program exceeds its work limit).\n")
    print("| steps | fraction | fast: cost | ms | method | dtr: cost |")
    print("| --- | --- | --- | --- | --- | --- |")
    rng = random.Random(seed)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for steps in [8, 16, 24, 32, 48]:
            path = os.path.join(tmp, f"chain{steps}.json")
            with open(path, "w") as f:
                json.dump(random_chain(rng, steps), f)
            store_all = run(path)
            for fraction in [0.4, 0.7]:
                budget = int(fraction * store_all["peak"])
                fast = run(path, f"--budget={budget}", "--solver=fast")
                dtr = run(path, f"--budget={budget}", "--solver=dtr")
                dtr_cost = ("no schedule" if dtr is None else
                            f"{dtr['cost'] / store_all['cost']:.3f}")
                method = fast["method"] if fast else "-"
                print(f"| {steps} | {fraction} | "
                      f"{cell(fast, store_all)} | {method} | {dtr_cost} |")
                runs.append({"graph": "chain", "nodes": 2 * steps,
                             "fraction": fraction, "budget": budget,
                             "store_all": store_all, "fast": fast,
                             "dtr": dtr})
    return runs


if __name__ == "__main__":
    main()
