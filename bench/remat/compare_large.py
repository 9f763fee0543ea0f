#!/usr/bin/env python3
"""Two tad-remat binaries on large graphs (issue 22): the cases where the
fast solver's answer differs.

    /usr/bin/python3 bench/remat/compare_large.py OLD_TAD_REMAT NEW_TAD_REMAT
        [--fractions 0.3,0.5,...] [--graphs GRAPH.json ...]

compare.py covers the MILP tables' graphs, of at most 100 nodes, which the
solver schedules without its large-graph limits. This script runs the
graphs those limits are for: dense layered graphs of 602, 1,002 and 2,402
nodes (layered_graph.py, skip 0.05, seed 1), random joint graphs of 300,
1,000, 2,000 and 4,000 nodes (gaps.py's random_graph, seeds 1 to 4), and
any node-link graph given with --graphs (such as a transformer's, dumped by
model_graphs.py or `tadc --remat-graph`). At each fraction of the store-all
peak it compares the schedule's cost, or where none fits, the smallest
budget that tad-remat's error names. Prints every difference and a summary.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gaps import random_graph  # noqa: E402
from layered_graph import layered_graph  # noqa: E402


def graphs(extra):
    """(label, path or node-link data) of every graph compared."""
    for size in (602, 1002, 2402):
        yield f"dense {size}", layered_graph(size, 0.05, 1)
    for seed, size in enumerate((300, 1000, 2000, 4000), start=1):
        yield f"random joint {size}", random_graph(random.Random(seed),
                                                   size // 2)
    for path in extra:
        yield os.path.basename(path), path


def answer(binary, path, *args):
    """('cost', schedule cost) or ('minimum', smallest budget named) or
    ('error', message)."""
    out = subprocess.run([binary, path, *args], capture_output=True,
                         text=True)
    if out.returncode == 0:
        return "cost", json.loads(out.stdout)["cost"]
    found = re.search(r"smallest budget is (\d+)", out.stderr)
    if found:
        return "minimum", int(found.group(1))
    return "error", out.stderr.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--fractions", default="0.3,0.5,0.7,0.85,0.9,0.95,0.98")
    parser.add_argument("--graphs", nargs="*", default=[])
    args = parser.parse_args()
    fractions = [float(f) for f in args.fractions.split(",")]
    cases, cheaper, dearer, moves, other = 0, [], [], [], []
    print("| graph | budget / store-all peak | old | new |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, graph in graphs(args.graphs):
            path = graph
            if not isinstance(graph, str):
                path = os.path.join(tmp, "graph.json")
                with open(path, "w") as f:
                    json.dump(graph, f)
            store_all = subprocess.run([args.old, path], capture_output=True,
                                       text=True, check=True)
            peak = json.loads(store_all.stdout)["peak"]
            for fraction in fractions:
                budget = f"--budget={int(fraction * peak)}"
                old = answer(args.old, path, budget)
                new = answer(args.new, path, budget)
                cases += 1
                if old == new:
                    continue
                print(f"| {label} | {fraction} | {old[0]} {old[1]} | "
                      f"{new[0]} {new[1]} |")
                if old[0] == new[0] == "cost":
                    (cheaper if new[1] < old[1] else dearer).append(label)
                elif old[0] == new[0] == "minimum":
                    moves.append(new[1] / old[1] - 1)
                else:
                    other.append(label)
    print(f"\n{cases} cases: {len(cheaper)} cheaper, {len(dearer)} dearer; "
          f"{len(moves)} smallest budgets moved"
          + (f" by {100 * min(moves):+.1f}% to {100 * max(moves):+.1f}%"
             if moves else "")
          + f"; {len(other)} other differences (a schedule against none).")


if __name__ == "__main__":
    main()
