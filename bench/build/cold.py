#!/usr/bin/env python3
"""How long a fresh clone takes to build from nothing, and to pass
`make test` (issue 51: <= 15 minutes on 2 cores with a cold ccache).

    /usr/bin/python3 bench/build/cold.py [--no-tests]
        [--cmake-arg=-DTAD_PRECOMPILED_HEADERS=OFF] [--json OUT.json]

Clones the repository's HEAD into a temporary folder, configures it as the
Makefile does and builds what `make test` builds (`ninja all
tad-test-depends`) with an empty ccache (CCACHE_DIR in the temporary
folder), then runs the tests as `make test` does (scripts/run-tests.sh).
Nothing else should run on the machine meanwhile. Records the build's and
the tests' wall time, the build's steps and its slowest translation units
(build/.ninja_log), and the tests' summary line.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from common import ROOT, write_json  # noqa: E402


def run(args, cwd, env, log):
    """Seconds `args` took; exits with its log's tail when it fails."""
    start = time.monotonic()
    with open(log, "w") as out:
        proc = subprocess.run(args, cwd=cwd, env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    seconds = time.monotonic() - start
    if proc.returncode:
        with open(log) as f:
            tail = f.read()[-3000:]
        sys.exit(f"{' '.join(args)} failed ({proc.returncode}):\n{tail}")
    return seconds


def slowest_units(build, count):
    """The `count` slowest compiles of the build, from .ninja_log."""
    units = []
    with open(os.path.join(build, ".ninja_log")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _, output, _ = line.rstrip("\n").split("\t")
            if output.endswith(".o"):
                source = re.sub(r"CMakeFiles/[^/]+\.dir/", "", output)
                units.append({"unit": source[:-2],
                              "seconds": (int(end) - int(start)) / 1000})
    units.sort(key=lambda u: -u["seconds"])
    return units[:count]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-tests", action="store_true",
                    help="build only")
    ap.add_argument("--cmake-arg", action="append", default=[],
                    help="one more argument to cmake (repeatable)")
    ap.add_argument("--json")
    args = ap.parse_args()
    llvm = "/usr/lib/llvm-22"
    with tempfile.TemporaryDirectory() as tmp:
        clone = os.path.join(tmp, "tad")
        subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              cwd=clone, check=True, capture_output=True,
                              text=True).stdout.strip()
        env = dict(os.environ, CCACHE_DIR=os.path.join(tmp, "ccache"),
                   CCACHE_BASEDIR=clone)
        build = os.path.join(clone, "build")
        seconds = run(["cmake", "-G", "Ninja", "-S", ".", "-B", build,
                       "-DCMAKE_BUILD_TYPE=Release",
                       f"-DMLIR_DIR={llvm}/lib/cmake/mlir",
                       f"-DLLVM_EXTERNAL_LIT={llvm}/bin/lit",
                       *args.cmake_arg],
                      clone, env, os.path.join(tmp, "configure.log"))
        build_log = os.path.join(tmp, "build.log")
        seconds += run(["ninja", "-C", build, "all", "tad-test-depends"],
                       clone, env, build_log)
        with open(build_log) as f:
            steps = re.findall(r"^\[\d+/(\d+)\]", f.read(), re.M)
        row = {"commit": head, "cmake_args": args.cmake_arg,
               "build_seconds": round(seconds, 1),
               "steps": int(steps[-1]) if steps else 0,
               "slowest_units": slowest_units(build, 10)}
        print(f"build from nothing ({head} {' '.join(args.cmake_arg)}): "
              f"{seconds:.0f} s, {row['steps']} steps")
        if not args.no_tests:
            test_log = os.path.join(tmp, "test.log")
            row["test_seconds"] = round(
                run([os.path.join(clone, "scripts", "run-tests.sh"), build],
                    clone, env, test_log), 1)
            with open(test_log) as f:
                summary = [line.strip() for line in f
                           if re.search(r"^\d+ passed|Testing Time", line)]
            row["test_summary"] = summary
            print(f"tests: {row['test_seconds']:.0f} s; "
                  + "; ".join(summary))
            print(f"make test from nothing: "
                  f"{(seconds + row['test_seconds']) / 60:.1f} min")
    if args.json:
        write_json(args.json, "cold-build", [row])
    return 0


if __name__ == "__main__":
    sys.exit(main())
