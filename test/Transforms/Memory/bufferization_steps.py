#!/usr/bin/env python3
"""Checks that the remat scheduler's lowering (tad::BufferizationSteps, the
bufferization pipeline as calls, which tad-test-bufferization-steps runs)
gives the IR that the pipeline's passes give (tad-opt --tad-bufferize),
byte for byte, on the derivatives of every .tad program under examples/,
bench/ and test/: at store-all and under --remat-overhead=10%, so that the
rewrites of a schedule are lowered too.

    bufferization_steps.py TADC TAD_OPT ROOT [--every N]

--every N takes every Nth program (in path order). Prints one line per
difference and "N of M lowerings identical"; exits non-zero on any
difference, or when fewer than 8 programs compile (the test would then
check little).
"""
import argparse
import os
import subprocess
import sys
import tempfile

MODES = {"store-all": [], "overhead": ["--remat-overhead=10%"]}


def programs(root):
    for top in ("examples", "bench", "test"):
        for folder, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                if name.endswith(".tad"):
                    yield os.path.join(folder, name)


def lower(tad_opt, module, flag):
    proc = subprocess.run([tad_opt, module, flag], capture_output=True,
                          text=True)
    return proc.returncode, proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tadc")
    parser.add_argument("tad_opt")
    parser.add_argument("root")
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args()
    files = list(programs(args.root))[::args.every]
    same = total = compiled = 0
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "ad.mlir")
        for path in files:
            ok = False
            for mode, flags in MODES.items():
                # Programs that do not compile (the frontend's error tests)
                # have nothing to lower.
                if subprocess.run([args.tadc, path, "--emit=ad", "-o", module,
                                   *flags], capture_output=True).returncode:
                    continue
                ok = True
                total += 1
                passes = lower(args.tad_opt, module, "--tad-bufferize")
                steps = lower(args.tad_opt, module,
                              "--tad-test-bufferization-steps")
                if passes == steps:
                    same += 1
                else:
                    print(f"differs: {os.path.relpath(path, args.root)} "
                          f"({mode}; exit {passes[0]}, {steps[0]})")
            compiled += ok
    print(f"{same} of {total} lowerings identical ({compiled} programs)")
    sys.exit(0 if same == total and compiled >= 8 else 1)


if __name__ == "__main__":
    main()
