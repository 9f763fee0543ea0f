#!/usr/bin/env python3
"""GEMM 512 x 512 x 512 in f32, single-threaded: tad (runtime BLAS call and
MLIR-generated loops) against OpenBLAS sgemm through NumPy and PyTorch.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/gemm/run.py [--json FILE]

`--json` also writes the rows, with the machine, the date and the OpenBLAS
kernel tad's runtime ran (docs/results.md shows them).
"""
import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--json", help="also write the rows to this file")
args = ap.parse_args()

import numpy as np  # noqa: E402
import torch  # noqa: E402

from common import (ROOT, machine, median_seconds, tadc_run,  # noqa: E402
                    write_json)

N = 512
FLOP = 2 * N ** 3
torch.set_num_threads(1)
rng = np.random.default_rng(0)
a = rng.standard_normal((N, N), dtype=np.float32)
b = rng.standard_normal((N, N), dtype=np.float32)
ta, tb = torch.from_numpy(a), torch.from_numpy(b)

rows = []
t = median_seconds(lambda: a @ b, 30)
rows.append(("OpenBLAS sgemm via NumPy", t))
t = median_seconds(lambda: torch.mm(ta, tb), 30)
rows.append(("OpenBLAS sgemm via PyTorch 1.13", t))
source = os.path.join(ROOT, "bench", "gemm", "gemm.tad")
stats = tadc_run(source, "gemm", 30, ["--threads=1"])
t = stats["median_seconds"]
rows.append(("tad, --matmul=blas (runtime call, the default)", t))
t = tadc_run(source, "gemm", 3, ["--threads=1", "--matmul=loops"])["median_seconds"]
rows.append(("tad, --matmul=loops (MLIR-generated loops)", t))

reference = rows[0][1]
print(f"GEMM {N}x{N}x{N} f32, 1 thread, {machine()}\n")
print("| implementation | median time | GFLOP/s | vs OpenBLAS |")
print("| --- | --- | --- | --- |")
for name, t in rows:
    print(f"| {name} | {t * 1e3:.2f} ms | {FLOP / t / 1e9:.1f} | {reference / t * 100:.0f}% |")
if args.json:
    write_json(args.json, f"GEMM {N}x{N}x{N} f32, 1 thread",
               [{"implementation": name, "seconds": t,
                 "gflops": FLOP / t / 1e9} for name, t in rows],
               env="OPENBLAS_NUM_THREADS=1", blas_core=stats["blas_core"])
