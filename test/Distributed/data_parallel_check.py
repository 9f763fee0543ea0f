#!/usr/bin/env python3
"""Data-parallel training against one process (Inputs/mlp.tad).

For float32 and float64: 50 SGD steps of the MLP (the `train` entry) run
once by one process on the whole batch (compiled without --data-parallel
or a budget), then with --data-parallel by 2 and by 4 processes (mpirun),
each on its own rows of the batch, under a remat budget: the feasible
minimum of the gradient at those rows (`tadc mem`), where remat recomputes.
Every process must end with the single process's weights, to 1e-5
(float32) or 1e-12 (float64), and report its rank and the number of
processes in --stats-json.

The budget bounds the gradient's peak (a call of `train` also holds the
weights it carries): the gradient compiled the same way is run by the same
processes on the same rows, and each one's peak, as the runtime's
allocator measured it, is within the budget.

    data_parallel_check.py TADC MPIRUN SCRATCH [ELEMS]

ELEMS (default f32,f64) picks the element types: make test runs f64 and
test/Full/data-parallel.test f32.
"""
import json
import os
import shlex
import subprocess
import sys

import numpy as np

tadc, mpirun, scratch = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3]
ELEMS = (sys.argv[4] if len(sys.argv) > 4 else "f32,f64").split(",")
if not ELEMS or not set(ELEMS) <= {"f32", "f64"}:
    sys.exit(f"FAIL: element types {sys.argv[4]!r}: want f32, f64 or both")
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "Inputs", "mlp.tad")
BATCH = 8
TOLERANCE = {"f32": 1e-5, "f64": 1e-12}


def run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}\n{done.stdout}{done.stderr}")
    return done.stdout


def write_inputs(folder, arrays):
    os.makedirs(folder, exist_ok=True)
    for name, array in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), array)


def problem(dtype):
    rng = np.random.default_rng(7)
    arrays = {"x": rng.standard_normal((BATCH, 16)),
              "y": rng.standard_normal((BATCH, 4)),
              "w1": rng.standard_normal((16, 32)) * 0.3,
              "b1": rng.standard_normal(32) * 0.1,
              "w2": rng.standard_normal((32, 4)) * 0.3,
              "b2": rng.standard_normal(4) * 0.1,
              "lr": np.array(0.05)}
    return {k: v.astype(dtype) for k, v in arrays.items()}


def feasible_minimum(elem, rows):
    """The smallest budget of loss_grad at `rows` rows under
    --data-parallel, from `tadc mem`."""
    text = run([tadc, "mem", SOURCE, "--entry", "loss_grad", "--dim",
                f"E={elem},B={rows}", "--data-parallel"])
    for line in text.splitlines():
        if line.strip().startswith("feasible minimum"):
            return int(line.split()[2])
    sys.exit("FAIL: tadc mem printed no feasible minimum:\n" + text)


def read_results(folder):
    return [np.load(os.path.join(folder, f"result{i}.npy")) for i in range(4)]


for elem, dtype in (("f32", np.float32), ("f64", np.float64)):
    if elem not in ELEMS:
        continue
    arrays = problem(dtype)
    base = os.path.join(scratch, elem)
    os.makedirs(base, exist_ok=True)
    # One process, the whole batch, no collectives.
    exe = os.path.join(base, "train")
    run([tadc, SOURCE, "--entry", "train", "--dim", f"E={elem},B={BATCH}",
         "--emit=exe", "-o", exe])
    write_inputs(os.path.join(base, "all"), arrays)
    run([exe, "--inputs", os.path.join(base, "all"),
         "--output-dir", os.path.join(base, "single")])
    expected = read_results(os.path.join(base, "single"))
    for processes in (2, 4):
        rows = BATCH // processes
        budget = feasible_minimum(elem, rows)
        exe = os.path.join(base, f"train{processes}")
        report = run([tadc, SOURCE, "--entry", "train", "--dim",
                      f"E={elem},B={rows}", "--data-parallel",
                      f"--remat-budget={budget}", "--emit=exe", "-o", exe])
        if "recomputed" not in report:
            sys.exit("FAIL: the budget recomputes nothing:\n" + report)
        folder = os.path.join(base, f"np{processes}")
        for rank in range(processes):
            shard = dict(arrays)
            shard["x"] = arrays["x"][rank * rows:(rank + 1) * rows]
            shard["y"] = arrays["y"][rank * rows:(rank + 1) * rows]
            write_inputs(os.path.join(folder, f"in{rank}"), shard)
        run(mpirun + ["-np", str(processes), exe,
                      "--inputs", os.path.join(folder, "in%r"),
                      "--output-dir", os.path.join(folder, "out%r"),
                      "--stats-json", os.path.join(folder, "stats%r.json")])
        worst = 0.0
        for rank in range(processes):
            stats = json.load(open(os.path.join(folder, f"stats{rank}.json")))
            if stats.get("rank") != rank or stats.get("processes") != processes:
                sys.exit(f"FAIL: {elem} np {processes}: rank {rank}'s stats "
                         f"say rank {stats.get('rank')} of "
                         f"{stats.get('processes')}")
            got = read_results(os.path.join(folder, f"out{rank}"))
            for g, e in zip(got, expected):
                worst = max(worst, float(np.max(np.abs(g - e))))
        # The weights moved: the comparison is not of the initial ones.
        moved = max(float(np.max(np.abs(e - arrays[n])))
                    for e, n in zip(expected, ["w1", "b1", "w2", "b2"]))
        if worst > TOLERANCE[elem] or moved < 1e-3:
            sys.exit(f"FAIL: {elem} np {processes}: weights differ by "
                     f"{worst:.3g} (tolerance {TOLERANCE[elem]}); training "
                     f"moved them by {moved:.3g}")
        print(f"PASS {elem}: {processes} processes x {rows} rows, 50 steps "
              f"within the gradient's minimum budget: weights within "
              f"{TOLERANCE[elem]:g} of one process on {BATCH} rows")
        print(f"  largest difference {worst:.3g}", file=sys.stderr)

        # The same gradient, alone: each process's peak within the budget.
        exe = os.path.join(base, f"loss_grad{processes}")
        run([tadc, SOURCE, "--entry", "loss_grad", "--dim",
             f"E={elem},B={rows}", "--data-parallel",
             f"--remat-budget={budget}", "--emit=exe", "-o", exe])
        run(mpirun + ["-np", str(processes), exe,
                      "--inputs", os.path.join(folder, "in%r"),
                      "--stats-json", os.path.join(folder, "grad%r.json")])
        peaks = [json.load(open(os.path.join(folder, f"grad{rank}.json")))
                 ["peak_bytes"] for rank in range(processes)]
        if max(peaks) > budget:
            sys.exit(f"FAIL: {elem} np {processes}: peaks {peaks} above the "
                     f"budget of {budget} bytes")
        print(f"PASS {elem}: each of {processes} processes' gradient peaked "
              f"within its budget")
        print(f"  budget {budget} bytes, peaks {peaks}", file=sys.stderr)
