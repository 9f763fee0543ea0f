#!/usr/bin/env python3
"""Store-all memory and step time of three gradient workloads, tad against
PyTorch 1.13 eager on the CPU, and each workload's loop form against its
unrolled form (docs/results.md shows the results):

  - resnet: 64 residual blocks h + tanh(h @ w + b), width 256, batch 128;
  - transformer: 4 pre-LayerNorm blocks (d = 256, 4 heads, seq = 128,
    MLP 4x) and a mean-square loss;

each written as a `for` loop over stacked weights (`ws[i]`) and unrolled
with one parameter per layer (as PyTorch gets them: a ModuleList).

tad's peak is the runtime allocator's (`tadc run --stats-json`: the bytes
of the buffers a gradient call allocates and has not freed, at most; the
inputs are the caller's and not counted, the gradients are). PyTorch's is
measured the same way: torch.profiler with profile_memory=True records
every CPU allocation and free during one step (forward, loss, backward with
the weights' .grad set to None first) as a memory event; the peak is the
largest running sum of those, so the inputs and weights allocated before
the step are not counted and the gradients are. Each PyTorch peak is
measured in a process of its own, whose first profile it is, with garbage
collection off during it: the profiler reports the free of a block that an
earlier profile saw allocated, and such frees (the previous step's
gradients, a previous workload's garbage) made repeated measurements in
one process range from 11.7 to 17.6 MB for the same transformer step.
The minimum budget is the one tadc names below it (`--remat-budget=1`).
The loop forms' predicted recompute overhead is
the remat report's (the reverse sweep runs each iteration's body again);
their measured overhead is their step time over the unrolled form's, which
computes everything once. Step times on a shared machine drift by tens of
percent between runs, so the overhead is measured in interleaved rounds
(`--rounds`): each round times the loop form and then the unrolled form
(`--repeat` steps each), and the overhead is the median of the rounds'
ratios. It is measured twice: with the loop at store-all (the report
counts the reverse sweep's reruns of the body) and at the loop's minimum
budget (which also recomputes inside the reverse loop's body).

The last table compares the least memory each side reaches: tad's loop
and unrolled forms at the minimum budget tadc names, and PyTorch with
torch.utils.checkpoint (non-reentrant) around every block.

    OPENBLAS_NUM_THREADS=1 python3 bench/memory/run.py [--repeat N]
        [--rounds N] [--workload resnet|transformer] [--no-torch]
        [--no-minimum] [--write-sources DIR] [--json FILE]

`--json` also writes the tables' rows, with the machine, the date and the
OpenBLAS kernel tad's runtime ran (docs/results.md shows them).
"""
import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import TADC, tadc_run, write_json  # noqa: E402

WIDTH, BATCH, DEPTH = 256, 128, 64
D, SEQ, HEADS, BLOCKS = 256, 128, 4, 4
NAMES = ["g1", "b1", "wq", "wk", "wv", "wo", "g2", "b2", "wu", "wd"]
# tad's store-all compile (without a flag, tadc runs the overhead policy).
STORE_ALL = ("--remat-budget=store-all",)


def resnet_source(unrolled):
    if unrolled:
        # One weight and bias per block: the same parameters, unstacked.
        params = ", ".join(f"w{i}: f32[{WIDTH}, {WIDTH}], b{i}: f32[{WIDTH}]"
                           for i in range(DEPTH))
        body = "".join(f"  h = h + tanh(h @ w{i} + b{i});\n"
                       for i in range(DEPTH))
        wrt = ", ".join(f"w{i}, b{i}" for i in range(DEPTH))
    else:
        params = (f"ws: f32[{DEPTH}, {WIDTH}, {WIDTH}], "
                  f"bs: f32[{DEPTH}, {WIDTH}]")
        body = (f"  for i in 0..{DEPTH} {{\n"
                "    h = h + tanh(h @ ws[i] + bs[i]);\n  }\n")
        wrt = "ws, bs"
    return (f"fn net(x: f32[{BATCH}, {WIDTH}], {params}) -> f32 {{\n"
            "  let h = x;\n" + body + "  return mean(h * h);\n}\n"
            f"fn net_grad = grad(net, wrt: [{wrt}]);\n")


def transformer_source(unrolled):
    dh = D // HEADS
    up = 4 * D
    stacked = (f"g1: f32[{BLOCKS}, {D}], b1: f32[{BLOCKS}, {D}], "
               f"wq: f32[{BLOCKS}, {D}, {D}], wk: f32[{BLOCKS}, {D}, {D}], "
               f"wv: f32[{BLOCKS}, {D}, {D}], wo: f32[{BLOCKS}, {D}, {D}], "
               f"g2: f32[{BLOCKS}, {D}], b2: f32[{BLOCKS}, {D}], "
               f"wu: f32[{BLOCKS}, {D}, {up}], wd: f32[{BLOCKS}, {up}, {D}]")
    helpers = f"""
fn layer_norm(x: f32[{SEQ}, {D}], gain: f32[{D}], bias: f32[{D}]) -> f32[{SEQ}, {D}] {{
  let mu = mean(x, axes: [1], keepdims: true);
  let d = x - mu;
  let var = mean(d * d, axes: [1], keepdims: true);
  return d * rsqrt(var + 1e-5) * gain + bias;
}}
fn heads(x: f32[{SEQ}, {D}]) -> f32[{HEADS}, {SEQ}, {dh}] {{
  return transpose(reshape(x, [{SEQ}, {HEADS}, {dh}]), perm: [1, 0, 2]);
}}
fn block(x: f32[{SEQ}, {D}], g1: f32[{D}], b1: f32[{D}], wq: f32[{D}, {D}],
         wk: f32[{D}, {D}], wv: f32[{D}, {D}], wo: f32[{D}, {D}],
         g2: f32[{D}], b2: f32[{D}], wu: f32[{D}, {up}],
         wd: f32[{up}, {D}]) -> f32[{SEQ}, {D}] {{
  let n = layer_norm(x, g1, b1);
  let q = heads(n @ wq);
  let k = heads(n @ wk);
  let v = heads(n @ wv);
  let p = softmax(q @ transpose(k, perm: [0, 2, 1]) * {1 / dh ** 0.5}, axis: -1);
  let o = reshape(transpose(p @ v, perm: [1, 0, 2]), [{SEQ}, {D}]);
  let h = x + o @ wo;
  let u = layer_norm(h, g2, b2) @ wu;
  return h + (u * sigmoid(1.702 * u)) @ wd;
}}
"""
    if unrolled:
        # One set of parameters per block: the same parameters, unstacked.
        shapes = {"g1": [D], "b1": [D], "wq": [D, D], "wk": [D, D],
                  "wv": [D, D], "wo": [D, D], "g2": [D], "b2": [D],
                  "wu": [D, up], "wd": [up, D]}
        params = ", ".join(f"{n}_{i}: f32{shapes[n]}" for i in range(BLOCKS)
                           for n in NAMES)
        body = "".join("  h = block(h, " + ", ".join(
            f"{n}_{i}" for n in NAMES) + ");\n" for i in range(BLOCKS))
        wrt = ", ".join(f"{n}_{i}" for i in range(BLOCKS) for n in NAMES)
    else:
        params = stacked
        body = (f"  for i in 0..{BLOCKS} {{\n    h = block(h, " +
                ", ".join(f"{n}[i]" for n in NAMES) + ");\n  }\n")
        wrt = ", ".join(NAMES)
    return (helpers + f"fn net(x: f32[{SEQ}, {D}], {params}) -> f32 {{\n"
            "  let h = x;\n" + body + "  return mean(h * h);\n}\n"
            f"fn net_grad = grad(net, wrt: [{wrt}]);\n")


def tad_minimum(source, entry="net_grad"):
    """The feasible minimum that tadc names below it (None if none)."""
    proc = subprocess.run([TADC, source, "--emit=ad", "--entry", entry,
                           "--remat-budget=1"], capture_output=True,
                          text=True)
    match = re.search(r"the feasible minimum is (\d+) bytes", proc.stderr)
    return int(match.group(1)) if match else None


def tad_predicted_overhead(source, budget="1TiB"):
    """The remat report's recompute overhead at `budget` (by default one
    that keeps everything: for a loop, the reverse sweep's run of every
    iteration's body)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([TADC, source, "--emit=ad", "--entry", "net_grad",
                        f"--remat-budget={budget}", f"--remat-report={report}"],
                       check=True, capture_output=True)
        with open(report) as f:
            return json.load(f)["functions"][0]["recompute_overhead"]


def measured_overhead(loop, unrolled, rounds, repeat, loop_extra=()):
    """The loop form's step over the unrolled form's, less one: the median
    over interleaved rounds of the ratio of their median steps."""
    ratios = []
    for _ in range(rounds):
        a = tadc_run(loop, "net_grad", repeat, extra=loop_extra or STORE_ALL)
        b = tadc_run(unrolled, "net_grad", repeat, extra=STORE_ALL)
        ratios.append(a["median_seconds"] / b["median_seconds"])
    ratios.sort()
    return ratios[len(ratios) // 2] - 1


# --- PyTorch -------------------------------------------------------------

# PyTorch gets one parameter tensor per layer, as a torch.nn.ModuleList
# would hold them: indexing one stacked tensor instead makes autograd
# allocate a zero-filled gradient of the whole stack for every index.

def checkpoint_of(checkpointed):
    """How a block runs: as it is, or under torch.utils.checkpoint (the
    non-reentrant form, which needs no input that requires grad)."""
    if not checkpointed:
        return lambda block, *args: block(*args)
    import torch.utils.checkpoint as ckpt
    return lambda block, *args: ckpt.checkpoint(block, *args,
                                                use_reentrant=False)


def torch_resnet(torch, checkpointed=False):
    run = checkpoint_of(checkpointed)
    g = torch.Generator().manual_seed(0)
    x = torch.rand(BATCH, WIDTH, generator=g) - 0.5
    ws = [((torch.rand(WIDTH, WIDTH, generator=g) - 0.5) * 0.1
           ).requires_grad_() for _ in range(DEPTH)]
    bs = [(torch.rand(WIDTH, generator=g) - 0.5).requires_grad_()
          for _ in range(DEPTH)]

    def step():
        for t in ws + bs:
            t.grad = None
        h = x
        for w, b in zip(ws, bs):
            h = run(lambda h, w, b: h + torch.tanh(h @ w + b), h, w, b)
        (h * h).mean().backward()
    return step


def torch_transformer_block(torch):
    """The transformer block of transformer_source, in PyTorch: the block
    takes h and the parameters named by NAMES, in that order."""
    dh = D // HEADS

    def layer_norm(v, gain, bias):
        mu = v.mean(1, keepdim=True)
        d = v - mu
        var = (d * d).mean(1, keepdim=True)
        return d * torch.rsqrt(var + 1e-5) * gain + bias

    def heads(v):
        return v.reshape(SEQ, HEADS, dh).transpose(0, 1)

    def block(h, g1, b1, wq, wk, wv, wo, g2, b2, wu, wd):
        n = layer_norm(h, g1, b1)
        q, k, v = (heads(n @ w) for w in (wq, wk, wv))
        a = torch.softmax(q @ k.transpose(1, 2) * (1 / dh ** 0.5), -1)
        o = (a @ v).transpose(0, 1).reshape(SEQ, D)
        h = h + o @ wo
        u = layer_norm(h, g2, b2) @ wu
        return h + (u * torch.sigmoid(1.702 * u)) @ wd
    return block


def torch_transformer(torch, checkpointed=False):
    run = checkpoint_of(checkpointed)
    g = torch.Generator().manual_seed(0)

    def param(*shape, scale=0.05):
        return ((torch.rand(*shape, generator=g) - 0.5) * scale
                ).requires_grad_()
    x = torch.rand(SEQ, D, generator=g) - 0.5
    layers = [dict(g1=param(D, scale=1.0), b1=param(D), wq=param(D, D),
                   wk=param(D, D), wv=param(D, D), wo=param(D, D),
                   g2=param(D, scale=1.0), b2=param(D), wu=param(D, 4 * D),
                   wd=param(4 * D, D)) for _ in range(BLOCKS)]
    block = torch_transformer_block(torch)

    def step():
        for p in layers:
            for t in p.values():
                t.grad = None
        h = x
        for p in layers:
            h = run(block, h, *(p[n] for n in NAMES))
        (h * h).mean().backward()
    return step


def torch_peak_here(torch, step):
    """The largest running sum of CPU allocations minus frees in one step,
    from the profiler's memory events (one per allocation and free, in
    the order they happened). The profiler reports the free of a block
    that an earlier profiled run allocated, so this must be the process's
    first profile, with no garbage collection during it: torch_peak runs
    it in a process of its own."""
    step()  # warm-up
    gc.collect()
    gc.disable()
    with torch.profiler.profile(activities=[
            torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    gc.enable()
    events = [(e.start_us(), i, e.nbytes()) for i, e in
              enumerate(prof.profiler.kineto_results.events())
              if e.name() == "[memory]"]
    live = peak = 0
    for _, _, nbytes in sorted(events):
        live += nbytes
        peak = max(peak, live)
    return peak


def torch_peak(workload, checkpointed):
    """torch_peak_here in a fresh process (`--torch-peak`)."""
    args = [sys.executable, os.path.abspath(__file__), "--torch-peak",
            workload] + (["--checkpointed"] if checkpointed else [])
    proc = subprocess.run(args, check=True, capture_output=True, text=True)
    return int(proc.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--workload", choices=["resnet", "transformer"])
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-minimum", action="store_true")
    ap.add_argument("--torch-peak", metavar="WORKLOAD",
                    help=argparse.SUPPRESS)
    ap.add_argument("--checkpointed", action="store_true",
                    help=argparse.SUPPRESS)
    ap.add_argument("--write-sources", metavar="DIR",
                    help="write the four programs (NAME_FORM.tad) to DIR "
                    "and stop")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    if args.torch_peak:
        import torch
        torch.set_num_threads(1)
        of = {"resnet": torch_resnet, "transformer": torch_transformer}
        print(torch_peak_here(torch, of[args.torch_peak](
            torch, checkpointed=args.checkpointed)))
        return
    if args.write_sources:
        os.makedirs(args.write_sources, exist_ok=True)
        for name, source_of in (("resnet", resnet_source),
                                ("transformer", transformer_source)):
            for form in ("loop", "unrolled"):
                with open(os.path.join(args.write_sources,
                                       f"{name}_{form}.tad"), "w") as f:
                    f.write(source_of(form == "unrolled"))
        return
    torch = None
    if not args.no_torch:
        import torch
        torch.set_num_threads(1)
    from common import median_seconds  # noqa: E402
    workloads = {"resnet": (resnet_source, torch_resnet),
                 "transformer": (transformer_source, torch_transformer)}
    print("| workload | form | tad peak | tad minimum budget | tad step |")
    print("| --- | --- | --- | --- | --- |")
    peers, overheads, least = [], [], []
    # The same rows as the tables, for --json.
    record = {"rows": [], "overheads": [], "pytorch": [], "least": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (source_of, torch_of) in workloads.items():
            if args.workload and name != args.workload:
                continue
            sources, minima, peaks = {}, {}, {}
            for form in ("loop", "unrolled"):
                source = os.path.join(tmp, f"{name}_{form}.tad")
                with open(source, "w") as f:
                    f.write(source_of(form == "unrolled"))
                sources[form] = source
                stats = tadc_run(source, "net_grad", args.repeat,
                                 extra=STORE_ALL)
                peaks[form] = stats["peak_bytes"]
                minima[form] = (None if args.no_minimum
                                else tad_minimum(source))
                print(f"| {name} | {form} | {stats['peak_bytes']} | "
                      f"{minima[form] or '-'} | "
                      f"{stats['median_seconds'] * 1e3:.1f} ms |", flush=True)
                record["rows"].append({
                    "workload": name, "form": form,
                    "peak_bytes": stats["peak_bytes"],
                    "minimum_budget": minima[form],
                    "seconds": stats["median_seconds"]})
                record["blas_core"] = stats["blas_core"]
            # The unrolled form computes everything once: the loop's
            # measured overhead is its step over the unrolled one's.
            loop, unrolled = sources["loop"], sources["unrolled"]
            rows = [("store-all", "1TiB", ())]
            # (A loop whose minimum is its store-all peak has one row.)
            if minima["loop"] and minima["loop"] < peaks["loop"]:
                rows.append((f"minimum ({minima['loop']})", minima["loop"],
                             (f"--remat-budget={minima['loop']}",)))
            for form in ("loop", "unrolled"):
                if minima[form]:
                    stats = tadc_run(sources[form], "net_grad", args.repeat,
                                     extra=(f"--remat-budget={minima[form]}",))
                    least.append(f"| {name} | tad {form} at its minimum "
                                 f"budget | {stats['peak_bytes']} | "
                                 f"{stats['median_seconds'] * 1e3:.1f} ms |")
                    record["least"].append({
                        "workload": name,
                        "side": f"tad {form} at its minimum budget",
                        "peak_bytes": stats["peak_bytes"],
                        "seconds": stats["median_seconds"]})
            for label, budget, extra in rows:
                predicted = tad_predicted_overhead(loop, budget)
                measured = measured_overhead(loop, unrolled, args.rounds,
                                             args.repeat, extra)
                overheads.append(
                    f"| {name} | {label} | {100 * predicted:.1f}% | "
                    f"{100 * measured:.1f}% |")
                record["overheads"].append({
                    "workload": name, "loop_budget": label,
                    "predicted_overhead": predicted,
                    "measured_overhead": measured})
            if torch is not None:
                step = torch_of(torch)
                peak, seconds = (torch_peak(name, False),
                                 median_seconds(step, args.repeat))
                peers.append(f"| {name} | {peak} | {seconds * 1e3:.1f} ms |")
                record["pytorch"].append({"workload": name,
                                          "peak_bytes": peak,
                                          "seconds": seconds})
                step = torch_of(torch, checkpointed=True)
                side = "PyTorch, torch.utils.checkpoint on every block"
                peak, seconds = (torch_peak(name, True),
                                 median_seconds(step, args.repeat))
                least.append(f"| {name} | {side} | {peak} | "
                             f"{seconds * 1e3:.1f} ms |")
                record["least"].append({"workload": name, "side": side,
                                        "peak_bytes": peak,
                                        "seconds": seconds})
    print("\n| workload | loop budget | predicted overhead | measured "
          "overhead |\n| --- | --- | --- | --- |")
    print("\n".join(overheads))
    if peers:
        print("\n| workload | PyTorch peak | PyTorch step |\n| --- | --- | --- |")
        print("\n".join(peers))
    if least:
        print("\n| workload | the least memory | peak | step |\n"
              "| --- | --- | --- | --- |")
        print("\n".join(least))
    if args.json:
        write_json(args.json, "store-all memory and step time against "
                   "PyTorch 1.13 eager, one thread", record.pop("rows"),
                   env="OPENBLAS_NUM_THREADS=1", repeat=args.repeat,
                   rounds=args.rounds, **record)


if __name__ == "__main__":
    main()
