#!/usr/bin/env python3
"""Predicted against measured store-all peaks of the derivatives with
loops, reversed by binomial checkpointing with N snapshots.

    /usr/bin/python3 bench/remat/loop_predictions.py [--snapshots 1,2,3,4,8,16]

For every program and N, `tadc run --loop-snapshots=N --remat-budget=1024GiB`
gives the remat report's predicted peak and the allocator's measured peak
(`--stats-json`). Prints a markdown table of the cases where they differ and
a count of those where they are equal .
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import ROOT, TADC  # noqa: E402

AD = os.path.join("test", "AutoDiff", "Inputs")
PROGRAMS = [
    ("examples/deep.tad", "deep_grad"),
    ("examples/moe.tad", "stack_value_and_grad"),
    (f"{AD}/deep48.tad", "d_deep"),
    (f"{AD}/llm-aux.tad", "d_model"),
    (f"{AD}/llm-aux.tad", "d_no_aux"),
    (f"{AD}/router.tad", "d_model"),
    (f"{AD}/control.tad", "d_loop"),
    (f"{AD}/control.tad", "d_nested"),
    (f"{AD}/nesting.tad", "df"),
    ("test/Remat/Inputs/loops.tad", "d_computed_init"),
    ("test/Remat/Inputs/loops.tad", "d_nested"),
    ("test/Remat/Inputs/loops.tad", "d_pair"),
    ("test/Remat/Inputs/loops.tad", "d_branchy"),
]


def peaks(source, entry, snapshots, tmp):
    report = os.path.join(tmp, "report.json")
    stats = os.path.join(tmp, "stats.json")
    subprocess.run([TADC, "run", os.path.join(ROOT, source), "--entry", entry,
                    f"--loop-snapshots={snapshots}", "--remat-budget=1024GiB",
                    f"--remat-report={report}", f"--stats-json={stats}"],
                   check=True, capture_output=True)
    with open(report) as f:
        predicted = next(fn["predicted_peak"]
                         for fn in json.load(f)["functions"]
                         if fn["function"] == entry)
    with open(stats) as f:
        return predicted, json.load(f)["peak_bytes"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", default="1,2,3,4,8,16")
    args = parser.parse_args()
    counts = [int(n) for n in args.snapshots.split(",")]
    equal, rows = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for source, entry in PROGRAMS:
            for n in counts:
                predicted, measured = peaks(source, entry, n, tmp)
                if predicted == measured:
                    equal += 1
                else:
                    rows.append(f"| `{source}` `{entry}` | {n} | {predicted} "
                                f"| {measured} | "
                                f"{100 * (predicted - measured) / measured:+.1f}% |")
    print(f"{equal} of {len(PROGRAMS) * len(counts)} cases predicted exactly "
          f"(N = {args.snapshots}); the others:\n")
    print("| program | N | predicted | measured | difference |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
