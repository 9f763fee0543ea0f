#!/usr/bin/env python3
"""Compiles the random programs of test/Remat/random_budgets.py at budgets
around each one's feasible minimum and store-all peak with two tadc
binaries, and lists the compiles whose output (`--emit=ad`) or exit status
differ: a change meant to make planning under a budget faster (the loop
choice's probes, the remat pass) must leave every schedule as it was.
scripts/compare-ad.sh does the same at the default policy.

    /usr/bin/python3 scripts/compare-budgets.py OLD_TADC NEW_TADC
        [--seed 11] [--count 5]

The budgets of each program: store-all, the minimum that OLD names, 8 bytes
above and below it, an eighth of the way up and halfway. Prints "N of M
compiles identical", the total time of each binary and the slowest
compiles, and exits non-zero when any differs.
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Remat"))
sys.path.insert(0, os.path.join(ROOT, "test", "AutoDiff"))
import random_budgets  # noqa: E402


def compile_at(tadc, source, budget, out, *extra):
    """(seconds, exit status, stderr) of `tadc` at `budget`."""
    start = time.monotonic()
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", "df", "-o",
                           out, f"--remat-budget={budget}", *extra],
                          capture_output=True, text=True)
    return time.monotonic() - start, proc.returncode, proc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--count", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    same = total = 0
    seconds = {"old": 0.0, "new": 0.0}
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: os.path.join(tmp, f"{k}.mlir") for k in ("old", "new")}
        for n in range(args.count):
            source = os.path.join(tmp, f"p{n}.tad")
            with open(source, "w") as f:
                f.write(random_budgets.Generator(rng).program())
            report = os.path.join(tmp, "report.json")
            _, rc, err = compile_at(args.old, source, "1024GiB", os.devnull,
                                    f"--remat-report={report}")
            if rc:
                print(f"program {n}: store-all fails with OLD: {err[-300:]}")
                continue
            with open(report) as f:
                high = next(fn for fn in json.load(f)["functions"]
                            if fn["function"] == "df")["store_all_peak"]
            _, _, err = compile_at(args.old, source, 1, os.devnull)
            match = re.search(r"the feasible minimum is (\d+) bytes", err)
            if not match:
                print(f"program {n}: OLD names no minimum")
                continue
            low = int(match.group(1))
            budgets = {high, low, (high + low) // 2, low + (high - low) // 8,
                       low + 8, max(1, low - 8)}
            for budget in sorted(budgets, reverse=True):
                result = {}
                for k in ("old", "new"):
                    t, rc, _ = compile_at(getattr(args, k), source, budget,
                                          out[k])
                    seconds[k] += t
                    result[k] = (t, rc)
                total += 1
                identical = result["old"][1] == result["new"][1] and (
                    result["old"][1] != 0 or
                    open(out["old"]).read() == open(out["new"]).read())
                same += identical
                if not identical:
                    print(f"differs: program {n} at {budget} bytes (exit "
                          f"{result['old'][1]}, {result['new'][1]})")
                runs.append((result["new"][0], result["old"][0], n, budget))
    runs.sort(reverse=True)
    for new, old, n, budget in runs[:5]:
        print(f"program {n} at {budget} bytes: new {new:.2f} s, old {old:.2f} s")
    print(f"{same} of {total} compiles identical; old {seconds['old']:.1f} s, "
          f"new {seconds['new']:.1f} s")
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
