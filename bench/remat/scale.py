#!/usr/bin/env python3
"""How tad-remat's time and memory grow with dense graphs (issue 22).

    /usr/bin/python3 bench/remat/scale.py [--sizes 500,1000,2000]
        [--fractions 0.5,0.8,0.95] [--skip 0.05] [--timeout 120]
        [--remat PATH]

For each size, a dense layered joint graph (bench/remat/layered_graph.py,
like Checkmate's random_layered) is scheduled at each fraction of its
store-all peak with the default solver. Each run reports tad-remat's own
solver time (`--time`, without reading the file), its wall time and its
peak RSS (the kernel's maxrss of the process), or why it gave no schedule
(none fits: tad-remat's error; or it ran past --timeout). Prints a
markdown table (recorded in docs/remat.md).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import machine  # noqa: E402
from gaps import REMAT  # noqa: E402
from layered_graph import layered_graph  # noqa: E402


def run(remat, path, timeout, *args):
    """(summary or None, wall seconds, peak RSS in MB, failure reason)."""
    with tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([remat, path, "--time", *args], stdout=out,
                                stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        # wait4, not Popen.wait: the child's own resource usage.
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        rss = usage.ru_maxrss / 1024
        out.seek(0)
        err.seek(0)
        if proc.returncode < 0:
            return None, wall, rss, f"> {timeout:g} s"
        if proc.returncode != 0:
            text = err.read()
            reason = "no schedule" if "no schedule" in text else \
                text.strip().splitlines()[-1]
            return None, wall, rss, reason
        return json.loads(out.read()), wall, rss, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000")
    parser.add_argument("--fractions", default="0.5,0.8,0.95")
    parser.add_argument("--skip", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--remat", default=REMAT,
                        help="the tad-remat to run (default: build/bin's)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    fractions = [float(f) for f in args.fractions.split(",")]

    print(f"tad-remat on dense layered graphs (bench/remat/layered_graph.py, "
          f"skip {args.skip}, seed {args.seed}); {machine()}\n")
    print("Per budget (a fraction of the store-all peak): solver time in "
          "s, cost relative to store-all, peak RSS of tad-remat in MB.\n")
    print("| nodes | edges | " + " | ".join(
        f"{f:g}: s / cost / MB" for f in fractions) + " |")
    print("| --- | --- |" + " --- |" * len(fractions))
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            graph = layered_graph(size, args.skip, args.seed)
            path = os.path.join(tmp, f"layered{size}.json")
            with open(path, "w") as f:
                json.dump(graph, f, separators=(",", ":"))
            store_all, _, _, _ = run(args.remat, path, args.timeout)
            cells = []
            for fraction in fractions:
                budget = int(store_all["peak"] * fraction)
                result, wall, rss, failure = run(args.remat, path,
                                                 args.timeout,
                                                 f"--budget={budget}")
                if result is None:
                    cells.append(f"{failure} after {wall:.1f} s")
                else:
                    cells.append(f"{result['seconds']:.3f} / "
                                 f"{result['cost'] / store_all['cost']:.3f} "
                                 f"/ {rss:.0f}")
            print(f"| {len(graph['nodes'])} | {len(graph['links'])} | " +
                  " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
