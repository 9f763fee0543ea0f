#!/usr/bin/env python3
"""How much of a tad gradient step is OpenBLAS's GEMM, and so how fast
PyTorch eager would have to be for the step to reach a given ratio.

PyTorch eager and tad call the same GEMMs (same shapes, same OpenBLAS,
same kernels: bench/step/suite.py checks the kernels), so the GEMM time of
a step is a floor under both sides: tad at 0.8 times PyTorch needs
PyTorch's step to be at least (GEMM time) / 0.8. This script runs each
form's store-all step (`--emit=exe`) of a workload under `perf record`
(cpu-clock, a sample per 0.1 ms) and prints, per step, the CPU time in
OpenBLAS's sgemm (its kernel and packing), in tad's generated loops and in
memset (the zeroing of GEMM outputs), and sgemm's share of the median
step.

    /usr/bin/python3 bench/step/gemm_share.py transformer [--repeat 100]

Needs perf (Debian's linux-perf). One thread, OpenBLAS's kernels as
bench/step/suite.py chooses them.
"""
import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402


PERIOD_NS = 100000  # one sample per 0.1 ms of the process's CPU time


def times(report):
    """Milliseconds of CPU time per category, from the sample counts of
    `perf report -n --sort symbol` (each sample is PERIOD_NS of
    cpu-clock)."""
    out = {"sgemm": 0.0, "tad loops": 0.0, "memset": 0.0, "other": 0.0}
    for line in report.splitlines():
        match = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(\S+)", line)
        if not match:
            continue
        ms, symbol = int(match.group(1)) * PERIOD_NS / 1e6, match.group(2)
        if "sgemm" in symbol:
            out["sgemm"] += ms
        elif "_loop" in symbol and "net_value_and_grad" in symbol:
            out["tad loops"] += ms
        elif "memset" in symbol:
            out["memset"] += ms
        else:
            out["other"] += ms
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", choices=["mlp", "transformer", "resnet"])
    ap.add_argument("--repeat", type=int, default=100)
    args = ap.parse_args()
    if not shutil.which("perf"):
        sys.exit("gemm_share.py needs perf (apt-get install linux-perf)")
    workload = importlib.import_module(args.workload)
    if args.workload == "mlp":
        forms = {"unrolled": workload.source}
    else:
        of = getattr(suite.memory, f"{args.workload}_source")
        forms = {form: (lambda unrolled: lambda: workload.value_and_grad(
            of(unrolled)))(form == "unrolled")
            for form in ("loop", "unrolled")}
    core = suite.tad_core()
    print(f"{args.workload}: {suite.machine()}; OpenBLAS core {core}, "
          f"1 thread, {args.repeat} steps under perf record\n")
    print("| form | median step | sgemm per step | tad's loops per step "
          "| memset per step | sgemm share of the step |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for form, source_of in forms.items():
            source, inputs = suite.prepare(tmp, form, source_of(),
                                           workload.inputs_of(form))
            exe = os.path.join(tmp, f"step_{form}")
            suite.compile_tad(source, None, exe)
            data, stats = os.path.join(tmp, "perf.data"), os.path.join(
                tmp, "s.json")
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c",
                            str(PERIOD_NS), "-o", data, exe,
                            "--inputs", inputs, "--repeat", str(args.repeat),
                            f"--stats-json={stats}", "--output-dir",
                            os.path.join(tmp, "out"), "--threads", "1"],
                           check=True, env=suite.environment(core, 1),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            report = subprocess.run(
                ["perf", "report", "-i", data, "-n", "--no-children",
                 "--sort", "symbol", "--stdio"], check=True, capture_output=True,
                text=True).stdout
            with open(stats) as f:
                seconds = sorted(json.load(f)["wall_seconds"])
            step = seconds[len(seconds) // 2]
            # The samples cover the whole run, loading inputs and writing
            # results too, which call no GEMM: per step, the GEMMs' and
            # tad's loops' time is theirs over the steps.
            t = {k: v / args.repeat for k, v in times(report).items()}
            print(f"| {form} | {step * 1e3:.1f} ms | {t['sgemm']:.1f} ms | "
                  f"{t['tad loops']:.1f} ms | {t['memset']:.1f} ms | "
                  f"{t['sgemm'] / step / 1e3:.0%} |")


if __name__ == "__main__":
    main()
