#!/usr/bin/env python3
"""Prints a remat JSON report (tadc --remat-report=FILE) as lines that a
FileCheck test reads: the function's budget, peaks and overhead, then one
line per value the backward sweep reads, with where it was written (the
innermost location, as FILE:LINE of its base name) and the head of the
reason.

    report_values.py REPORT.json [--decision store|recompute]
"""
import argparse
import json
import os
import re


def innermost(location):
    """`nn.tad:37` of `/path/stdlib/nn.tad:37:28 called at ...`."""
    first = location.split(" called at ")[0]
    match = re.match(r"(.*):(\d+):\d+$", first)
    if not match:
        return first
    return f"{os.path.basename(match.group(1))}:{match.group(2)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--decision")
    args = ap.parse_args()
    with open(args.report) as f:
        functions = json.load(f)["functions"]
    for fn in functions:
        bound = fn.get("overhead_bound")
        print(f"{fn['function']}: budget {fn['budget']}, predicted peak "
              f"{fn['predicted_peak']} of store-all {fn['store_all_peak']}, "
              f"overhead {100 * fn['recompute_overhead']:.1f}%, bound "
              + (f"{100 * bound:g}%" if bound is not None else "none"))
        for v in fn["values"]:
            if args.decision and v["decision"] != args.decision:
                continue
            reason = v["reason"].split(",")[0]
            print(f"  {v['decision']} {v['bytes']} {v['op']} at "
                  f"{innermost(v['location'])}: {reason}")


if __name__ == "__main__":
    main()
