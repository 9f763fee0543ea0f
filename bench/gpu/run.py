#!/usr/bin/env python3
"""A gradient step of the MLP and transformer examples: tad's --target=cuda
executables against PyTorch on the same GPU, in time and in memory.

    python3 bench/gpu/run.py --bundle DIR [--device cuda] [--repeat 100]
        [--json FILE]

DIR is a folder made by scripts/gpu-bundle.py (built where tad is; it holds
mlp-mlp_value_and_grad and transformer-loss_grad). For each model, on the
same random inputs: the tad executable's median time per call and its
device peak (the runtime allocator's count, inputs excluded), and PyTorch's
median time per call (synchronized) and torch.cuda.max_memory_allocated
above the memory held before the call (inputs excluded). Also checks that
both compute the same results (within 1e-4 of each result's largest
magnitude) and exits non-zero if not. --json writes the rows, with the
device and the PyTorch version, for a GPU run to bring back.

With --device cpu (and a bundle built with --target=cuda-emulator) it runs
on the CPU, which is how the script itself is tested on machines without a
GPU; those times say nothing about a GPU.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import write_json  # noqa: E402
from models import MODELS  # noqa: E402


def parameters(exe):
    """The executable's parameters from its --help: [(name, shape)]."""
    text = subprocess.run([exe, "--help"], check=True, capture_output=True,
                          text=True).stdout
    params = []
    for name, dtype, dims in re.findall(r"^  (\w+): (\w+)\[([0-9, ]*)\]$",
                                        text, re.MULTILINE):
        if dtype != "f32":
            sys.exit(f"{exe}: parameter {name} is {dtype}; only f32 is "
                     "benchmarked")
        params.append((name, tuple(int(d) for d in dims.split(",") if d)))
    return params


def run_tad(exe, inputs, repeat, tmp):
    stats = os.path.join(tmp, "stats.json")
    out = os.path.join(tmp, "out")
    os.makedirs(out, exist_ok=True)
    # One call more than timed: the first (module load, page faults) is a
    # warm-up and is dropped.
    subprocess.run([exe, "--inputs", inputs, "--repeat", str(repeat + 1),
                    "--stats-json", stats, "--output-dir", out], check=True,
                   stdout=subprocess.DEVNULL)
    with open(stats) as f:
        data = json.load(f)
    seconds = sorted(data["wall_seconds"][1:])
    results = [np.load(os.path.join(out, f"{name}.npy"))
               for name in data["results"]]
    # What one call launched (the last call's counts, docs/gpu.md).
    launches = f"{data['kernel_launches']} / {data['blas_calls']}"
    return seconds[len(seconds) // 2], data["peak_bytes"], results, launches


def run_torch(model, arrays, device, repeat):
    tensors = {k: torch.from_numpy(v).to(device) for k, v in arrays.items()}
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(3):
        model(tensors)
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model(tensors)
        sync()
        times.append(time.perf_counter() - start)
    times.sort()
    peak = None
    if device == "cuda":
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        results = model(tensors)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - before
    else:
        results = model(tensors)
    return (times[len(times) // 2], peak,
            [r.detach().cpu().numpy() for r in results])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("no CUDA device for PyTorch")
    where = (torch.cuda.get_device_name() if args.device == "cuda"
             else "CPU (a test of the script, not a GPU measurement)")
    print(f"Gradient step, tad --target=cuda against PyTorch "
          f"{torch.__version__}, on {where}, median of {args.repeat} calls\n")
    print("| model | tad time | PyTorch time | tad peak bytes | "
          "PyTorch peak bytes | max difference | tad kernels / cuBLAS calls |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rng = np.random.default_rng(0)
    rows = []
    for name, model in MODELS.items():
        exe = os.path.join(args.bundle, name)
        arrays = {p: (rng.standard_normal(shape) * 0.1).astype(np.float32)
                  for p, shape in parameters(exe)}
        with tempfile.TemporaryDirectory() as tmp:
            for p, a in arrays.items():
                np.save(os.path.join(tmp, p + ".npy"), a)
            tad_s, tad_peak, tad_results, launches = run_tad(
                exe, tmp, args.repeat, tmp)
        torch_s, torch_peak, torch_results = run_torch(model, arrays,
                                                       args.device,
                                                       args.repeat)
        if len(tad_results) != len(torch_results):
            sys.exit(f"{name}: {len(tad_results)} results from tad, "
                     f"{len(torch_results)} from PyTorch")
        worst = 0.0
        for a, b in zip(tad_results, torch_results):
            a, b = a.astype(np.float64), b.astype(np.float64).reshape(a.shape)
            worst = max(worst, float(np.max(np.abs(a - b)))
                        / max(float(np.max(np.abs(b))), 1e-30))
        torch_peak_text = "-" if torch_peak is None else str(torch_peak)
        print(f"| {name} | {tad_s * 1e6:.1f} us | {torch_s * 1e6:.1f} us | "
              f"{tad_peak} | {torch_peak_text} | {worst:.2g} | {launches} |")
        rows.append({"model": name, "tad_seconds": tad_s,
                     "torch_seconds": torch_s, "tad_peak_bytes": tad_peak,
                     "torch_peak_bytes": torch_peak,
                     "max_difference": worst, "launches": launches})
        if worst > 1e-4:
            sys.exit(f"{name}: tad and PyTorch differ by {worst:.3g}")
    if args.json:
        write_json(args.json, "a gradient step, tad --target=cuda against "
                   "PyTorch", rows, device=where, torch=torch.__version__,
                   repeat=args.repeat)


if __name__ == "__main__":
    main()
