#!/usr/bin/env python3
"""Where does the least feasible budget of a graph lie? (issue 52)

Where every node may be recomputed, a schedule may compute each node on
its own, from nothing, and free everything after it: every node is then
computed at least once, and the peak is the largest of the nodes' own
peaks. So the least budget at which any schedule fits is the largest,
over the nodes, of the least memory that computing that node alone
needs: a pebbling number, PSPACE-hard in general. This script brackets
it on dense layered graphs and sets it beside what tad-remat does:

- from below, the largest compute (a node, its transient bytes and its
  inputs): tad-remat's "no schedule fits below N";
- from above, a schedule that exists: compute a node's inputs one after
  another, each again from nothing while the ones before it stay
  resident (those with the most to gain first, as for trees), then the
  node. It recomputes each value once per path to it, so its computes
  grow exponentially with depth: the script counts them, and with
  `--check N` builds each schedule of at most N computes and replays it
  with `tad-remat --replay` at its budget;
- tad-remat's smallest budget: the smallest that the fast solver names
  when it refuses (or, on graphs of at most 20 nodes, the exact minimum
  that the exact search names).

    /usr/bin/python3 bench/remat/least_budget.py [--sizes 20,42,102,502,1002,2002]
        [--skip 0.05] [--seed 1] [--graph FILE ...] [--check N]
        [--remat PATH] [--json OUT.json]

The generated graphs are bench/remat/scale.py's (bench/remat/layered_graph.py,
sizes 16..128 bytes); `--graph` adds node-link files. Prints a markdown
table (docs/remat-solver.md, "The least budget").
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import write_json  # noqa: E402
from gaps import REMAT  # noqa: E402
from layered_graph import layered_graph  # noqa: E402


class Graph:
    """A node-link graph as tad-remat reads it."""

    def __init__(self, data):
        nodes = data["nodes"]
        index = {n["id"]: i for i, n in enumerate(nodes)}
        self.ids = [n["id"] for n in nodes]
        self.bytes = [n["cost_ram"] for n in nodes]
        self.transient = [n.get("transient_ram", 0) for n in nodes]
        self.recomputable = all(n.get("recomputable", True) for n in nodes)
        self.inputs = [[] for _ in nodes]
        for link in data["links"]:
            self.inputs[index[link["target"]]].append(index[link["source"]])
        self.edges = len(data["links"])

    def __len__(self):
        return len(self.ids)

    def footprint(self, v):
        return (self.bytes[v] + self.transient[v] +
                sum(self.bytes[u] for u in set(self.inputs[v])))


def from_nothing(g):
    """Per node: the peak and the computes of computing it alone by the
    recursive strategy above, and the order of its inputs. In topological
    order, so each input's numbers are known when its users need them."""
    peak, computes, order = [], [], []
    for v in range(len(g)):
        # Holding the inputs computed so far while computing the next: the
        # inputs in decreasing order of their peak less their bytes keep
        # the largest (bytes held before + peak) least (an exchange
        # argument, as for Sethi-Ullman numbers).
        mine = sorted(set(g.inputs[v]),
                      key=lambda u: peak[u] - g.bytes[u], reverse=True)
        held, most = 0, 0
        for u in mine:
            most = max(most, held + peak[u])
            held += g.bytes[u]
        peak.append(max(most, held + g.bytes[v] + g.transient[v]))
        computes.append(1 + sum(computes[u] for u in mine))
        order.append(mine)
    return peak, computes, order


def build_schedule(g, order):
    """The schedule: each node computed alone, from nothing, and freed.
    A value that is resident already (held for a user further up) is
    used, not computed again, which only lowers the peak."""
    events = []
    resident = [False] * len(g)

    def compute(v):
        # Iterative, since chains are deep: a frame is (node, next input).
        stack = [[v, 0, []]]
        while stack:
            frame = stack[-1]
            node, i, mine = frame
            if i < len(order[node]):
                frame[1] += 1
                u = order[node][i]
                if not resident[u]:
                    mine.append(u)
                    stack.append([u, 0, []])
                continue
            stack.pop()
            events.append({"compute": g.ids[node]})
            resident[node] = True
            for u in mine:
                events.append({"free": g.ids[u]})
                resident[u] = False

    for v in range(len(g)):
        compute(v)
        events.append({"free": g.ids[v]})
        resident[v] = False
    return events


def run_remat(remat, path, *args):
    return subprocess.run([remat, path, *args], capture_output=True,
                          text=True)


def solver_minimum(remat, path, footprint):
    """The smallest budget that tad-remat names when it refuses the
    largest compute's budget, and whether it is the exact search's."""
    refused = run_remat(remat, path, f"--budget={footprint}")
    if refused.returncode == 0:
        return footprint, True
    exact = re.search(r"the feasible minimum is (\d+)", refused.stderr)
    if exact:
        return int(exact.group(1)), True
    named = re.search(r"smallest budget is (\d+).*no schedule fits below "
                      r"(\d+)", refused.stderr)
    if not named:
        sys.exit(f"least_budget.py: tad-remat named no budget: "
                 f"{refused.stderr.strip()}")
    if int(named.group(2)) != footprint:
        sys.exit(f"least_budget.py: tad-remat's lower bound is "
                 f"{named.group(2)}, the largest compute {footprint}")
    return int(named.group(1)), False


def magnitude(text):
    """A count of computes, in digits up to 6 of them, else as 1.2e34
    (the digits after the second dropped)."""
    n = len(text)
    return text if n <= 6 else f"{text[0]}.{text[1]}e{n - 1}"


def measure(name, path, remat, check, tmp):
    with open(path) as f:
        g = Graph(json.load(f))
    if not g.recomputable:
        sys.exit(f"least_budget.py: {name} has nodes that must not be "
                 "recomputed; computing each node from nothing needs all")
    store_all = json.loads(run_remat(remat, path).stdout)["peak"]
    lower = max(g.footprint(v) for v in range(len(g)))
    peak, computes, order = from_nothing(g)
    upper, total = max(peak), sum(computes)
    minimum, exact = solver_minimum(remat, path, lower)
    row = {"graph": name, "nodes": len(g), "edges": g.edges,
           "store_all": store_all, "largest_compute": lower,
           "from_nothing": upper, "from_nothing_computes": str(total),
           "solver_minimum": minimum, "solver_exact": exact,
           "replayed": None}
    if total <= check:
        schedule = os.path.join(tmp, "from-nothing.json")
        with open(schedule, "w") as f:
            json.dump({"events": build_schedule(g, order)}, f)
        replay = run_remat(remat, path, f"--budget={upper}",
                           f"--replay={schedule}")
        if replay.returncode != 0:
            sys.exit(f"least_budget.py: {name}: the schedule from nothing "
                     f"does not replay within {upper} bytes: "
                     f"{replay.stderr.strip()}")
        row["replayed"] = json.loads(replay.stdout)["peak"]
    # The schedule from nothing fits in `upper`: an exact minimum above it
    # would be wrong, as would a lower bound above any schedule.
    if exact and row["replayed"] is not None and minimum > row["replayed"]:
        sys.exit(f"least_budget.py: {name}: the exact minimum {minimum} is "
                 f"above a replayed schedule's peak {row['replayed']}")
    if lower > min(upper, minimum):
        sys.exit(f"least_budget.py: {name}: the lower bound {lower} is above "
                 "a schedule's budget")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20,42,102,502,1002,2002")
    ap.add_argument("--skip", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--graph", action="append", default=[],
                    help="a node-link graph file to add (repeatable)")
    ap.add_argument("--check", type=int, default=200000,
                    help="build and replay the schedule from nothing where "
                    "it has at most this many computes")
    ap.add_argument("--remat", default=REMAT)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        graphs = []
        for size in (int(s) for s in args.sizes.split(",") if s):
            path = os.path.join(tmp, f"layered{size}.json")
            with open(path, "w") as f:
                json.dump(layered_graph(size, args.skip, args.seed), f)
            graphs.append((f"layered {size}", path))
        graphs += [(os.path.basename(p), p) for p in args.graph]
        for name, path in graphs:
            rows.append(measure(name, path, args.remat, args.check, tmp))
    print("| graph | nodes | edges | store-all peak | largest compute "
          "(none fits below) | each node from nothing: budget / computes "
          "| tad-remat's smallest budget |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        share = lambda b: f"{b} ({b / r['store_all']:.3f})"
        replayed = " (replayed)" if r["replayed"] is not None else ""
        print(f"| {r['graph']} | {r['nodes']} | {r['edges']} | "
              f"{r['store_all']} | {share(r['largest_compute'])} | "
              f"{share(r['from_nothing'])} / "
              f"{magnitude(r['from_nothing_computes'])}{replayed} | "
              f"{share(r['solver_minimum'])}"
              f"{' exact' if r['solver_exact'] else ''} |")
    below = [r["graph"] for r in rows
             if r["from_nothing"] < r["solver_minimum"]]
    print(f"\n{len(rows)} graphs; on {len(below)}, computing each node from "
          "nothing fits below tad-remat's smallest budget"
          + (f": {', '.join(below)}" if below else ""))
    if args.json:
        write_json(args.json, "the least feasible budget", rows,
                   skip=args.skip, seed=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
