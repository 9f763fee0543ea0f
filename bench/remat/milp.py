#!/usr/bin/env python3
"""The Checkmate MILP (Jain et al., MLSys 2020) for a remat graph and a byte
budget under tad's memory model, solved with the CBC command-line solver.

    /usr/bin/python3 bench/remat/milp.py GRAPH.json --budget BYTES
        [--seconds 60] [-o SCHEDULE.json]

prints the optimal schedule in tad-remat's output format, which `tad-remat
GRAPH.json --budget BYTES --replay SCHEDULE.json` checks with tad's own
simulator. Other scripts import `solve_milp`, `simulate` and
`frontier_violation`.

The formulation is Checkmate's frontier-advancing one: stage t computes node
t for the first time, after recomputing (in node order, each at most once)
what it needs. R[t][i] = 1 when stage t computes node i, S[t][i] = 1 when
node i is resident at the start of stage t, FREE[t][i][k] = 1 when node i
(an input of k, or k itself) is freed right after stage t computes k, and
U[t][k] is the resident bytes right after that compute. tad's model makes
two additions: a node's transient bytes count while it is computed, and a
node that must not be recomputed is computed in its own stage only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import namedtuple

Graph = namedtuple("Graph", "names cost ram transient recomputable inputs users")


def read_graph(data):
    """The node-link JSON that tad-remat reads, with nodes indexed in file
    (topological) order."""
    names = [str(n["id"]) for n in data["nodes"]]
    index = {name: i for i, name in enumerate(names)}
    inputs = [[] for _ in names]
    users = [[] for _ in names]
    for link in data["links"]:
        u, v = index[str(link["source"])], index[str(link["target"])]
        assert u < v, "nodes must be in topological order"
        inputs[v].append(u)
        users[u].append(v)
    return Graph(names,
                 [n["cost_cpu"] for n in data["nodes"]],
                 [int(n["cost_ram"]) for n in data["nodes"]],
                 [int(n.get("transient_ram", 0)) for n in data["nodes"]],
                 [n.get("recomputable", True) for n in data["nodes"]],
                 inputs, users)


class Expression:
    """A linear expression written as LP-format text: CBC's LP reader wants
    short lines, so the terms are wrapped."""

    def __init__(self):
        self.terms, self.constant = [], 0

    def add(self, coefficient, var):
        if coefficient:
            self.terms.append((coefficient, var))
        return self

    def text(self):
        parts = [f"{'+' if c > 0 else '-'} {abs(c)} {v}" for c, v in self.terms]
        return "\n ".join(" ".join(parts[i:i + 8])
                          for i in range(0, len(parts), 8)) or "0 ZERO"


def checkmate_lp(graph, budget, tight=True):
    """The frontier-advancing Checkmate MILP as CPLEX LP text, and the
    constant part of its objective. R[t][t] is fixed to 1 and everything
    above the diagonal to 0, so those are not variables at all.

    With `tight` (the default), two things help CBC prove optima without
    changing the optimum. FREE's upper bound is stated per hazard (FREE <=
    R[t][k], FREE <= 1 - S[t+1][i], FREE <= 1 - R[t][j]) rather than as
    Checkmate's single kappa-weighted row, which has the same integer
    solutions and a tighter LP relaxation. And schedules that hold or
    compute a value for nothing are cut off: a node is recomputed in a stage
    only if the stage reads it or keeps it for the next, kept into a stage
    only if that stage reads it or keeps it further. Dropping such a
    compute or such a hold from any schedule raises neither memory nor
    cost, so some optimal schedule survives the cuts."""
    n = len(graph.names)
    rows, binaries, continuous = [], [], []

    def R(t, i):
        assert i <= t
        return None if i == t else f"R_{t}_{i}"

    def S(t, i):
        return f"S_{t}_{i}" if 0 < t < n and i < t else None

    def row(name, expr, sense, rhs):
        rows.append(f" {name}: {expr.text()} {sense} {rhs - expr.constant}")

    def plus(expr, coefficient, var):
        """Adds coefficient x var, where var None stands for the constant 1
        of R[t][t]."""
        if var is None:
            expr.constant += coefficient
        else:
            expr.add(coefficient, var)
        return expr

    for t in range(n):
        binaries += [R(t, i) for i in range(t) if graph.recomputable[i]]
        binaries += [S(t, i) for i in range(t) if S(t, i)]
    recomputed = lambda t, i: i == t or graph.recomputable[i]

    objective = Expression()
    for t in range(n):
        for i in range(t + 1):
            if recomputed(t, i):
                plus(objective, graph.cost[i], R(t, i))

    for t in range(n):
        # A compute needs each input computed earlier in the stage or
        # resident at its start; a node is kept into the next stage only if
        # it was there in this one.
        for k in range(t + 1):
            if not recomputed(t, k):
                continue
            for i in graph.inputs[k]:
                e = plus(Expression(), 1, R(t, k))
                if recomputed(t, i):
                    plus(e, -1, R(t, i))
                if S(t, i):
                    e.add(-1, S(t, i))
                row(f"dep_{t}_{k}_{i}", e, "<=", 0)
        for i in range(t):
            if S(t + 1, i):
                e = Expression().add(1, S(t + 1, i))
                if recomputed(t, i):
                    e.add(-1, R(t, i))
                if S(t, i):
                    e.add(-1, S(t, i))
                row(f"keep_{t}_{i}", e, "<=", 0)
            # tad's simulator refuses to compute a resident value; an
            # optimal schedule never does (it would pay for nothing).
            if S(t, i) and recomputed(t, i):
                row(f"once_{t}_{i}",
                    Expression().add(1, S(t, i)).add(1, R(t, i)), "<=", 1)
            if not tight:
                continue
            readers = [j for j in graph.users[i] if j <= t]
            for var, tag in ((R(t, i) if recomputed(t, i) else None, "R"),
                             (S(t, i), "S")):
                if var is None or t in readers:
                    continue
                e = Expression().add(1, var)
                for j in readers:
                    if recomputed(t, j):
                        e.add(-1, R(t, j))
                if S(t + 1, i):
                    e.add(-1, S(t + 1, i))
                row(f"use{tag}_{t}_{i}", e, "<=", 0)

        # FREE[t][i][k] = R[t][k] * (1 - S[t+1][i]) * prod over the later
        # users j of i in this stage of (1 - R[t][j]): linearized through
        # the number of "hazards" h that keep i resident, as Checkmate does:
        # 1 - FREE <= h and kappa (1 - FREE) >= h, kappa the most h can be.
        frees = {}
        for k in range(t + 1):
            if not recomputed(t, k):
                continue
            for i in sorted(set(graph.inputs[k]) | {k}):
                if k < t and t in graph.users[i]:
                    continue  # node t reads i later in the stage
                hazards = plus(Expression(), -1, R(t, k))
                hazards.constant += 1
                kappa = 1
                if S(t + 1, i):
                    hazards.add(1, S(t + 1, i))
                    kappa += 1
                for j in graph.users[i]:
                    if k < j < t and recomputed(t, j):
                        hazards.add(1, R(t, j))
                        kappa += 1
                if not hazards.terms:
                    # No variable can keep i: freed (as a constant) when
                    # nothing else keeps it, else never freed here.
                    if hazards.constant == 0:
                        frees.setdefault(k, []).append((i, None))
                    continue
                free = f"F_{t}_{i}_{k}"
                binaries.append(free)
                frees.setdefault(k, []).append((i, free))
                e = Expression().add(-1, free)
                e.terms += [(-c, v) for c, v in hazards.terms]
                row(f"fl_{t}_{i}_{k}", e, "<=", hazards.constant - 1)
                if tight:
                    if R(t, k):
                        row(f"fr_{t}_{i}_{k}",
                            Expression().add(1, free).add(-1, R(t, k)),
                            "<=", 0)
                    for c, v in hazards.terms:
                        if c > 0:
                            row(f"fh_{t}_{i}_{k}_{v}",
                                Expression().add(1, free).add(1, v), "<=", 1)
                else:
                    e = Expression().add(-kappa, free)
                    e.terms += [(-c, v) for c, v in hazards.terms]
                    row(f"fu_{t}_{i}_{k}", e, ">=",
                        hazards.constant - kappa)
            # frees of the last compute of the stage change nothing in it.
        # Memory: U[t][k] after computing k, before its frees; the
        # transient bytes of k count on top while k is computed.
        for k in range(t + 1):
            u = f"U_{t}_{k}"
            continuous.append(u)
            e = Expression().add(1, u)
            if k == 0:
                for i in range(t):
                    if S(t, i):
                        e.add(-graph.ram[i], S(t, i))
            else:
                e.add(-1, f"U_{t}_{k - 1}")
                for i, free in frees.get(k - 1, []):
                    plus(e, graph.ram[i], free)
            if recomputed(t, k):
                plus(e, -graph.ram[k], R(t, k))
            row(f"mem_{t}_{k}", e, "=", 0)
            e = Expression().add(1, u)
            if graph.transient[k] and recomputed(t, k):
                plus(e, graph.transient[k], R(t, k))
            row(f"budget_{t}_{k}", e, "<=", budget)

    lines = ["Minimize", f" cost: {objective.text()} + 0 ZERO",
             "Subject To", *rows, "Bounds", " ZERO = 0"]
    lines += [f" 0 <= {u} <= {budget}" for u in continuous]
    lines += ["Binaries", *(" " + b for b in binaries), "End"]
    return "\n".join(lines) + "\n", objective.constant


MilpResult = namedtuple("MilpResult", "status cost schedule seconds")


def solve_milp(graph, budget, seconds=60.0, tight=True):
    """Solves the MILP with CBC within `seconds`. status is "optimal",
    "infeasible" (proved: no frontier-advancing schedule fits), "feasible"
    (stopped on time with a schedule, not proved optimal) or "unknown"
    (stopped on time without one). The schedule is checked by `simulate`."""
    cbc = shutil.which("cbc")
    if not cbc:
        sys.exit("milp.py: needs the `cbc` command "
                 "(scripts/install-deps.sh bench installs coinor-cbc)")
    text, constant = checkmate_lp(graph, budget, tight)
    with tempfile.TemporaryDirectory() as tmp:
        lp, sol = os.path.join(tmp, "m.lp"), os.path.join(tmp, "m.sol")
        with open(lp, "w") as f:
            f.write(text)
        # One thread: the machines this runs on are small and shared.
        run = subprocess.run([cbc, lp, "sec", str(seconds), "threads", "1",
                              "solve", "solu", sol],
                             capture_output=True, text=True)
        if not os.path.exists(sol):
            raise RuntimeError("cbc failed:\n" + run.stdout + run.stderr)
        with open(sol) as f:
            header = f.readline()
            values = {}
            for line in f:
                fields = line.split()
                if fields[0] == "**":  # an infeasible row's marker
                    fields = fields[1:]
                values[fields[1]] = float(fields[2])
    wall = next((float(line.split()[-1]) for line in run.stdout.splitlines()
                 if line.startswith("Time (Wallclock seconds)")), None)
    if header.startswith("Optimal"):
        status = "optimal"
    elif "nfeasible" in header:
        status = "infeasible"
    elif "objective value" in header and "no integer" not in header:
        status = "feasible"
    else:
        status = "unknown"
    if status in ("infeasible", "unknown"):
        return MilpResult(status, None, None, wall)
    schedule = schedule_from(graph, values)
    cost, peak = simulate(graph, schedule)
    assert peak <= budget, f"the MILP's schedule peaks at {peak} > {budget}"
    objective = float(header.split("objective value")[1].split()[0])
    objective += constant  # the first computes, R[t][t] = 1
    assert abs(objective - cost) <= 1e-6 * max(1.0, cost), (objective, cost)
    return MilpResult(status, cost, schedule, wall)


def schedule_from(graph, values):
    """The events of the MILP's solution: stage by stage, the computes in
    node order, each input (or the node itself) freed right after the
    stage's last reader unless the next stage keeps it, and at the end of
    the stage whatever the next stage does not keep (a value held through
    the stage without a reader)."""
    n = len(graph.names)
    on = lambda name: values.get(name, 0.0) > 0.5
    events, resident = [], set()
    for t in range(n):
        keep = {i for i in range(t + 1) if t + 1 < n and on(f"S_{t + 1}_{i}")}
        stage = [k for k in range(t) if on(f"R_{t}_{k}")] + [t]
        last_reader = {}
        for k in stage:
            for i in graph.inputs[k]:
                last_reader[i] = k
        for k in stage:
            events.append(("compute", k))
            resident.add(k)
            for i in sorted(set(graph.inputs[k]) | {k}):
                if last_reader.get(i, k) == k and i not in keep \
                        and i in resident:
                    events.append(("free", i))
                    resident.discard(i)
        for i in sorted(resident - keep):
            events.append(("free", i))
            resident.discard(i)
    return events


def simulate(graph, events):
    """tad's memory model (lib/Remat/Graph.cpp's simulate): returns (cost,
    peak) and raises AssertionError on an invalid schedule."""
    resident, computed = set(), set()
    cost, peak, live = 0, 0, 0
    for kind, v in events:
        if kind == "compute":
            assert v not in resident, f"{graph.names[v]} is resident already"
            missing = [i for i in graph.inputs[v] if i not in resident]
            assert not missing, f"{graph.names[v]} misses its inputs {missing}"
            assert graph.recomputable[v] or v not in computed
            resident.add(v)
            computed.add(v)
            live += graph.ram[v]
            cost += graph.cost[v]
            peak = max(peak, live + graph.transient[v])
        else:
            assert v in resident, f"{graph.names[v]} is freed but not resident"
            resident.discard(v)
            live -= graph.ram[v]
    assert len(computed) == len(graph.names), "a node is never computed"
    return cost, peak


def frontier_violation(graph, events):
    """Why `events` is not a frontier-advancing schedule, or None when it is
    one (and the MILP can therefore express it at its cost): first computes
    in node order; the computes of a stage (up to and including its first
    compute) in increasing node order; none of them of a value resident at
    the stage's start."""
    resident, first, stage, at_start, read = set(), 0, [], set(), set()
    for kind, v in events:
        if kind == "free":
            resident.discard(v)
            continue
        if v > first:
            return (f"{graph.names[v]} is computed before "
                    f"{graph.names[first]}, out of node order")
        if stage and v <= stage[-1]:
            return (f"{graph.names[v]} is computed twice, or out of order, "
                    f"in the stage of {graph.names[first]}")
        # A value held from an earlier stage that the stage frees unread
        # is, to the MILP, one it does not keep; one that the stage reads
        # and then recomputes needs both S and R.
        if v in read:
            return (f"{graph.names[v]} is read from an earlier stage and "
                    f"then recomputed in the stage of {graph.names[first]}")
        read |= set(graph.inputs[v]) & (at_start - set(stage))
        stage.append(v)
        resident.add(v)
        if v == first:
            first, stage, at_start, read = first + 1, [], set(resident), set()
    return None


def events_of(graph, schedule):
    """The events of a schedule that tad-remat printed (parsed JSON)."""
    index = {name: i for i, name in enumerate(graph.names)}
    return [(kind, index[name]) for event in schedule["events"]
            for kind, name in event.items()]


def schedule_json(graph, events, cost, peak, budget):
    """tad-remat's output format, so that `tad-remat --replay` reads it."""
    body = ",\n    ".join(f'{{"{kind}": {json.dumps(graph.names[v])}}}'
                          for kind, v in events)
    return (f'{{\n  "solver": "checkmate-milp",\n  "budget": {budget},\n'
            f'  "cost": {cost},\n  "peak": {peak},\n'
            f'  "computes": {sum(k == "compute" for k, _ in events)},\n'
            f'  "events": [\n    {body}\n  ]\n}}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="CBC's time limit")
    parser.add_argument("-o", dest="output", default="-")
    args = parser.parse_args()
    with open(args.graph) as f:
        graph = read_graph(json.load(f))
    result = solve_milp(graph, args.budget, args.seconds)
    if result.schedule is None:
        sys.exit(f"milp.py: {result.status}: no frontier-advancing schedule "
                 f"{'fits' if result.status == 'infeasible' else 'found'} "
                 f"within {args.budget} bytes")
    if result.status != "optimal":
        print(f"milp.py: stopped after {args.seconds} s: the schedule is not "
              "proved optimal", file=sys.stderr)
    _, peak = simulate(graph, result.schedule)
    text = schedule_json(graph, result.schedule, result.cost, peak,
                         args.budget)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
