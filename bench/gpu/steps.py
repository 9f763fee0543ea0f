#!/usr/bin/env python3
"""bench/step's gradient steps at docs/performance.md's sizes on a GPU: tad's
--target=cuda executables against PyTorch eager (and torch.compile where the
GPU machine's PyTorch has it), in time, device peak and results.

Here, where tad is built (compiles only; no GPU needed):

    python3 bench/gpu/steps.py build DIR [--tadc build/bin/tadc]

On the GPU machine (python3 with PyTorch and numpy; no LLVM):

    python3 bench/gpu/steps.py run DIR [--repeat 20] [--json FILE]
        [--compile] [--only NAME ...]

`build` compiles, for each workload form (bench/step's MLP, resnet and
transformer, loop and unrolled, and bench/gpu/gpt.py's GPT at a GPU-sized
configuration), the step `net_value_and_grad` with
`--target=cuda --emit=exe` twice: with the generated matmul kernels
(DIR/NAME.kernels, `--cuda-matmul=kernel`) and with cuBLAS
(DIR/NAME.cublas, `--cuda-matmul=cublas`), and with cuBLAS and a wait for
every kernel and GEMM (DIR/NAME.cublas-sync, `--cuda-sync-launches`: what
the asynchronous launches save; --target cuda only). It also compiles the
transformer loop at a sweep of budgets (its feasible minimum, and the
results and a quarter, half and three quarters of the memory above them,
where those compile), whose device peaks `run` checks against their
plans, the budget and the CPU's measured peak at the same budget (at most
it: DIR/manifest.json holds them), and
`sum(x)` over 2^24 f32 elements, which `run` compares with the time the GPU's
memory bandwidth allows (a device-to-device copy's rate, measured there),
and an f32 matmul of two N x N matrices (`--matmul-size`, 2048 by default)
with tad's tiled kernel and with cuBLAS, which `run` times beside PyTorch's
`torch.matmul` (TF32 off, as tad's cuBLAS calls) and reports in TFLOP/s.

`run` makes each form's inputs as bench/step does (seeded, so both sides
and both machines get the same numbers), runs every executable (median of
--repeat calls after one warm-up; each call ends synchronized), runs
PyTorch's step on the same tensors on the GPU (median of --repeat
synchronized steps; its device peak is torch.cuda.max_memory_allocated
above what the inputs held, the gradients counted as tad counts its
results), checks that the loss and every gradient agree (relative 1e-3 of
each result's largest magnitude: the two sides add in different orders, in
f32, through up to 64 blocks), and prints a row per run; --json writes
them (bench/gpu/results/ keeps those docs/results.md shows), and

    python3 bench/gpu/steps.py table FILE.json

prints them as docs/results.md's table.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(BENCH, "step"))
import gpt  # noqa: E402
import mlp  # noqa: E402
import resnet  # noqa: E402
import suite  # noqa: E402
import transformer  # noqa: E402

memory = suite.memory
SUM_ELEMENTS = 1 << 24
TOLERANCE = 1e-3

# name -> (bench/step module, form, the tad program of that form).
WORKLOADS = {
    "mlp": (mlp, "unrolled", lambda: mlp.source()),
    "resnet_loop": (resnet, "loop",
                    lambda: resnet.value_and_grad(memory.resnet_source(False))),
    "resnet_unrolled": (resnet, "unrolled",
                        lambda: resnet.value_and_grad(
                            memory.resnet_source(True))),
    "transformer_loop": (transformer, "loop",
                         lambda: transformer.value_and_grad(
                             memory.transformer_source(False))),
    "transformer_unrolled": (transformer, "unrolled",
                             lambda: transformer.value_and_grad(
                                 memory.transformer_source(True))),
    "gpt": (gpt, "unrolled", lambda: gpt.source()),
}
BUDGETED = "transformer_loop"
# The executables of each workload: generated matmul kernels, cuBLAS, and
# cuBLAS with a wait after every kernel and GEMM (--cuda-sync-launches).
VARIANTS = ("kernels", "cublas", "cublas-sync")


def tadc(args, tadc_path):
    proc = subprocess.run([tadc_path, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"steps.py: tadc {' '.join(args)} failed:\n{proc.stderr}")
    return proc


def cpu_peak(tadc_path, source, budget, inputs):
    """The CPU's measured peak of the step at `budget` (None: store-all),
    by the runtime's allocator."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "s.json")
        extra = [] if budget is None else [f"--remat-budget={budget}"]
        tadc(["run", source, "--entry", "net_value_and_grad", *extra,
              "--inputs", inputs,
              f"--stats-json={stats}", "--output-dir",
              os.path.join(tmp, "out")], tadc_path)
        with open(stats) as f:
            return json.load(f)["peak_bytes"]


def build(args):
    os.makedirs(args.dir, exist_ok=True)
    gpt.use(args.gpt)
    manifest = {"budgets": [], "gpt": args.gpt}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (_, form, source_of) in WORKLOADS.items():
            if args.only and name not in args.only:
                continue
            source = os.path.join(tmp, f"{name}.tad")
            with open(source, "w") as f:
                f.write(source_of())
            for matmul in VARIANTS:
                if matmul == "cublas-sync" and args.target != "cuda":
                    continue
                exe = os.path.join(args.dir, f"{name}.{matmul}")
                # Each named: the default (auto) takes cuBLAS where the
                # GPU machine has it, and kernels where it has not.
                extra = ["--cuda-matmul=" + ("kernel" if matmul == "kernels"
                                             else "cublas")]
                if matmul == "cublas-sync":
                    extra.append("--cuda-sync-launches")
                tadc([source, f"--target={args.target}", "--emit=exe", "--entry",
                      "net_value_and_grad", "-o", exe, *extra], args.tadc)
                print(f"built {exe}")
            if name != BUDGETED:
                continue
            module, _, _ = WORKLOADS[name]
            _, inputs = suite.prepare(tmp, name, source_of(),
                                      module.inputs_of(form))
            minimum = memory.tad_minimum(source, "net_value_and_grad")
            top = cpu_peak(args.tadc, source, None, inputs)
            # The results (loss and gradients) are a floor: the half budget
            # is them and half of the memory above them (bench/step).
            results = 4 * (1 + sum(int(np.prod(a.shape)) for k, a in
                                   module.inputs_of(form).items() if k != "x"))
            # A sweep: the minimum, and a quarter, half and three quarters
            # of the memory above the results.
            sweep = [("minimum", minimum)] + [
                (label, results + (top - results) * k // 4)
                for k, label in ((1, "quarter"), (2, "half"),
                                 (3, "three-quarters"))]
            for label, budget in sweep:
                # Budgets below the minimum are refused: the sweep is the
                # budgets that compile.
                if budget is None or budget >= top or (
                        minimum and budget < minimum):
                    continue
                exe = os.path.join(args.dir, f"{name}.{label}")
                tadc([source, f"--target={args.target}", "--emit=exe", "--entry",
                      "net_value_and_grad", "-o", exe,
                      f"--remat-budget={budget}"], args.tadc)
                manifest["budgets"].append({
                    "workload": name, "label": label, "budget": budget,
                    "exe": os.path.basename(exe),
                    "cpu_peak": cpu_peak(args.tadc, source, budget, inputs)})
                print(f"built {exe} at {budget} bytes")
        source = os.path.join(tmp, "sum.tad")
        with open(source, "w") as f:
            f.write(f"fn total(x: f32[{SUM_ELEMENTS}]) -> f32 "
                    "{ return sum(x); }\n")
        tadc([source, f"--target={args.target}", "--emit=exe", "--entry", "total",
              "-o", os.path.join(args.dir, "sum.kernels")], args.tadc)
    manifest["matmul_size"] = build_matmul(args)
    with open(os.path.join(args.dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def build_matmul(args):
    """DIR/matmul.kernels and DIR/matmul.cublas: C = A @ B, f32, N x N."""
    n = args.matmul_size
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "matmul.tad")
        with open(source, "w") as f:
            f.write(f"fn mm(a: f32[{n}, {n}], b: f32[{n}, {n}]) -> "
                    f"f32[{n}, {n}] {{ return a @ b; }}\n")
        for matmul, flag in (("kernels", "kernel"), ("cublas", "cublas")):
            tadc([source, f"--target={args.target}", "--emit=exe", "--entry",
                  "mm", f"--cuda-matmul={flag}", "-o",
                  os.path.join(args.dir, f"matmul.{matmul}")], args.tadc)
    return n


def run_matmul(torch, args, n, tmp, emit, failed):
    """matmul.kernels and matmul.cublas against torch.matmul, in TFLOP/s."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    folder = os.path.join(tmp, "inputs_matmul")
    os.makedirs(folder)
    np.save(os.path.join(folder, "a.npy"), a)
    np.save(os.path.join(folder, "b.npy"), b)
    workload, flops = f"matmul {n}^3 f32", 2.0 * n ** 3
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
    ta, tb = (torch.from_numpy(v).to(args.device) for v in (a, b))
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    times = []
    for _ in range(args.repeat + 1):
        sync()
        start = time.perf_counter()
        expected = torch.matmul(ta, tb)
        sync()
        times.append(time.perf_counter() - start)
    t_s = sorted(times[1:])[len(times[1:]) // 2]
    emit({"workload": workload, "side": "PyTorch eager", "seconds": t_s,
          "tflops": flops / t_s / 1e12})
    want = {"result": expected.cpu().numpy().astype(np.float64)}
    for matmul in ("kernels", "cublas"):
        s, _, results, error, launches = run_exe(
            os.path.join(args.dir, f"matmul.{matmul}"), folder, args.repeat)
        if error:
            emit({"workload": workload, "side": f"tad {matmul}",
                  "error": error})
            failed.append(f"{workload} {matmul}")
            continue
        worst = difference({"result": next(iter(results.values()))}, want)
        emit({"workload": workload, "side": f"tad {matmul}", "seconds": s,
              "tflops": flops / s / 1e12, "over_pytorch": s / t_s,
              "difference": worst, "launches": launches})
        if worst > TOLERANCE:
            failed.append(f"{workload} {matmul}: {worst}")


def run_exe(exe, inputs, repeat):
    """Median seconds of `repeat` calls (after a warm-up), the device peak,
    the results by name, an error, and what the last call launched (kernels
    and cuBLAS calls, docs/gpu.md) and its scratch bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        stats, out = os.path.join(tmp, "s.json"), os.path.join(tmp, "out")
        proc = subprocess.run([exe, "--inputs", inputs, "--repeat",
                               str(repeat + 1), f"--stats-json={stats}",
                               "--output-dir", out], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            return None, None, None, proc.stderr.strip()[-400:], None
        with open(stats) as f:
            data = json.load(f)
        seconds = sorted(data["wall_seconds"][1:])
        results = {n: np.load(os.path.join(out, f"{n}.npy"))
                   for n in data["results"]}
    # Scratch (partial results of reductions cut into chunks) is device
    # memory in use on top of the peak, which is the plan's.
    launches = {"kernels": data["kernel_launches"],
                "cublas": data["blas_calls"],
                "waits": data["synchronizations"],
                "scratch_bytes": data.get("scratch_bytes", 0),
                "graphs": data.get("graph_launches", 0),
                # The device's plan: the CPU's, less the buffers that the
                # kernels keep in their own memory (docs/gpu.md).
                "planned_peak": data.get("planned_peak_bytes")}
    return seconds[len(seconds) // 2], data["peak_bytes"], results, None, \
        launches


def torch_expected(torch, module, form, compiled, repeat, device, **extra):
    """PyTorch's step on `device`: median seconds, device peak above the
    inputs (None on the CPU), the loss and the gradients named as tad
    names its results. `extra` goes to the module's torch_step."""
    step, loss = module.torch_step(torch, False, module.inputs_of(None),
                                   device=device, compiled=compiled, **extra)
    cuda = device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    step()  # compiles, with torch.compile
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    times.sort()
    peak = None
    if cuda:
        # The gradients of the last step are freed first, so that the
        # peak counts them as tad counts its results.
        step.clear()
        sync()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        step()
        sync()
        peak = torch.cuda.max_memory_allocated() - before
    grads = {k: v.detach().cpu().numpy() for k, v in step.grads().items()}
    expected = {"value": np.float32(loss())}
    if form == "loop":
        # The loop form's gradients are stacked over the blocks: torch's
        # w3 (resnet) or wq_3 (transformer) is row 3 of tad's grad_ws or
        # grad_wq.
        stacked = {}
        for key, g in grads.items():
            if "_" in key:
                base, index = key.rsplit("_", 1)
            else:
                base = key.rstrip("0123456789")
                index = key[len(base):]
                base += "s"
            stacked.setdefault(base, {})[int(index)] = g
        for base, rows in stacked.items():
            expected[f"grad_{base}"] = np.stack([rows[i]
                                                 for i in sorted(rows)])
    else:
        expected.update({f"grad_{k}": v for k, v in grads.items()})
    return times[len(times) // 2], peak, expected


def difference(results, expected):
    if set(results) != set(expected):
        return f"results {sorted(results)} against {sorted(expected)}"
    worst = 0.0
    for name, want in expected.items():
        got = results[name].astype(np.float64).reshape(np.shape(want))
        want = np.asarray(want, np.float64)
        worst = max(worst, float(np.max(np.abs(got - want)))
                    / max(float(np.max(np.abs(want))), 1e-30))
    return worst


def bandwidth(torch, device):
    """Bytes per second of a device-to-device copy (read + written)."""
    a = torch.empty(1 << 28, dtype=torch.uint8, device=device)
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    for _ in range(20):
        b.copy_(a)
    sync()
    return 2 * a.numel() * 20 / (time.perf_counter() - start)


def run(args):
    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("steps.py: no CUDA device for PyTorch")
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)
    gpt.use(manifest.get("gpt", "gpu"))
    device = (torch.cuda.get_device_name() if args.device == "cuda"
              else "the CPU (a test of the script, not a GPU measurement)")
    print(f"tad --target=cuda against PyTorch {torch.__version__} on "
          f"{device}; medians of {args.repeat} calls\n", flush=True)
    rows, failed = [], []
    date = datetime.datetime.now().isoformat(timespec="seconds")
    # The runtime's settings that change what is measured (docs/gpu.md).
    environment = {k: os.environ[k] for k in
                   ("TAD_CUDA_GRAPHS", "TAD_CUDA_MANAGED_ONLY")
                   if os.environ.get(k)}

    def emit(row):
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"device": device, "torch": torch.__version__,
                           "date": date, "environment": environment,
                           "rows": rows}, f, indent=1)

    with tempfile.TemporaryDirectory() as tmp:
        for name, (module, form, _) in WORKLOADS.items():
            if args.only and name not in args.only:
                continue
            _, inputs = suite.prepare(tmp, name, "", module.inputs_of(form))
            t_s, t_peak, expected = torch_expected(torch, module, form,
                                                   False, args.repeat,
                                                   args.device)
            emit({"workload": name, "side": "PyTorch eager",
                  "seconds": t_s, "peak": t_peak})
            if module is gpt and hasattr(torch.nn.functional,
                                         "scaled_dot_product_attention"):
                # The attention as PyTorch users write it today: fused,
                # storing no T x T scores.
                f_s, f_peak, fused = torch_expected(
                    torch, module, form, False, args.repeat, args.device,
                    fused_attention=True)
                emit({"workload": name, "side": "PyTorch eager, SDPA",
                      "seconds": f_s, "peak": f_peak,
                      "difference": difference(fused, expected)})
            for matmul in VARIANTS:
                exe = os.path.join(args.dir, f"{name}.{matmul}")
                if matmul == "cublas-sync" and not os.path.exists(exe):
                    continue  # an emulator bundle, or one built before it
                s, peak, results, error, launches = run_exe(exe, inputs,
                                                            args.repeat)
                if error:
                    emit({"workload": name, "side": f"tad {matmul}",
                          "error": error})
                    failed.append(name)
                    continue
                worst = difference(results, expected)
                emit({"workload": name, "side": f"tad {matmul}",
                      "seconds": s, "peak": peak, "difference": worst,
                      "over_pytorch": s / t_s, "launches": launches})
                if isinstance(worst, str) or worst > TOLERANCE:
                    failed.append(f"{name} {matmul}: {worst}")
            for b in manifest["budgets"]:
                if b["workload"] != name:
                    continue
                exe = os.path.join(args.dir, b["exe"])
                s, peak, results, error, launches = run_exe(exe, inputs,
                                                            args.repeat)
                # The device peak is its plan's, within the budget and at
                # most the CPU's (less where kernels keep buffers of their
                # own).
                planned = launches and launches["planned_peak"]
                ok = (error is None and peak == planned and
                      peak <= b["cpu_peak"] and peak <= b["budget"])
                emit({"workload": name, "side": f"tad at {b['label']}",
                      "budget": b["budget"], "cpu_peak": b["cpu_peak"],
                      "seconds": s, "peak": peak, "error": error,
                      "difference": None if error else difference(
                          results, expected), "launches": launches})
                if not ok:
                    failed.append(f"{name} at {b['budget']}: device peak "
                                  f"{peak}, its plan {planned}, CPU "
                                  f"{b['cpu_peak']}")
        # sum(x) over 2^24 f32 elements against the memory bandwidth.
        x = np.random.default_rng(0).uniform(-1, 1, SUM_ELEMENTS).astype(
            np.float32)
        folder = os.path.join(tmp, "inputs_sum")
        os.makedirs(folder)
        np.save(os.path.join(folder, "x.npy"), x)
        s, _, results, error, launches = run_exe(
            os.path.join(args.dir, "sum.kernels"), folder, min(args.repeat, 5))
        rate = bandwidth(torch, args.device)
        emit({"workload": "sum 2^24 f32", "side": "tad kernels",
              "seconds": s, "error": error, "bandwidth_seconds":
              x.nbytes / rate, "bandwidth_bytes_per_second": rate,
              "difference": None if error else abs(
                  float(next(iter(results.values()))) - float(np.sum(x, dtype=np.float64))),
              "launches": launches})
        run_matmul(torch, args, manifest["matmul_size"], tmp, emit, failed)
        if args.compile and hasattr(torch, "compile"):
            for name in ("mlp", "transformer_unrolled", "resnet_unrolled",
                         "gpt"):
                module, form, _ = WORKLOADS[name]
                start = time.perf_counter()
                try:
                    t_s, t_peak, _ = torch_expected(torch, module, form, True,
                                                    args.repeat, args.device)
                except Exception as e:  # report, and go on
                    emit({"workload": name, "side": "torch.compile",
                          "error": repr(e)[:400]})
                    continue
                emit({"workload": name, "side": "torch.compile",
                      "seconds": t_s, "peak": t_peak,
                      "compile_seconds": time.perf_counter() - start})
    if failed:
        sys.exit("steps.py: " + "; ".join(map(str, failed)))


def table(args):
    """The Markdown table of a --json file, as docs/results.md shows it."""
    with open(args.json_file) as f:
        data = json.load(f)
    rows = data["rows"]
    print(f"{data['device']}, PyTorch {data['torch']}\n")
    print("| workload | PyTorch eager | torch.compile | tad kernels | "
          "tad cuBLAS | tad cuBLAS, a wait per launch | tad peak | "
          "PyTorch peak |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    steps = [n for n in WORKLOADS if any(r["workload"] == n for r in rows)]

    def find(name, side):
        return next((r for r in rows if r["workload"] == name
                     and r["side"] == side), None)

    def ms(row):
        if not row or row.get("seconds") is None:
            return "-"
        ratio = row.get("over_pytorch")
        return f"{row['seconds'] * 1e3:.2f} ms" + (
            f" ({ratio:.2f}x)" if ratio else "")
    for name in steps:
        eager, tad = find(name, "PyTorch eager"), find(name, "tad kernels")
        # torch.compile ran on the unrolled forms; the loop forms are the
        # same PyTorch program.
        compiled = find(name, "torch.compile") or find(
            name.replace("_loop", "_unrolled"), "torch.compile")
        print(f"| {name} | {ms(eager)} | {ms(compiled)} | {ms(tad)} | "
              f"{ms(find(name, 'tad cublas'))} | "
              f"{ms(find(name, 'tad cublas-sync'))} | {tad['peak']} | "
              f"{eager['peak']} |")
    for r in rows:
        if r["side"] == "PyTorch eager, SDPA":
            print(f"\n{r['workload']}, PyTorch eager with its fused attention "
                  f"(scaled_dot_product_attention): {ms(r)}, peak "
                  f"{r['peak']}")
        if r["side"].startswith("tad at "):
            print(f"\n{r['workload']} at its {r['side'][7:]} budget "
                  f"({r['budget']} bytes): device peak {r['peak']}, the "
                  f"CPU's {r['cpu_peak']}, {ms(r)}")
        if r["workload"].startswith("matmul") and r.get("tflops"):
            print(f"\n{r['workload']}, {r['side']}: {ms(r)}, "
                  f"{r['tflops']:.1f} TFLOP/s")
        if r["workload"].startswith("sum"):
            print(f"\n{r['workload']}: {ms(r)}; the memory bandwidth "
                  f"({r['bandwidth_bytes_per_second'] / 1e12:.2f} TB/s, a "
                  f"device-to-device copy) allows "
                  f"{r['bandwidth_seconds'] * 1e6:.1f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    t = sub.add_parser("table")
    t.add_argument("json_file")
    b = sub.add_parser("build")
    b.add_argument("dir")
    b.add_argument("--only", nargs="*")
    b.add_argument("--target", default="cuda",
                   choices=["cuda", "cuda-emulator"])
    b.add_argument("--tadc", default=os.path.join(suite.ROOT, "build", "bin",
                                                  "tadc"))
    b.add_argument("--gpt", default="gpu", choices=sorted(gpt.CONFIGS),
                   help="the GPT's configuration (small: for the emulator)")
    b.add_argument("--matmul-size", type=int, default=2048,
                   help="N of the N x N x N f32 matmul timed alone")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--repeat", type=int, default=20)
    r.add_argument("--json")
    r.add_argument("--compile", action="store_true")
    r.add_argument("--only", nargs="*")
    r.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                   help="cpu: test the script with a bundle built with "
                        "--target cuda-emulator")
    args = ap.parse_args()
    {"build": build, "run": run, "table": table}[args.mode](args)


if __name__ == "__main__":
    main()
