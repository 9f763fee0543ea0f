#!/usr/bin/env python3
"""How long tadc takes to plan a gradient at a budget, on the random
programs of test/Remat/random_budgets.py (issue 48).

    /usr/bin/python3 bench/remat/budget_compiles.py --tadc build/bin/tadc
        [--count 200] [--seed 0] [--only 2,4] [--json OUT.json]

For each program (the generator's, with loops in checkpoints, custom
rules, branches and value_and_grad), the budgets of random_budgets.py's
sweep: the store-all peak, the feasible minimum that tadc names, and the
budget halfway between. Each compile is `tadc FILE --emit=ad --entry df
--remat-budget=B`, timed by wall clock; naming the minimum (`--remat-budget=1`)
is timed too. Prints the slowest compiles and a summary line with the
slowest of all; `--json` writes every run with the machine.

    /usr/bin/python3 bench/remat/budget_compiles.py --tadc NEW --against OLD
        --count 5 --seed 11 --only 3 --budget 2240 [--repeat 8]

times the chosen programs at one budget with two binaries instead, their
runs interleaved (the machine's speed drifts between minutes), and prints
each binary's times and median.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "Remat"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "AutoDiff"))
sys.path.insert(0, os.path.join(HERE, ".."))
import random_budgets  # noqa: E402
from common import machine  # noqa: E402


def compile_at(tadc, source, budget, report=None):
    """(seconds, stderr, return code) of planning `df` at `budget`."""
    args = [tadc, source, "--emit=ad", "--entry", "df", "-o", os.devnull,
            f"--remat-budget={budget}"]
    if report:
        args.append(f"--remat-report={report}")
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True)
    return time.monotonic() - start, proc.stderr, proc.returncode


def program_runs(tadc, source, tmp):
    """The runs of one program: (kind, budget, seconds, ok)."""
    runs = []
    report = os.path.join(tmp, "report.json")
    seconds, err, rc = compile_at(tadc, source, "1024GiB", report)
    runs.append(("store-all", None, seconds, rc == 0))
    if rc:
        return runs, f"store-all failed: {err[-500:]}"
    with open(report) as f:
        high = next(fn for fn in json.load(f)["functions"]
                    if fn["function"] == "df")["store_all_peak"]
    seconds, err, rc = compile_at(tadc, source, 1)
    match = re.search(r"the feasible minimum is (\d+) bytes", err)
    runs.append(("minimum search", 1, seconds, bool(match)))
    if not match:
        return runs, f"no feasible minimum named: {err[-500:]}"
    low = int(match.group(1))
    for budget in sorted({high, low, (high + low) // 2}, reverse=True):
        seconds, err, rc = compile_at(tadc, source, budget)
        runs.append(("budget", budget, seconds, rc == 0))
        if rc:
            return runs, f"budget {budget} failed: {err[-500:]}"
    return runs, None


def compare_at(tadcs, sources, budget, repeat):
    """Each binary's seconds per program at `budget`, runs interleaved."""
    seconds = {(t, n): [] for t in tadcs for n in sources}
    for _ in range(repeat):
        for n, source in sources.items():
            for t in tadcs:
                took, err, rc = compile_at(t, source, budget)
                if rc:
                    raise SystemExit(f"{t} failed on program {n} at "
                                     f"{budget} bytes: {err[-500:]}")
                seconds[(t, n)].append(took)
    for (t, n), runs in seconds.items():
        runs.sort()
        print(f"program {n} at {budget} bytes, {t}: median "
              f"{runs[len(runs) // 2]:.2f} s; runs "
              f"{' '.join(f'{s:.2f}' for s in runs)}")
    print(machine())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tadc", required=True)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--only", help="comma-separated program numbers to run "
                    "(the others are generated and skipped)")
    ap.add_argument("--json")
    ap.add_argument("--budget", type=int,
                    help="with --against: the one budget to compile at")
    ap.add_argument("--against", help="a second tadc to compare with")
    ap.add_argument("--repeat", type=int, default=8)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    only = {int(n) for n in args.only.split(",")} if args.only else None
    if args.against:
        if args.budget is None:
            ap.error("--against needs --budget")
        with tempfile.TemporaryDirectory() as tmp:
            sources = {}
            for n in range(args.count):
                text = random_budgets.Generator(rng).program()
                if only is None or n in only:
                    sources[n] = os.path.join(tmp, f"p{n}.tad")
                    with open(sources[n], "w") as f:
                        f.write(text)
            compare_at([args.tadc, args.against], sources, args.budget,
                       args.repeat)
        return 0
    rows, failures = [], 0
    for n in range(args.count):
        text = random_budgets.Generator(rng).program()
        if only is not None and n not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, f"p{n}.tad")
            with open(source, "w") as f:
                f.write(text)
            runs, error = program_runs(args.tadc, source, tmp)
        if error:
            failures += 1
            print(f"FAIL program {n}: {error}")
        for kind, budget, seconds, ok in runs:
            rows.append({"program": n, "kind": kind, "budget": budget,
                         "seconds": round(seconds, 3), "ok": ok})
    rows.sort(key=lambda r: -r["seconds"])
    print(f"| program | compile | budget | seconds |\n| --- | --- | --- | --- |")
    for r in rows[:args.slowest]:
        print(f"| {r['program']} | {r['kind']} | {r['budget'] or ''} | "
              f"{r['seconds']:.2f} |")
    budgets = [r for r in rows if r["kind"] == "budget"]
    slowest = budgets[0] if budgets else None
    print(f"{args.count} programs (seed {args.seed}), {len(budgets)} budget "
          f"compiles: slowest {slowest['seconds']:.2f} s (program "
          f"{slowest['program']}, budget {slowest['budget']}); slowest "
          f"minimum search {max((r['seconds'] for r in rows if r['kind'] == 'minimum search'), default=0):.2f} s; "
          f"{failures} failed" if slowest else "no budget compiled")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "date": time.strftime("%Y-%m-%d"),
                       "count": args.count, "seed": args.seed,
                       "runs": rows}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
