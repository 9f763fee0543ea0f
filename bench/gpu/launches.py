#!/usr/bin/env python3
"""Kernel launches and host waits of a call of tad's GPU code, counted
without a GPU (issue 50).

    /usr/bin/python3 bench/gpu/launches.py [--tadc build/bin/tadc]
        [--only N] [--json FILE]

For each program below, one `tadc run --stats-json` call in the emulator
(`--target=cuda-emulator`, which counts the launches a GPU would run,
with the allocator's peak and the plan's), and, where a CUDA toolkit
compiles `--target=cuda`, one call against the stand-in driver of
test/GPU/Inputs (`fake_libcuda.c`, built here with cc; without cuBLAS,
so matmuls are tad's kernels): its launches and waits of the host, and
the waits with `--cuda-sync-launches` (one per launch, as before launches
were asynchronous). The stand-in checks every call as in
test/GPU/fake-driver.test and reports misuse, which fails this script.
docs/results.md shows the table (bench/results.py); docs/gpu.md explains
the counts. bench/gpu/gpt.py's GPU-sized step, too large to emulate on a
CPU, runs against the stand-in driver only. `--only N` runs the first N
programs (a test's sample).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402

GPT_DIMS = ["--dim", "E=f32", "--dim", "B=16", "--dim", "V=76", "--dim",
            "T=32", "--dim", "D=64", "--dim", "F=256"]

# bench/gpu/gpt.py's generated step, written where main says.
GPU_GPT = "bench/gpu/gpt.py:gpu"

# (what it is, source, entry, extra tadc arguments)
PROGRAMS = [
    ("MLP", "examples/mlp.tad", "mlp_value_and_grad", []),
    ("custom rule", "examples/rrule.tad", "model_grad", []),
    ("deep MLP", "examples/deep_mlp.tad", "net_value_and_grad", []),
    ("transformer block", "examples/transformer.tad", "loss_grad", []),
    ("mixture of experts", "examples/moe.tad", "stack_value_and_grad", []),
    ("deep network", "examples/deep.tad", "deep_grad", []),
    ("GPT step", "examples/gpt/gpt.tad", "train_step",
     GPT_DIMS),
    ("loops with branches on data", "test/AutoDiff/Inputs/nesting.tad", "df",
     []),
    ("layer norm and its gradient", "test/GPU/Inputs/layer_norm.tad",
     "ln_grad", []),
    ("layer norm", "test/GPU/Inputs/layer_norm.tad", "ln_rows", []),
    ("softmax", "test/GPU/Inputs/row_sums.tad", "soft", []),
    ("sum of 2^20 elements", "test/GPU/Inputs/long_sums.tad", "total", []),
    # bench/gpu/gpt.py's GPU-sized step (B=32, T=256, D=512, 8 blocks):
    # too large to emulate on a CPU, it runs against the stand-in driver
    # only, which runs no kernel.
    ("GPT step, GPU-sized", GPU_GPT, "net_value_and_grad", []),
]


def stats(tadc, source, entry, extra, target_args, env=None):
    """One call's --stats-json, and the run's stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.json")
        ran = subprocess.run(
            [tadc, "run", os.path.join(ROOT, source), "--entry", entry,
             f"--stats-json={path}", *extra, *target_args],
            capture_output=True, text=True, env=env)
        if ran.returncode:
            sys.exit(f"launches.py: {source}:{entry} {' '.join(target_args)}"
                     f" failed:\n{ran.stderr}")
        with open(path) as f:
            return json.load(f), ran.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tadc", default=common.TADC)
    ap.add_argument("--only", type=int, default=len(PROGRAMS))
    ap.add_argument("--json", default=os.path.join(HERE, "results",
                                                   "launches.json"))
    args = ap.parse_args()
    toolkit = os.path.exists("/usr/local/cuda/bin/ptxas") or \
        shutil.which("ptxas") is not None
    rows = []
    with tempfile.TemporaryDirectory() as driver:
        if toolkit:
            subprocess.run(["cc", "-shared", "-fPIC",
                            os.path.join(ROOT, "test", "GPU", "Inputs",
                                         "fake_libcuda.c"),
                            "-o", os.path.join(driver, "libcuda.so.1")],
                           check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=driver)
        for name, source, entry, extra in PROGRAMS[:args.only]:
            row = {"program": name, "source": source, "entry": entry,
                   "arguments": extra}
            if source == GPU_GPT:
                if not toolkit:
                    continue
                sys.path.insert(0, HERE)
                import gpt
                gpt.use("gpu")
                source = os.path.join(driver, "gpt.tad")
                with open(source, "w") as f:
                    f.write(gpt.source())
            else:
                emulated, _ = stats(args.tadc, source, entry, extra,
                                    ["--target=cuda-emulator"])
                row.update(
                    emulator_launches=emulated["kernel_launches"],
                    peak_bytes=emulated["peak_bytes"],
                    planned_peak_bytes=emulated.get("planned_peak_bytes"))
            if toolkit:
                for key, target in (("", []),
                                    ("_sync", ["--cuda-sync-launches"])):
                    ran, err = stats(args.tadc, source, entry, extra,
                                     ["--target=cuda", *target], env)
                    if " 0 errors" not in err:
                        sys.exit(f"launches.py: the stand-in driver found "
                                 f"misuse in {source}:{entry}:\n{err}")
                    row["driver_launches" + key] = ran["kernel_launches"]
                    row["waits" + key] = ran["synchronizations"]
                    # The stand-in's allocator counts what a GPU's would.
                    row.setdefault("peak_bytes", ran["peak_bytes"])
                    row.setdefault("planned_peak_bytes",
                                   ran.get("planned_peak_bytes"))
            rows.append(row)
            counts = []
            if "emulator_launches" in row:
                counts.append(f"{row['emulator_launches']} launches in the "
                              f"emulator")
            if toolkit:
                counts.append(f"{row['driver_launches']} against the stand-in "
                              f"driver with {row['waits']} waits "
                              f"({row['waits_sync']} with "
                              f"--cuda-sync-launches)")
            print(f"{name}: " + ", ".join(counts), flush=True)
    common.write_json(args.json, "kernel launches and host waits of one call",
                      rows, stand_in_driver=toolkit)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
