#!/usr/bin/env python3
"""Checks the feasible minimum that tadc names against compiles:

  - a bisection of its own, over the budgets from half the named minimum
    (or `--below` bytes under it) to the store-all peak, on whether
    `tadc --remat-budget=B` compiles, finds the same least budget;
  - one byte below it is refused and `points` budgets evenly between it
    and the store-all peak all compile (feasibility is monotone there).

    minimum.py TADC FILE.tad ENTRY [--points N] [--below BYTES]
"""
import argparse
import re
import subprocess
import sys


def compiles(tadc, source, entry, budget):
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", entry,
                           f"--remat-budget={budget}", "-o", "/dev/null"],
                          capture_output=True, text=True)
    return proc.returncode == 0, proc.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tadc")
    ap.add_argument("source")
    ap.add_argument("entry")
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--below", type=int)
    args = ap.parse_args()
    ok, err = compiles(args.tadc, args.source, args.entry, 1)
    match = re.search(r"the feasible minimum is (\d+) bytes", err)
    if ok or not match:
        sys.exit(f"FAIL: no minimum in the error of budget 1:\n{err}")
    named = int(match.group(1))
    # The store-all peak (a compile without a budget plans less: the
    # overhead policy).
    proc = subprocess.run([args.tadc, "run", args.source, "--entry",
                           args.entry, "--remat-budget=store-all"],
                          capture_output=True, text=True)
    top = int(re.search(r"plan: peak (?:at most )?(\d+)", proc.stdout)
              .group(1))
    # low is refused, high compiles
    low = named // 2 if args.below is None else named - args.below
    high = top
    if compiles(args.tadc, args.source, args.entry, low)[0]:
        sys.exit(f"FAIL: {low}, below the named minimum, compiles")
    while high - low > 1:
        mid = (low + high) // 2
        if compiles(args.tadc, args.source, args.entry, mid)[0]:
            high = mid
        else:
            low = mid
    if high != named:
        sys.exit(f"FAIL: the least budget that compiles is {high}, tadc "
                 f"names {named}")
    refused = [b for b in (named + (top - named) * i // args.points
                           for i in range(args.points + 1))
               if not compiles(args.tadc, args.source, args.entry, b)[0]]
    if refused:
        sys.exit(f"FAIL: budgets between the minimum {named} and store-all "
                 f"{top} are refused: {refused}")
    print(f"ok: {args.entry}: the least budget that compiles is the named "
          f"minimum, {named}; {args.points + 1} budgets up to {top} compile")


if __name__ == "__main__":
    main()
