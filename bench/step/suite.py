"""The gradient-step benchmark of one workload, tad against PyTorch 1.13.

Each workload script (mlp.py, transformer.py, resnet.py) gives a tad
program whose `net_value_and_grad` returns the loss and every weight's
gradient, and a PyTorch step on the same inputs. This module runs both:

  - the GEMM kernels: tad's runtime chooses OpenBLAS's core type for the
    CPU (docs/runtime.md#openblas); the suite asks it which (the
    `blas_core` of `--stats-json`, with the user's OPENBLAS_CORETYPE
    removed) and runs both sides under that one, named in
    OPENBLAS_CORETYPE;
  - thread counts: 1 and every core (OPENBLAS_NUM_THREADS and
    torch.set_num_threads; tad's generated loops run on one thread, its
    GEMMs on OpenBLAS's threads);
  - tad as an `--emit=exe` executable at store-all and at budgets from the
    store-all peak down to the minimum tadc names, each measured for its
    peak (the runtime allocator's) and its median step;
  - the half budget: the call's results (the loss and every gradient, all
    alive when it returns) are a floor no schedule goes below, so half of
    the store-all peak is out of reach wherever they are more than half
    of it; the half budget is the results' bytes plus half the memory
    above them, the part a schedule chooses (docs/performance.md);
  - tad's store-all steps, its half-budget steps and PyTorch eager's in
    `--rounds` interleaved rounds (the machine drifts over minutes), each
    side's time the median of its rounds;
  - PyTorch eager and PyTorch with torch.utils.checkpoint (non-reentrant)
    around every block, each in a process of its own (the core type must
    be set before OpenBLAS loads; its peak is the profiler's, as in
    bench/memory/run.py);
  - the losses of every run, which must agree (relative 1e-4), and the
    kernels each side ran (tad's `blas_core`, openblas_get_corename in
    PyTorch's process), which must be the same;
  - a table per thread count and a PNG of step time against peak memory;
    `--json FILE` also writes the rows, with the machine, the date and the
    kernels (docs/results.md shows them).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
from common import ROOT, TADC, machine, write_json  # noqa: E402
sys.path.insert(0, os.path.join(BENCH, "memory"))
import run as memory  # noqa: E402  (the PyTorch peak, by the profiler)


def tad_core():
    """The OpenBLAS core type tad's runtime chooses on this CPU."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "m.tad")
        with open(source, "w") as f:
            f.write("fn f(a: f32[8, 8]) -> f32[8, 8] { return a @ a; }\n")
        stats = os.path.join(tmp, "s.json")
        subprocess.run([TADC, "run", source, "--entry", "f",
                        f"--stats-json={stats}"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        with open(stats) as f:
            return json.load(f)["blas_core"]


def environment(core, threads):
    return dict(os.environ, OPENBLAS_CORETYPE=core,
                OPENBLAS_NUM_THREADS=str(threads),
                OMP_NUM_THREADS=str(threads))


def prepare(tmp, name, source, inputs):
    """Writes `source` to tmp/NAME.tad and `inputs` (name -> array) as f32
    (integers as they are) .npy files to the folder tmp/inputs_NAME; returns both paths."""
    path = os.path.join(tmp, f"{name}.tad")
    with open(path, "w") as f:
        f.write(source)
    folder = os.path.join(tmp, f"inputs_{name}")
    os.makedirs(folder)
    for key, value in inputs.items():
        value = np.asarray(value)
        # Integer inputs (token ids) keep their type.
        if not np.issubdtype(value.dtype, np.integer):
            value = value.astype(np.float32)
        np.save(os.path.join(folder, key + ".npy"), value)
    return path, folder


def compile_tad(source, budget, exe):
    """Compiles `source`'s step at `budget` (None: store-all) into `exe`."""
    args = [TADC, source, "--emit=exe", "--entry", "net_value_and_grad",
            "-o", exe, f"--remat-budget={budget or 'store-all'}"]
    subprocess.run(args, check=True, capture_output=True)


def run_tad(exe, inputs, core, threads, repeat, tmp):
    """Runs a compiled step: its median time, peak, loss and kernels."""
    stats, out = os.path.join(tmp, "s.json"), os.path.join(tmp, "out")
    # A fresh folder: the results' bytes below are this run's files only.
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run([exe, "--inputs", inputs, "--repeat", str(repeat + 1),
                    f"--stats-json={stats}", "--output-dir", out,
                    "--threads", str(threads)],
                   check=True, env=environment(core, threads),
                   stdout=subprocess.DEVNULL)
    with open(stats) as f:
        data = json.load(f)
    seconds = sorted(data["wall_seconds"][1:])
    loss = float(np.load(os.path.join(out, "value.npy")))
    # The call's results (the loss and the gradients) are counted in its
    # peak (docs/memory.md): their bytes are a floor for every budget.
    results = sum(np.load(os.path.join(out, f)).nbytes
                  for f in os.listdir(out) if f.endswith(".npy"))
    return {"seconds": seconds[len(seconds) // 2],
            "peak": data["peak_bytes"], "loss": loss,
            "core": data["blas_core"], "results": results}


def run_torch(script, mode, core, threads, repeat):
    """The PyTorch step (`mode`: eager or checkpointed) in a fresh process."""
    proc = subprocess.run([sys.executable, script, "--torch", mode,
                           "--threads", str(threads), "--repeat",
                           str(repeat)], check=True, capture_output=True,
                          text=True, env=environment(core, threads))
    return json.loads(proc.stdout.splitlines()[-1])


def torch_step_of(torch, inputs, params, forward, device="cpu",
                  compiled=False, loss_of=lambda h: (h * h).mean()):
    """A PyTorch step on `inputs` (name -> array): `params` name the
    tensors that get gradients, `forward(t)` computes the network's output
    h from the tensors by name, and the loss is mean(h * h), as in the tad
    programs. Returns the step and a function giving its last loss; the
    step's `grads()` gives the gradients by name and its `clear()` frees
    them. `device` and `compiled` (torch.compile around the forward) are
    for bench/gpu/steps.py, and `loss_of` for a network whose loss is
    another (bench/gpu/gpt.py's forward returns its loss). Integer inputs
    (token ids) keep their type."""
    t = {k: torch.tensor(np.asarray(v) if np.issubdtype(np.asarray(v).dtype,
                                                         np.integer)
                         else np.asarray(v, np.float32), device=device)
         for k, v in inputs.items()}
    weights = [t[n].requires_grad_() for n in params]
    last = {}
    if compiled:
        forward = torch.compile(forward)

    def clear():
        for w in weights:
            w.grad = None

    def step():
        clear()
        loss = loss_of(forward(t))
        loss.backward()
        last["loss"] = loss.item()
    step.clear = clear
    step.grads = lambda: {n: w.grad for n, w in zip(params, weights)}
    return step, lambda: last["loss"]


def torch_child(args, torch_step):
    """The body of the `--torch MODE` process: time, peak and loss."""
    import torch
    torch.set_num_threads(args.threads[0])
    step, loss = torch_step(torch, args.torch == "checkpointed")
    from common import median_seconds
    seconds = median_seconds(step, args.repeat)
    peak = memory.torch_peak_here(torch, step)
    print(json.dumps({"seconds": seconds, "peak": peak,
                      "loss": float(loss()), "core": openblas_core()}))


def openblas_core():
    """The core type of the OpenBLAS this process loaded (PyTorch's)."""
    import ctypes
    try:
        # RTLD_NOLOAD (4): only if the process has it loaded already.
        library = ctypes.CDLL("libopenblas.so.0", mode=os.RTLD_NOLOAD)
    except OSError:
        return "not loaded"
    library.openblas_get_corename.restype = ctypes.c_char_p
    return library.openblas_get_corename().decode()


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def plot(name, rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for threads in sorted({r["threads"] for r in rows}):
        for side in sorted({r["side"] for r in rows
                            if r["side"].startswith("tad")}):
            tad = sorted((r for r in rows if r["side"] == side
                          and r["threads"] == threads),
                         key=lambda r: r["peak"])
            ax.plot([r["peak"] / 2**20 for r in tad],
                    [r["seconds"] * 1e3 for r in tad], marker="o",
                    label=f"{side} budgets, {threads} thread(s)")
        for r in rows:
            if not r["side"].startswith("tad") and r["threads"] == threads:
                ax.scatter([r["peak"] / 2**20], [r["seconds"] * 1e3],
                           marker="s" if r["side"] == "PyTorch" else "^",
                           s=50, label=f"{r['side']}, {threads} thread(s)")
    ax.set_xlabel("peak memory of a step (MiB)")
    ax.set_ylabel("step time (ms)")
    ax.set_title(name)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(name, forms, torch_step, inputs_of, script):
    """`forms`: form name -> the tad program of that form (one whose
    `net_value_and_grad` returns the loss, then the gradients);
    `inputs_of(form)`: input name -> array, as the form's parameters name
    them; `torch_step(torch, checkpointed, inputs)`: a PyTorch step on
    `inputs_of(None)` and a function returning its loss."""
    ap = argparse.ArgumentParser(description=f"the {name} gradient step")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budgets", type=int, default=4,
                    help="budgets from store-all down to the minimum")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds of tad's store-all steps and "
                         "PyTorch eager's, whose medians the ratio compares")
    ap.add_argument("--threads", type=int, nargs="*",
                    default=sorted({1, os.cpu_count()}))
    ap.add_argument("--plot", default=os.path.join(
        ROOT, "docs", "images", f"step-{name}.png"))
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--torch", choices=["eager", "checkpointed"],
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch:
        return torch_child(args, lambda torch, checkpointed: torch_step(
            torch, checkpointed, inputs_of(None)))
    core = tad_core()
    print(f"{name}: {machine()}; OpenBLAS core {core} on both sides")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        prepared, store_all, half = {}, {}, {}
        for form, source_of in forms.items():
            prepared[form] = prepare(tmp, f"{name}_{form}", source_of(),
                                     inputs_of(form))
        # Each budget is compiled once and run at every thread count; the
        # budgets go from the store-all peak (which no thread count
        # changes) down to the minimum.
        for form, (source, inputs) in prepared.items():
            side = "tad" if len(forms) == 1 else f"tad {form}"
            minimum = memory.tad_minimum(source, "net_value_and_grad")
            budgets, top, middle = [None], None, None
            while budgets:
                budget = budgets.pop(0)
                exe = os.path.join(tmp, "step")
                if budget is None:
                    exe = os.path.join(tmp, f"store_all_{form}")
                    store_all[form] = exe
                elif budget == middle:
                    exe = os.path.join(tmp, f"half_{form}")
                    half[form] = (budget, exe)
                compile_tad(source, budget, exe)
                for threads in args.threads:
                    r = run_tad(exe, inputs, core, threads, args.repeat, tmp)
                    rows.append(dict(r, side=side, threads=threads,
                                     budget=budget or "store-all"))
                if top is None:
                    top, results = r["peak"], r["results"]
                    middle = results + (top - results) // 2
                    below = "below" if results > top // 2 else "above"
                    print(f"{side}: store-all peak {top} bytes, of which "
                          f"{results} ({100 * results / top:.0f}%) are the "
                          f"results; half the peak, {top // 2}, is {below} "
                          f"them; the half budget (the results and half the "
                          f"memory above them): {middle}; tadc's minimum: "
                          f"{minimum or top}")
                    if minimum and minimum < top:
                        budgets = [top - (top - minimum) * k // args.budgets
                                   for k in range(1, args.budgets + 1)]
                    if minimum and minimum <= middle < top:
                        budgets = sorted(set(budgets) | {middle},
                                         reverse=True)
        for threads in args.threads:
            checkpointed = run_torch(script, "checkpointed", core, threads,
                                     args.repeat)
            # The machine is shared and drifts by 10 to 20% over minutes:
            # tad's store-all steps and PyTorch eager's alternate, and
            # each side's time is the median of its rounds.
            times = {}
            for _ in range(args.rounds):
                for form, exe in store_all.items():
                    r = run_tad(exe, prepared[form][1], core, threads,
                                args.repeat, tmp)
                    times.setdefault(form, []).append(r["seconds"])
                for form, (_, exe) in half.items():
                    r = run_tad(exe, prepared[form][1], core, threads,
                                args.repeat, tmp)
                    times.setdefault(("half", form), []).append(r["seconds"])
                r = run_torch(script, "eager", core, threads, args.repeat)
                times.setdefault(None, []).append(r["seconds"])
                eager = r
            rows.append(dict(eager, side="PyTorch", threads=threads,
                             budget="-", seconds=median(times[None])))
            rows.append(dict(checkpointed, side="PyTorch checkpointed",
                             threads=threads, budget="-"))
            for form in store_all:
                side = "tad" if len(forms) == 1 else f"tad {form}"
                for row in rows:
                    if row["side"] != side or row["threads"] != threads:
                        continue
                    if row["budget"] == "store-all":
                        row["seconds"] = median(times[form])
                    elif form in half and row["budget"] == half[form][0]:
                        row["seconds"] = median(times[("half", form)])
                        row["half"] = True
    for r in rows:
        if r["core"] != core:
            sys.exit(f"{name}: {r['side']} ran OpenBLAS's {r['core']} "
                     f"kernels, not {core}")
    reference = rows[0]["loss"]
    for r in rows:
        if abs(r["loss"] - reference) > 1e-4 * abs(reference):
            sys.exit(f"{name}: {r['side']} at {r['budget']} computed loss "
                     f"{r['loss']}, {rows[0]['side']} at store-all "
                     f"{reference}")
    for threads in args.threads:
        mine = [r for r in rows if r["threads"] == threads]
        eager = next(r for r in mine if r["side"] == "PyTorch")
        print(f"\n{threads} thread(s), loss {reference:.6g} on every side "
              f"(within 1e-4); tad's store-all, its half budget and "
              f"PyTorch eager: the median of {args.rounds} interleaved "
              f"rounds:\n")
        print("| side | budget | peak bytes | step | vs PyTorch eager "
              "| vs its store-all |")
        print("| --- | --- | --- | --- | --- | --- |")
        for r in mine:
            own = next(o for o in mine if o["side"] == r["side"])
            budget = f"{r['budget']} (half)" if r.get("half") else r["budget"]
            print(f"| {r['side']} | {budget} | {r['peak']} | "
                  f"{r['seconds'] * 1e3:.1f} ms | "
                  f"{r['seconds'] / eager['seconds']:.2f}x | "
                  f"{r['seconds'] / own['seconds']:.2f}x |")
    if args.plot:
        os.makedirs(os.path.dirname(args.plot), exist_ok=True)
        plot(name, rows, args.plot)
        print(f"\nplot: {os.path.relpath(args.plot, ROOT)}")
    if args.json:
        write_json(args.json, f"the {name} gradient step against PyTorch "
                   "1.13", rows, blas_core=core, rounds=args.rounds,
                   repeat=args.repeat)
