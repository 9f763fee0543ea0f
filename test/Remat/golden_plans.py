#!/usr/bin/env python3
"""What tadc plans for the examples and the loop programs, against a record.

    golden_plans.py --tadc PATH [--update]

Compiles each case of CASES to the AD stage (`--emit=ad`, which holds the
loop choice, AD's output and the remat pass's rewrite) at its budgets:
store-all (`1TiB`) and two more, and hashes what tadc prints: the IR and
the report, or the error. A change to the compiler that changes any plan
changes a hash, and this script names the case; the change then either
is a bug, or it is meant and the record is written again with --update
(the commit says why the plans changed). The record is
Inputs/golden-plans.json; paths in the output are made relative to the
repository, so the record holds on any checkout.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RECORD = os.path.join(HERE, "Inputs", "golden-plans.json")

# (file relative to the repository, entry, budgets besides store-all)
CASES = [
    ("examples/mlp.tad", "mlp_value_and_grad", ["90%", "80%"]),
    ("examples/deep_mlp.tad", "net_value_and_grad", ["1600000", "60%"]),
    ("examples/transformer.tad", "loss_grad", ["90%", "80%"]),
    ("examples/moe.tad", "stack_value_and_grad", ["1MiB", "80%"]),
    ("examples/deep.tad", "deep_grad", ["90%", "1"]),
    ("test/Remat/Inputs/two-loops.tad", "d_two_loops", ["14KiB", "50%"]),
    ("test/Remat/Inputs/deep-input-grad.tad", "deep_grad", ["300KiB",
                                                            "45KiB"]),
    ("test/Remat/Inputs/loop-body.tad", "net_grad", ["123968", "121000"]),
]


def plan(tadc, path, entry, budget):
    proc = subprocess.run(
        [tadc, os.path.join(ROOT, path), "--emit=ad", "--entry", entry,
         f"--remat-budget={budget}"], capture_output=True, text=True,
        cwd=ROOT)
    text = f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return text.replace(ROOT + os.sep, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tadc", required=True)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    hashes = {}
    for path, entry, budgets in CASES:
        for budget in ["1TiB"] + budgets:
            text = plan(args.tadc, path, entry, budget)
            hashes[f"{path} {entry} {budget}"] = hashlib.sha256(
                text.encode()).hexdigest()[:16]
    if args.update:
        with open(RECORD, "w") as f:
            json.dump(hashes, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {len(hashes)} plans to {RECORD}")
        return 0
    with open(RECORD) as f:
        record = json.load(f)
    changed = [k for k in hashes if record.get(k) != hashes[k]]
    for key in changed:
        print(f"CHANGED {key}")
    missing = [k for k in record if k not in hashes]
    for key in missing:
        print(f"MISSING {key}")
    print(f"{len(hashes) - len(changed)} of {len(hashes)} plans as recorded")
    return 1 if changed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
