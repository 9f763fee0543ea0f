#!/usr/bin/env python3
"""How far the remat model's store-all peak is from the buffer plan's, on
the random programs of test/Remat/random_budgets.py (issue 48, item 4).

    /usr/bin/python3 bench/remat/model_gap.py --tadc build/bin/tadc
        --tad-opt build/bin/tad-opt [--count 200] [--seed 0] [--json OUT]

Each program's derivative `df` is compiled as by default (`tadc FILE
--emit=ad --entry df`) and its budget attribute dropped; `tad-opt
--tad-test-memory-model` then prints the peak of the remat graph's
store-all schedule (the model the solver plans with) and the peak of the
planned buffers (what the lowering allocates). Where the two differ, the
loop choice and the remat pass must lower a copy through bufferization to
learn whether a candidate fits: the plan's time is most of a compile at a
budget (docs/remat.md). Prints how many programs the model matches, over-
and under-estimates, the sum of the gaps, and the largest.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "Remat"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "AutoDiff"))
sys.path.insert(0, os.path.join(HERE, ".."))
import random_budgets  # noqa: E402
from common import write_json  # noqa: E402

PEAKS = re.compile(r"@df: model peak (\d+) bytes, planned peak (\d+) bytes")


def peaks(tadc, tad_opt, source, tmp):
    """(model peak, planned peak) of the derivative of `source`, or an
    error message."""
    derivative = os.path.join(tmp, "df.mlir")
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", "df", "-o",
                           derivative], capture_output=True, text=True)
    if proc.returncode:
        return None, proc.stderr[-500:]
    with open(derivative) as f:
        text = re.sub(r"(, )?tad\.budget = \d+ : i64(, )?",
                      lambda m: ", " if m.group(1) and m.group(2) else "",
                      f.read())
    with open(derivative, "w") as f:
        f.write(text)
    proc = subprocess.run([tad_opt, derivative, "--tad-test-memory-model",
                           "--mlir-print-op-on-diagnostic=false", "-o",
                           os.devnull], capture_output=True, text=True)
    match = PEAKS.search(proc.stderr)
    if proc.returncode or not match:
        return None, proc.stderr[-500:]
    return (int(match.group(1)), int(match.group(2))), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tadc", required=True)
    parser.add_argument("--tad-opt", required=True)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.count):
            # As random_budgets.py and budget_compiles.py draw them.
            source = os.path.join(tmp, f"p{index}.tad")
            with open(source, "w") as f:
                f.write(random_budgets.Generator(rng).program())
            result, error = peaks(args.tadc, args.tad_opt, source, tmp)
            if error:
                sys.exit(f"program {index}: {error}")
            rows.append({"program": index, "model": result[0],
                         "plan": result[1]})
    equal = sum(r["model"] == r["plan"] for r in rows)
    over = sum(r["model"] > r["plan"] for r in rows)
    under = sum(r["model"] < r["plan"] for r in rows)
    gap = sum(abs(r["model"] - r["plan"]) for r in rows)
    print(f"seed {args.seed}, {len(rows)} programs: the model's store-all "
          f"peak equals the plan's in {equal}, is above it in {over}, "
          f"below it in {under}; gaps {gap} bytes in all "
          f"({100.0 * gap / max(1, sum(r['plan'] for r in rows)):.1f}% of "
          f"the planned peaks)")
    worst = sorted(rows, key=lambda r: -abs(r["model"] - r["plan"]))[:5]
    for r in worst:
        print(f"  program {r['program']}: model {r['model']} bytes, plan "
              f"{r['plan']} bytes ({100.0 * (r['model'] - r['plan']) / r['plan']:+.1f}%)")
    if args.json:
        write_json(args.json, "model_gap", rows, seed=args.seed,
                   count=args.count,
                   summary={"equal": equal, "over": over, "under": under,
                            "gap_bytes": gap})


if __name__ == "__main__":
    main()
