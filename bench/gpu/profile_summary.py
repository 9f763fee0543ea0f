#!/usr/bin/env python3
"""Summarizes lease.sh's Nsight Compute profile: where a call's time goes.

    profile_summary.py PROFILE.txt [--calls 3] [--top 40] [--json FILE]

PROFILE.txt is lease.sh run's profile.txt: for each executable, a line
`== NAME`, then what `ncu --csv --page raw --metrics gpu__time_duration.sum`
printed for its calls (a header row, a row of units, a row per kernel).
Each executable ran --calls calls with the same kernels, so the last
1/calls of its rows are its last call, whose managed memory is warm. For
that call, the summary gives the kernels, the total time, the time of the
cuBLAS kernels and of tad's, and the kernels that take the most time (name,
time, grid and block where ncu printed them), as a table and, with --json,
as a file to commit beside the steps' results: a lent GPU's session is
short, and the next session needs the breakdown, not the raw log.
"""
import argparse
import csv
import json
import sys

UNITS = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0}
TIME = "gpu__time_duration.sum"
# Kernels of NVIDIA's libraries (cuBLAS's GEMMs and their helpers).
LIBRARY_MARKS = ("gemm", "cutlass", "cublas", "splitKreduce", "xmma", "sm90_")


def sections(lines):
    """(name, [csv lines]) for each `== NAME` section."""
    name, rows = None, []
    for line in lines:
        if line.startswith("== "):
            if name is not None:
                yield name, rows
            name, rows = line[3:].strip(), []
        elif name is not None and line.startswith('"'):
            rows.append(line)
    if name is not None:
        yield name, rows


def kernels(rows):
    """Each kernel row as a dict: name, seconds, grid, block."""
    table = list(csv.reader(rows))
    if len(table) < 2 or TIME not in table[0]:
        return []
    header = table[0]
    col = {h: i for i, h in enumerate(header)}
    unit = UNITS.get(table[1][col[TIME]])
    if unit is None:
        sys.exit(f"profile_summary: unknown unit {table[1][col[TIME]]!r}")
    found = []
    for row in table[2:]:
        if len(row) != len(header) or not row[col[TIME]]:
            continue
        value = float(row[col[TIME]].replace(",", ""))
        found.append({
            "name": row[col["Kernel Name"]],
            "seconds": value * unit,
            "grid": row[col["Grid Size"]] if "Grid Size" in col else None,
            "block": row[col["Block Size"]] if "Block Size" in col else None,
        })
    return found


def summarize(name, found, calls, top):
    if not found:
        return {"executable": name, "error": "no kernel rows"}
    if len(found) % calls:
        return {"executable": name,
                "error": f"{len(found)} kernel rows, not {calls} equal calls"}
    last = found[len(found) - len(found) // calls:]
    library = [k for k in last
               if any(m in k["name"] for m in LIBRARY_MARKS)]
    total = sum(k["seconds"] for k in last)
    by_time = sorted(last, key=lambda k: -k["seconds"])[:top]
    return {
        "executable": name,
        "kernels": len(last),
        "seconds": total,
        "library_kernels": len(library),
        "library_seconds": sum(k["seconds"] for k in library),
        "tad_seconds": total - sum(k["seconds"] for k in library),
        "top": by_time,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--json")
    args = parser.parse_args()
    with open(args.profile) as f:
        lines = f.read().splitlines()
    summaries = [summarize(name, kernels(rows), args.calls, args.top)
                 for name, rows in sections(lines)]
    for s in summaries:
        if "error" in s:
            print(f"{s['executable']}: {s['error']}")
            continue
        print(f"{s['executable']}: {s['kernels']} kernels, "
              f"{s['seconds'] * 1e3:.3f} ms; library "
              f"{s['library_seconds'] * 1e3:.3f} ms in "
              f"{s['library_kernels']}, tad {s['tad_seconds'] * 1e3:.3f} ms")
        for k in s["top"]:
            print(f"  {k['seconds'] * 1e6:10.1f} us  {k['name']}"
                  + (f"  grid {k['grid']} block {k['block']}"
                     if k["grid"] else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"profile": summaries}, f, indent=1)
            f.write("\n")
    return 1 if any("error" in s for s in summaries) else 0


if __name__ == "__main__":
    sys.exit(main())
