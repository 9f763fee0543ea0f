#!/usr/bin/env python3
"""Builds a folder of GPU executables and their expected results, to copy
to a GPU machine that has no LLVM (docs/gpu-testing.md) and check there.

    gpu-bundle.py OUT [--tadc build/bin/tadc] [--target cuda]
                  [--tolerance 1e-4] [--tadc-arg ARG]...
                  [FILE.tad:ENTRY[@BUDGET][~TOLERANCE] ...]

For each program (by default every example derivative, one under a remat
budget, and an f64 copy of examples/deep.tad), OUT gets:

  NAME            the entry compiled with --target=TARGET --emit=exe
  NAME.expected/  the CPU's results for seed 0 (--matmul=loops)

and OUT/run.py, which needs only python3 and numpy: it runs every
executable on seed 0's inputs and checks its results against the CPU's
(within --tolerance of each result's largest magnitude, or the program's
own ~TOLERANCE; 0 for bitwise, which stays bitwise), and
its measured peak against the budget. With --target=cuda-emulator the
executables run on the CPU, which is how the tests check the bundle itself.
--tadc-arg passes an argument to every compile (--cuda-matmul=cublas, say).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PROGRAMS = [
    "examples/mlp.tad:mlp_value_and_grad",
    "examples/transformer.tad:loss_grad",
    "examples/rrule.tad:model_grad",
    "examples/deep_mlp.tad:net_value_and_grad",
    # f32 through 48 residual blocks is ill-conditioned: the CPU's own f32
    # gradient is 2.2e-3 of its largest magnitude from the f64 one (see
    # test/GPU/Inputs/deep_f64.tad, held to 1e-9), so the f32 program gets
    # that much room on another target.
    "examples/deep.tad:deep_grad~3e-3",
    "test/GPU/Inputs/deep_f64.tad:deep_grad~1e-9",
    "examples/moe.tad:stack_value_and_grad",
    "examples/deep_mlp.tad:net_value_and_grad@1700000",
]


def run(args):
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"gpu-bundle: {' '.join(args)} failed:\n{proc.stderr}")


def program_tolerance(tolerance, own):
    """A program's own ~TOLERANCE replaces a nonzero --tolerance; a bitwise
    comparison (0, the emulator's) stays bitwise."""
    if tolerance == 0 or not own:
        return tolerance
    return float(own)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("programs", nargs="*", metavar="FILE:ENTRY[@BUDGET]")
    parser.add_argument("--tadc", default=os.path.join(ROOT, "build", "bin",
                                                       "tadc"))
    parser.add_argument("--target", default="cuda",
                        choices=["cuda", "cuda-emulator"])
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--tadc-arg", action="append", default=[])
    args = parser.parse_intermixed_args()
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for program in args.programs or DEFAULT_PROGRAMS:
        program, _, tolerance = program.partition("~")
        spec, _, budget = program.partition("@")
        source, _, entry = spec.rpartition(":")
        if not os.path.isabs(source) and not os.path.exists(source):
            source = os.path.join(ROOT, source)
        name = os.path.splitext(os.path.basename(source))[0] + "-" + entry
        extra = []
        if budget:
            name += f"-budget{budget}"
            extra = [f"--remat-budget={budget}"]
        exe = os.path.join(args.out, name)
        expected = exe + ".expected"
        shutil.rmtree(expected, ignore_errors=True)
        os.makedirs(expected)
        run([args.tadc, source, "--entry", entry, f"--target={args.target}",
             "--emit=exe", "-o", exe] + extra + args.tadc_arg)
        run([args.tadc, "run", source, "--entry", entry, "--matmul=loops",
             "--seed", "0", f"--output-dir={expected}"] + extra)
        cases.append({"name": name, "budget": int(budget or 0),
                      "tolerance": program_tolerance(args.tolerance,
                                                     tolerance)})
        print(f"{name}: compiled for {args.target}")
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    shutil.copy(os.path.join(ROOT, "scripts", "gpu-bundle-run.py"),
                os.path.join(args.out, "run.py"))
    print(f"{len(cases)} programs in {args.out}; run {args.out}/run.py there")


if __name__ == "__main__":
    main()
