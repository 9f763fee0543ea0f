#!/usr/bin/env python3
"""The gradient step of examples/gpt (a character-level GPT: batch 16 x 32
tokens, 2 blocks, d_model 64, 4 heads, vocabulary 76), tad against its
PyTorch twin (examples/gpt/torch_twin.py), on one thread each, in one
process: the sides' steps alternate in rounds, and each side's time is
the median of all its steps.

    /usr/bin/python3 bench/gpt/step.py [--rounds 15] [--repeat 20] [--json FILE]

A step is the loss and every parameter's gradient from the parameters and
a batch of token ids; the optimizer is not in it.

- tad: `train_step` of gpt.tad through the Python package (the whole
  Python call: checking and passing 41 inputs, 38 outputs), and the
  compiled call alone (`m.stats["seconds"]`, the library's function).
- PyTorch 1.13 eager: zero_grad(set_to_none=True), forward, backward.

Configurations: dropout 0.1 on both sides; dropout off, PyTorch with p = 0
and tad with pdrop = 0 (tad still draws the masks: p is an input); and
tad with `dropout` shadowed by an identity function (the program without
dropout); and tad at dropout 0.1 compiled under a memory budget equal to
PyTorch's measured peak (the remat pass recomputes what does not fit,
docs/remat.md). Peaks: tad's is the runtime allocator's (m.stats["peak_bytes"]:
every buffer the call allocates, its results included, its inputs not,
docs/memory.md); PyTorch's is the largest running sum of the CPU
allocations minus frees of one step in the profiler's memory events (as
bench/memory/run.py measures it), in a process of its own. Writes JSON
with the CPU model (/proc/cpuinfo) and the date.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples", "gpt"))
import common  # noqa: E402

# `dropout` shadowed by a function of the program (language.md: a
# function may take a builtin's name): the model without dropout.
NO_DROPOUT = """
fn dropout[E: type, ...](x: E[...], p: E, key: i64) -> E[...] {
  return x;
}
"""


def setup(args):
    tad = common.setup_tad()
    import torch
    import torch_twin
    torch.set_num_threads(1)
    chars, train, _ = common.load_text()
    vocab = len(chars)
    params = common.init_params(vocab, 0)
    ids, targets = common.Batches(train, 0).next()
    return tad, torch, torch_twin, vocab, params, ids, targets


def tad_step(m, params, ids, targets, pdrop):
    inputs = dict(common.leaf_inputs(params), ids=ids, targets=targets,
                  key=np.array(1, np.int64), pdrop=np.array(pdrop, np.float32))
    last = {}

    def step():
        last["loss"] = float(m.train_step(**inputs).value)
        last["call"] = m.stats["seconds"]
        last["peak"] = m.stats["peak_bytes"]
    return step, last


def torch_step(torch, torch_twin, vocab, params, ids, targets, pdrop):
    model = torch_twin.make(vocab, params, pdrop)
    ids_t, targets_t = torch.from_numpy(ids), torch.from_numpy(targets)
    last = {}

    def step():
        model.zero_grad(set_to_none=True)
        loss = model(ids_t, targets_t)
        loss.backward()
        last["loss"] = loss.item()
    return step, last


def torch_peak(pdrop):
    """PyTorch's peak for one step, in a fresh process (the profiler's
    memory events are right for a process's first profile only)."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__),
                          "--torch-peak", str(pdrop)], check=True,
                         capture_output=True, text=True)
    return int(out.stdout.split()[-1])


def torch_peak_child(pdrop):
    import gc
    tad, torch, torch_twin, vocab, params, ids, targets = setup(None)
    step, _ = torch_step(torch, torch_twin, vocab, params, ids, targets,
                         pdrop)
    step()
    step()
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
    print(peak)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--repeat", type=int, default=20,
                    help="steps of a side in a row, each timed")
    ap.add_argument("--json", default=os.path.join(HERE, "step.json"))
    ap.add_argument("--torch-peak", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_peak is not None:
        return torch_peak_child(args.torch_peak)

    tad, torch, torch_twin, vocab, params, ids, targets = setup(args)
    # Store-all (without a budget, tadc runs its overhead policy:
    # bench/gpt/overhead.py measures that).
    m = common.compile_gpt(tad, vocab, budget="store-all")
    m.set_num_threads(1)
    with open(common.SOURCE) as f:
        m_off = common.compile_gpt(tad, vocab, source=f.read() + NO_DROPOUT,
                                   budget="store-all")
    m_off.set_num_threads(1)
    peaks = {"PyTorch, dropout 0.1": torch_peak(0.1),
             "PyTorch, dropout 0": torch_peak(0.0)}
    # tad under a memory budget: PyTorch's peak (the remat pass recomputes
    # what does not fit, docs/remat.md).
    budget = peaks["PyTorch, dropout 0.1"]
    m_budget = common.compile_gpt(tad, vocab, budget=budget)
    m_budget.set_num_threads(1)
    sides = {
        "tad, dropout 0.1": tad_step(m, params, ids, targets, 0.1),
        "PyTorch, dropout 0.1": torch_step(torch, torch_twin, vocab, params,
                                           ids, targets, 0.1),
        "tad, pdrop = 0": tad_step(m, params, ids, targets, 0.0),
        "tad, no dropout (shadowed)": tad_step(m_off, params, ids, targets,
                                               0.0),
        "PyTorch, dropout 0": torch_step(torch, torch_twin, vocab, params,
                                         ids, targets, 0.0),
        "tad, dropout 0.1, budget": tad_step(m_budget, params, ids, targets,
                                             0.1),
    }
    times = {k: [] for k in sides}
    calls = {k: [] for k in sides}
    for step, _ in sides.values():  # warm-up
        for _ in range(3):
            step()
    for r in range(args.rounds):
        for name, (step, last) in sides.items():
            for _ in range(args.repeat):
                start = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - start)
                if "call" in last:
                    calls[name].append(last["call"])
    rows = []
    for name, (step, last) in sides.items():
        row = {"side": name,
               "median_ms": 1e3 * float(np.median(times[name])),
               "p10_ms": 1e3 * float(np.percentile(times[name], 10)),
               "p90_ms": 1e3 * float(np.percentile(times[name], 90)),
               "steps": len(times[name]), "loss": last["loss"]}
        if calls[name]:
            row["median_call_ms"] = 1e3 * float(np.median(calls[name]))
            row["peak_bytes"] = last["peak"]
        else:
            row["peak_bytes"] = peaks[name]
        rows.append(row)
    record = {"benchmark": "examples/gpt gradient step, one thread",
              "command": "/usr/bin/python3 bench/gpt/step.py "
                         f"--rounds {args.rounds} --repeat {args.repeat}",
              "machine": common.machine(),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "torch": torch.__version__, "numpy": np.__version__,
              "threads": 1, "batch": [common.B, common.T],
              "budget_bytes": budget,
              "remat": {k: v for k, v in
                        m_budget.report["functions"][0].items()
                        if not isinstance(v, (list, dict))},
              "rows": rows}
    print(f"{'side':28} {'median ms':>9} {'p10':>6} {'p90':>6} "
          f"{'call ms':>8} {'peak MiB':>8}  loss")
    for r in rows:
        call = f"{r['median_call_ms']:8.2f}" if "median_call_ms" in r \
            else f"{'':8}"
        print(f"{r['side']:28} {r['median_ms']:9.2f} {r['p10_ms']:6.2f} "
              f"{r['p90_ms']:6.2f} {call} "
              f"{r['peak_bytes'] / 2**20:8.2f}  {r['loss']:.6f}")
    r = record["remat"]
    print(f"budget {budget} bytes (PyTorch's peak at dropout 0.1): predicted "
          f"peak {r['predicted_peak']}, store-all {r['store_all_peak']}, "
          f"predicted recompute overhead {100 * r['recompute_overhead']:.1f}%")
    print(f"{record['machine']['cpu']}, {record['date']}")
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
