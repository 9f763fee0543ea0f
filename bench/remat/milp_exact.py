#!/usr/bin/env python3
"""Cross-checks bench/remat/milp.py's Checkmate MILP against tad-remat's
exact search and simulator on small random graphs.

    /usr/bin/python3 bench/remat/milp_exact.py [--graphs 20] [--seed 0]

The graphs are gaps.py's joint graphs of 16 nodes and solvers.py's gradient
chains of 8 steps; the budgets 0.5 to 0.95 of the store-all peak, raised to
the exact minimum. For every case it checks that

  - tad-remat --replay (tad's C++ simulator) accepts the MILP's schedule
    within the budget, at the cost and peak that milp.py's simulator gives;
  - milp.py's simulator gives the cost and peak tad-remat printed for the
    exact schedule;
  - the MILP optimum is never below the exact optimum (the MILP only
    describes schedules), and is above it only where the exact schedule is
    not frontier-advancing (which the MILP cannot express): it then prints
    why;
  - with --plain, Checkmate's own kappa-weighted FREE rows without milp.py's
    cuts give the same optimum (slower).

Prints the counts, and exits non-zero on any disagreement.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gaps import FRACTIONS, REMAT, random_graph  # noqa: E402
from milp import (events_of, frontier_violation, read_graph,  # noqa: E402
                  schedule_json, simulate, solve_milp)
from solvers import random_chain  # noqa: E402


def remat(*args):
    run = subprocess.run([REMAT, *args], capture_output=True, text=True)
    return (json.loads(run.stdout), None) if run.returncode == 0 else (
        None, run.stderr.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=20,
                        help="graphs of each kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plain", action="store_true",
                        help="also solve Checkmate's formulation without cuts")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    graphs = [("joint", random_graph(rng, 8)) for _ in range(args.graphs)]
    graphs += [("chain", random_chain(rng, 8)) for _ in range(args.graphs)]

    counts = {"cases": 0, "equal": 0, "milp above exact": 0,
              "milp infeasible": 0}
    reasons, errors = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        sched = os.path.join(tmp, "milp.json")
        for kind, data in graphs:
            with open(path, "w") as f:
                json.dump(data, f)
            graph = read_graph(data)
            store_all, _ = remat(path)
            _, error = remat(path, "--budget=0", "--solver=exact")
            minimum = int(error.split("feasible minimum is ")[1].split()[0])
            for fraction in FRACTIONS:
                budget = max(minimum, int(fraction * store_all["peak"]))
                counts["cases"] += 1
                exact, _ = remat(path, f"--budget={budget}", "--solver=exact")
                exact_events = events_of(graph, exact)
                if simulate(graph, exact_events) != (exact["cost"],
                                                     exact["peak"]):
                    print(f"{kind} {budget}: the simulators disagree on the "
                          "exact schedule")
                    errors += 1
                milp = solve_milp(graph, budget, seconds=600)
                if args.plain:
                    plain = solve_milp(graph, budget, seconds=600, tight=False)
                    if plain.cost != milp.cost:
                        print(f"{kind} {budget}: Checkmate's plain rows give "
                              f"{plain.cost}, with cuts {milp.cost}")
                        errors += 1
                if milp.status == "infeasible":
                    counts["milp infeasible"] += 1
                    why = frontier_violation(graph, exact_events)
                    reasons.append(why)
                    print(f"{kind} at {budget} bytes: no frontier-advancing "
                          f"schedule fits; exact {exact['cost']}: {why}")
                    errors += why is None
                    continue
                assert milp.status == "optimal", milp.status
                _, peak = simulate(graph, milp.schedule)
                with open(sched, "w") as f:
                    f.write(schedule_json(graph, milp.schedule, milp.cost,
                                          peak, budget))
                replay, error = remat(path, f"--budget={budget}",
                                      f"--replay={sched}")
                if not replay or (replay["cost"], replay["peak"]) != (
                        milp.cost, peak):
                    print(f"{kind} {budget}: tad-remat --replay: {error}")
                    errors += 1
                if milp.cost < exact["cost"] - 1e-9:
                    print(f"{kind} {budget}: the MILP ({milp.cost}) beats "
                          f"the exact search ({exact['cost']})")
                    errors += 1
                elif milp.cost > exact["cost"] + 1e-9:
                    counts["milp above exact"] += 1
                    why = frontier_violation(graph, exact_events)
                    reasons.append(why)
                    print(f"{kind} at {budget} bytes: MILP {milp.cost}, "
                          f"exact {exact['cost']}: {why}")
                    errors += why is None
                else:
                    counts["equal"] += 1
    print("; ".join(f"{k}: {v}" for k, v in counts.items()) +
          f"; disagreements: {errors}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
