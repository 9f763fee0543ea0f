#!/usr/bin/env python3
"""PyTorch's GPT step, kernel by kernel: the counterpart of the Nsight
Compute profile of tad's step that bench/gpu/lease.sh takes (issue 50).

    python3 bench/gpu/torch_profile.py [--device cuda] [--gpt gpu]
        [--steps 3] [--rows 40]

Runs bench/gpu/gpt.py's PyTorch step (TF32 off, as tad's cuBLAS calls)
`--steps` times and profiles the last one with torch.profiler: prints the
device's kernels by their total time (cuBLAS's GEMM kernels by name, so
that they can be set beside the ones tad's step runs for the same shapes),
then the operators by input shape. tad hands cuBLAS the same GEMMs, FLOP
for FLOP (the stand-in cuBLAS's call log, `FAKE_CUBLAS_LOG`, lists them);
where its step spends more on them, these tables say whether PyTorch's
kernels differ or its calls do. `--device cpu` profiles the operators
only (a check of the script on a machine without a GPU).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--gpt", default="gpu", choices=sorted(gpt.CONFIGS))
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--rows", type=int, default=40)
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile
    gpu = args.device != "cpu"
    if gpu:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    gpt.use(args.gpt)
    step, loss = gpt.torch_step(torch, False, gpt.inputs_of("unrolled"),
                                device=args.device)
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    for _ in range(max(0, args.steps - 1)):
        step()
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu
                                           else [])
    with profile(activities=activities, record_shapes=True) as prof:
        step()
        sync()
    print(f"PyTorch {torch.__version__}, {args.device}"
          + (f" ({torch.cuda.get_device_name()})" if gpu else "")
          + f", GPT {gpt.config}, loss {loss():.6f}, step {args.steps} of "
          f"{args.steps}")
    # Newer PyTorch names device time "device_time"; 1.13 and 2.0 "cuda_time".
    events = prof.key_averages()
    key = "self_cpu_time_total"
    if gpu:
        key = ("self_device_time_total"
               if hasattr(events[0], "self_device_time_total")
               else "self_cuda_time_total")
    print(f"\nBy {key}, kernels and operators:")
    print(events.table(sort_by=key, row_limit=args.rows))
    print("\nOperators by input shape:")
    print(prof.key_averages(group_by_input_shape=True).table(
        sort_by=key.replace("self_", ""), row_limit=args.rows))


if __name__ == "__main__":
    main()
