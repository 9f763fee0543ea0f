#!/usr/bin/env python3
"""Forward pass of examples/mlp.tad (loss and auxiliary loss of a 256-128-10
MLP on a batch of 64), tad against PyTorch 1.13 on the same inputs, single
threaded. Also checks that both compute the same losses.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/mlp/run.py [--json FILE]

`--json` also writes the rows, with the machine, the date and the OpenBLAS
kernel tad's runtime ran (docs/results.md shows them).
"""
import argparse
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--json", help="also write the rows to this file")
args = ap.parse_args()

import numpy as np  # noqa: E402
import torch  # noqa: E402

from common import (ROOT, TADC, machine, median_seconds,  # noqa: E402
                    tadc_run, write_json)

torch.set_num_threads(1)
rng = np.random.default_rng(0)
shapes = {"x": (64, 256), "y": (64, 10), "w1": (256, 128), "b1": (128,),
          "w2": (128, 10), "b2": (10,)}
arrays = {k: (rng.standard_normal(s) * 0.1).astype(np.float32)
          for k, s in shapes.items()}
t = {k: torch.from_numpy(v) for k, v in arrays.items()}


def torch_forward():
    with torch.no_grad():
        h = torch.relu(t["x"] @ t["w1"] + t["b1"])
        err = h @ t["w2"] + t["b2"] - t["y"]
        aux = 0.001 * torch.mean(h * h)
        return torch.mean(err * err) + aux, aux


torch_seconds = median_seconds(torch_forward, 200)
with tempfile.TemporaryDirectory() as tmp:
    for k, v in arrays.items():
        np.save(os.path.join(tmp, k + ".npy"), v)
    stats = tadc_run(os.path.join(ROOT, "examples", "mlp.tad"), "mlp", 200,
                     ["--threads=1"], inputs=tmp)
    subprocess.run([TADC, "run", os.path.join(ROOT, "examples", "mlp.tad"),
                    "--entry", "mlp", "--inputs", tmp, "--output-dir", tmp],
                   check=True, capture_output=True)
    tad_loss = float(np.load(os.path.join(tmp, "result0.npy")))
torch_loss = float(torch_forward()[0])

print(f"MLP forward (examples/mlp.tad, batch 64, 256-128-10), 1 thread, {machine()}\n")
print("| implementation | median time per call | loss |")
print("| --- | --- | --- |")
print(f"| PyTorch 1.13 (eager, no_grad) | {torch_seconds * 1e6:.1f} us | {torch_loss:.7g} |")
print(f"| tad (tadc run, JIT) | {stats['median_seconds'] * 1e6:.1f} us | {tad_loss:.7g} |")
print(f"\ntad peak bytes (runtime allocator): {stats['peak_bytes']}, "
      f"live after the call: {stats['live_bytes_after']}")
if abs(tad_loss - torch_loss) > 1e-5 * abs(torch_loss):
    sys.exit("the losses differ")
if args.json:
    write_json(args.json, "MLP forward (examples/mlp.tad, batch 64, "
               "256-128-10), 1 thread", [
                   {"implementation": "PyTorch 1.13 (eager, no_grad)",
                    "seconds": torch_seconds, "loss": torch_loss},
                   {"implementation": "tad (tadc run, JIT)",
                    "seconds": stats["median_seconds"], "loss": tad_loss,
                    "peak_bytes": stats["peak_bytes"]}],
               env="OPENBLAS_NUM_THREADS=1", blas_core=stats["blas_core"])
