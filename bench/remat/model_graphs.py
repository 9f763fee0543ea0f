#!/usr/bin/env python3
"""tad-remat on the remat graphs of real gradients: the unrolled residual
network and transformer of bench/memory/run.py at depth 48 and 96, as
tadc's remat pass builds them (issue 22).

    /usr/bin/python3 bench/remat/model_graphs.py [--depths 48,96]
        [--fractions 0.5,0.8,0.95] [--timeout 120] [--remat PATH]

Each graph is dumped with `tadc --remat-graph` (at `--remat-budget=1`,
which fails after the graph is written: the dump is what is wanted), then
scheduled at each fraction of its store-all peak as bench/remat/scale.py
does: solver time, cost relative to store-all, peak RSS. Prints a markdown
table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "memory"))
from common import machine  # noqa: E402
from gaps import REMAT  # noqa: E402
from scale import run  # noqa: E402
import run as models  # noqa: E402  bench/memory/run.py

TADC = os.environ.get("TAD_TADC",
                      os.path.join(os.path.dirname(REMAT), "tadc"))


def source(model, depth):
    if model == "resnet":
        models.DEPTH = depth
        return models.resnet_source(True)
    models.BLOCKS = depth
    return models.transformer_source(True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="48,96")
    parser.add_argument("--fractions", default="0.5,0.8,0.95")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--remat", default=REMAT)
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    fractions = [float(f) for f in args.fractions.split(",")]

    print(f"tad-remat on the unrolled gradients of bench/memory/run.py's "
          f"models; {machine()}\n")
    print("| model | depth | nodes | edges | " + " | ".join(
        f"{f:g}: s / cost / MB" for f in fractions) + " |")
    print("| --- | --- | --- | --- |" + " --- |" * len(fractions))
    with tempfile.TemporaryDirectory() as tmp:
        for model in ("resnet", "transformer"):
            for depth in depths:
                program = os.path.join(tmp, f"{model}{depth}.tad")
                graph = os.path.join(tmp, f"{model}{depth}.json")
                with open(program, "w") as f:
                    f.write(source(model, depth))
                subprocess.run([TADC, program, "--entry", "net_grad",
                                "--remat-budget=1", f"--remat-graph={graph}",
                                "--emit=ad", "-o", os.devnull],
                               capture_output=True)
                if not os.path.exists(graph):
                    sys.exit(f"tadc wrote no graph for {model} {depth}")
                with open(graph) as f:
                    data = json.load(f)
                store_all = run(args.remat, graph, args.timeout)[0]
                cells = []
                for fraction in fractions:
                    budget = int(store_all["peak"] * fraction)
                    result, wall, rss, failure, _ = run(
                        args.remat, graph, args.timeout, f"--budget={budget}")
                    cells.append(
                        f"{failure} after {wall:.1f} s" if result is None else
                        f"{result['seconds']:.3f} / "
                        f"{result['cost'] / store_all['cost']:.3f} / {rss:.0f}")
                print(f"| {model} | {depth} | {len(data['nodes'])} | "
                      f"{len(data['links'])} | " + " | ".join(cells) + " |",
                      flush=True)


if __name__ == "__main__":
    main()
