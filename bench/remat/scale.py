#!/usr/bin/env python3
"""How tad-remat's time and memory grow with dense graphs (issue 22).

    /usr/bin/python3 bench/remat/scale.py [--sizes 500,1000,2000]
        [--fractions 0.5,0.8,0.95] [--skip 0.05] [--timeout 120]
        [--weights small|loguniform] [--grad-scale G] [--remat PATH]
        [--extra ARGS] [--json OUT.json] [--plot OUT.png]

For each size, a dense layered joint graph (bench/remat/layered_graph.py,
like Checkmate's random_layered) is scheduled at each fraction of its
store-all peak with the default solver. Each run reports tad-remat's own
solver time (`--time`, without reading the file; where no schedule fits,
the time to the error that `--verbose` prints), its wall time and its
peak RSS (the kernel's maxrss of the process), or why it gave no schedule
(none fits: tad-remat's error; or it ran past --timeout). `--weights
loguniform --grad-scale G` draws tensor sizes of kilobytes to megabytes
and gradients G times their values' (issue 52's graphs, like
last_resort.py's), where the default's sizes are small. Prints a
markdown table (docs/remat-solver.md). `--extra` passes more options
to tad-remat (e.g. "--queue-nodes=1000000" for the scan on every graph);
`--json` writes every run, `--plot` draws time and peak RSS against the
number of nodes (matplotlib).
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
from common import machine, write_json  # noqa: E402
from gaps import REMAT  # noqa: E402

GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "layered_graph.py")


def run(remat, path, timeout, *args):
    """(summary or None, wall seconds, peak RSS in MB, failure reason,
    solver seconds: the summary's, or those of tad-remat's error)."""
    with tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([remat, path, "--time", "--verbose", *args],
                                stdout=out, stderr=err)
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
            return None, wall, rss, f"> {timeout:g} s", None
        if proc.returncode != 0:
            text = err.read()
            reason = "no schedule" if "no schedule" in text else \
                text.strip().splitlines()[-1]
            # "tad-remat: 1.234 s in all", printed before the error.
            seconds = None
            for line in text.splitlines():
                words = line.split()
                if line.endswith(" s in all") and len(words) == 5:
                    seconds = float(words[1])
            return None, wall, rss, reason, seconds
        summary = json.loads(out.read())
        return summary, wall, rss, None, summary["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000")
    parser.add_argument("--fractions", default="0.5,0.8,0.95")
    parser.add_argument("--skip", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", choices=["small", "loguniform"],
                        default="small",
                        help="layered_graph.py's --sizes")
    parser.add_argument("--grad-scale", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--remat", default=REMAT,
                        help="the tad-remat to run (default: build/bin's)")
    parser.add_argument("--extra", default="",
                        help="more tad-remat options, space-separated")
    parser.add_argument("--json", help="write every run here")
    parser.add_argument("--plot", help="draw time and RSS against size here")
    args = parser.parse_args()
    extra = args.extra.split()
    runs = []
    sizes = [int(s) for s in args.sizes.split(",")]
    fractions = [float(f) for f in args.fractions.split(",")]

    print(f"tad-remat on dense layered graphs (bench/remat/layered_graph.py, "
          f"skip {args.skip}, seed {args.seed}, {args.weights} sizes, "
          f"gradients x{args.grad_scale:g}); {machine()}\n")
    print("Per budget (a fraction of the store-all peak): solver time in "
          "s, cost relative to store-all, peak RSS of tad-remat in MB.\n")
    print("| nodes | edges | " + " | ".join(
        f"{f:g}: s / cost / MB" for f in fractions) + " |")
    print("| --- | --- |" + " --- |" * len(fractions))
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            # Drawn in a child process: a child's peak RSS starts at its
            # parent's (Linux keeps the high-water mark across exec), so
            # this process must not hold a large graph when it starts
            # tad-remat.
            path = os.path.join(tmp, f"layered{size}.json")
            drawn = subprocess.run(
                [sys.executable, GENERATOR, str(size), "--skip",
                 str(args.skip), "--seed", str(args.seed), "--sizes",
                 args.weights, "--grad-scale", str(args.grad_scale),
                 "-o", path],
                check=True, capture_output=True, text=True)
            # It prints "N nodes, M edges".
            nodes, links = [int(word) for word in drawn.stderr.split()
                            if word.isdigit()][:2]
            store_all = run(args.remat, path, args.timeout)[0]
            cells = []
            for fraction in fractions:
                budget = int(store_all["peak"] * fraction)
                result, wall, rss, failure, seconds = run(
                    args.remat, path, args.timeout, f"--budget={budget}",
                    *extra)
                runs.append({
                    "nodes": nodes, "edges": links,
                    "fraction": fraction, "wall": wall, "rss_mb": rss,
                    "found": result is not None, "failure": failure,
                    "seconds": seconds,
                    "cost": result["cost"] / store_all["cost"]
                    if result else None})
                if result is None and seconds is not None:
                    cells.append(f"{failure} after {seconds:.2f} s "
                                 f"(wall {wall:.1f} s) / {rss:.0f}")
                elif result is None:
                    cells.append(f"{failure} after {wall:.1f} s")
                else:
                    cells.append(f"{result['seconds']:.3f} / "
                                 f"{result['cost'] / store_all['cost']:.3f} "
                                 f"/ {rss:.0f}")
            print(f"| {nodes} | {links} | " +
                  " | ".join(cells) + " |", flush=True)
    if args.json:
        write_json(args.json, "tad-remat on dense layered graphs", runs,
                   skip=args.skip, seed=args.seed, weights=args.weights,
                   grad_scale=args.grad_scale, timeout=args.timeout,
                   extra=args.extra)
    if args.plot:
        plot(runs, fractions, args.plot)


def plot(runs, fractions, out):
    """Solver time (where none fits, to the error; wall time where the
    run timed out) and peak RSS against the number of nodes, one line per
    budget fraction."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for fraction in fractions:
        mine = [r for r in runs if r["fraction"] == fraction]
        nodes = [r["nodes"] for r in mine]
        seconds = [r["seconds"] if r["seconds"] is not None else r["wall"]
                   for r in mine]
        line, = left.plot(nodes, seconds, marker="o",
                          label=f"{fraction:g} of store-all")
        # Hollow markers: no schedule (the time to the error or timeout).
        for r, t in zip(mine, seconds):
            if not r["found"]:
                left.plot([r["nodes"]], [t], marker="o", color="white",
                          markeredgecolor=line.get_color())
        right.plot(nodes, [r["rss_mb"] for r in mine], marker="o",
                   label=f"{fraction:g} of store-all")
    for axis, label in ((left, "seconds (hollow: no schedule)"),
                        (right, "peak RSS, MB")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("nodes")
        axis.set_ylabel(label)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    left.set_title("tad-remat time")
    right.set_title("tad-remat memory")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    main()
