#!/usr/bin/env python3
"""Runs programs with --target=cuda against the stand-in driver, which
protects the buffers of queued kernels from the host until the next wait
(Inputs/fake_libcuda.c): a wait that tad-gpu-host-waits leaves out stops a
program with exit status 70. Only whether each program runs to its end
without a race or a misuse of the driver is checked; the stand-in runs no
kernel, so the results are not.

    host_waits_sweep.py TADC DRIVER_DIR [--ops K/N] [--random COUNT]
                        [--seed S]

--ops runs the K-th of N shards of the op cases of
test/Execution/op_check.py; --random runs COUNT programs of
test/AutoDiff/random_programs.py's generator (loops, branches, checkpoints,
calls) from seed S. Prints one line per program and a summary; exits
non-zero if any failed.
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


def run(name, args, driver):
    env = dict(os.environ, LD_LIBRARY_PATH=driver)
    proc = subprocess.run(args, capture_output=True, text=True, env=env)
    counts = COUNTS.search(proc.stderr)
    if proc.returncode != 0 or not counts or counts.group(3) != "0":
        print(f"FAIL {name}: exit status {proc.returncode}\n"
              f"{proc.stderr[-3000:]}")
        return False
    print(f"ok: {name}: {counts.group(1)} launches, {counts.group(2)} waits")
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tadc")
    parser.add_argument("driver", help="folder of the stand-in libcuda.so.1")
    parser.add_argument("--ops", metavar="K/N")
    parser.add_argument("--random", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
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
                           "--target=cuda"], args.driver))
        rng = random.Random(args.seed)
        for n in range(args.random):
            source = os.path.join(tmp, f"random{n}.tad")
            with open(source, "w") as f:
                f.write(random_programs.Generator(rng).program())
            results.append(run(
                f"random program {n}",
                [args.tadc, "run", source, "--entry", "df", "--target=cuda"],
                args.driver))
    print(f"{sum(results)} of {len(results)} programs ran without a race")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
