#!/usr/bin/env python3
"""Runs programs with --target=cuda against the stand-in driver, which
protects the buffers of queued kernels from the host until the next wait
(Inputs/fake_libcuda.c): a wait that tad-gpu-host-waits leaves out stops a
program with exit status 70. Only whether each program runs to its end
without a race or a misuse of the driver is checked; the stand-in runs no
kernel, so the results are not.

    host_waits_sweep.py TADC DRIVER_DIR [--ops K/N] [--random COUNT]
                        [--seed S] [--graphs]

--ops runs the K-th of N shards of the op cases of
test/Execution/op_check.py; --random runs COUNT programs of
test/AutoDiff/random_programs.py's generator (loops, branches, checkpoints,
calls) from seed S. Prints one line per program and a summary; exits
non-zero if any failed.

--graphs runs each program 4 times in a process, launching its kernels one
by one and then with CUDA graphs (TAD_CUDA_GRAPHS=1), and checks that the
stand-in ran the same work both times (FAKE_CUDA_TRACE's hash: the same
kernels, grids, parameters and GEMM operands, in order) without misuse.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Execution"))
sys.path.insert(0, os.path.join(HERE, "..", "AutoDiff"))

import op_check  # noqa: E402
import random_programs  # noqa: E402

COUNTS = re.compile(r"fake libcuda: \d+ modules, (\d+) launches, "
                    r"(\d+) synchronizations, .* (\d+) errors")


HASH = re.compile(r"fake libcuda: work hash (\w+)")
CAPTURED = re.compile(r"fake libcuda: (\d+) graphs captured, (\d+) launched")


def run_once(args, driver, **env):
    """The stand-in's counts and its stderr, or None and the failure."""
    env = dict(os.environ, LD_LIBRARY_PATH=driver, **env)
    proc = subprocess.run(args, capture_output=True, text=True, env=env)
    counts = COUNTS.search(proc.stderr)
    if proc.returncode != 0 or not counts or counts.group(3) != "0":
        return None, (f"exit status {proc.returncode}\n"
                      f"{proc.stderr[-3000:]}")
    return counts, proc.stderr


def run(name, args, driver, graphs=False):
    if not graphs:
        counts, stderr = run_once(args, driver)
        if not counts:
            print(f"FAIL {name}: {stderr}")
            return False
        print(f"ok: {name}: {counts.group(1)} launches, "
              f"{counts.group(2)} waits")
        return True
    args = args + ["--repeat", "4"]
    counts, one = run_once(args, driver, FAKE_CUDA_TRACE="1")
    if counts:
        counts, both = run_once(args, driver, FAKE_CUDA_TRACE="1",
                                TAD_CUDA_GRAPHS="1")
    if not counts:
        print(f"FAIL {name}: {one if not counts else both}")
        return False
    hashes = [HASH.search(text).group(1) for text in (one, both)]
    if hashes[0] != hashes[1]:
        print(f"FAIL {name}: other work with graphs (hash {hashes[1]}, "
              f"{hashes[0]} one by one)\n{both[-3000:]}")
        return False
    captured = CAPTURED.search(both)
    graphs = (f"{captured.group(1)} graphs captured, {captured.group(2)} "
              f"launched" if captured else "no graph")
    print(f"ok: {name}: the same work with graphs ({graphs})")
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tadc")
    parser.add_argument("driver", help="folder of the stand-in libcuda.so.1")
    parser.add_argument("--ops", metavar="K/N")
    parser.add_argument("--random", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--graphs", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.ops:
            shard, shards = map(int, args.ops.split("/"))
            names = sorted(op_check.CASES)[shard::shards]
            for name in names:
                workdir = os.path.join(tmp, name)
                os.makedirs(workdir)
                source, _ = op_check.write_case(name, workdir)
                results.append(run(
                    name, [args.tadc, "run", source, "--entry",
                           op_check.ENTRY[name], "--inputs", workdir,
                           "--target=cuda"], args.driver, args.graphs))
        rng = random.Random(args.seed)
        for n in range(args.random):
            source = os.path.join(tmp, f"random{n}.tad")
            with open(source, "w") as f:
                f.write(random_programs.Generator(rng).program())
            results.append(run(
                f"random program {n}",
                [args.tadc, "run", source, "--entry", "df", "--target=cuda"],
                args.driver, args.graphs))
    print(f"{sum(results)} of {len(results)} programs ran "
          + ("the same work with graphs" if args.graphs else "without a race"))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
