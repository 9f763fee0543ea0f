#!/usr/bin/env python3
"""The gradient step of examples/gpt under the remat pass's overhead policy
(--remat-overhead=P%, docs/remat.md): for each bound, the budget it chose,
the allocator's peak, the predicted recompute overhead and the measured
one, against the same step compiled without a budget (store-all), and
PyTorch 1.13 eager's peak (as bench/gpt/step.py measures it).

    /usr/bin/python3 bench/gpt/overhead.py [--bounds 0%,1%,2%,5%]
        [--rounds 15] [--repeat 20] [--threads N] [--json FILE]

One thread (`--threads`: the runtime's pool, OpenBLAS on one thread as
the runtime runs it); the compiled call alone is timed (`m.stats["seconds"]`), the
sides alternating in rounds of `repeat` steps, each side's time the median
of all its steps. The measured overhead is a side's median over store-all's
less one. Writes JSON with the CPU model and the date.
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import step as gpt_step  # noqa: E402

common = gpt_step.common


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bounds", default="0%,1%,2%,5%")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default=os.path.join(HERE, "overhead.json"))
    args = ap.parse_args()

    tad, torch, _, vocab, params, ids, targets = gpt_step.setup(args)
    bounds = [b for b in args.bounds.split(",") if b]
    models = {"store-all": common.compile_gpt(tad, vocab, budget="store-all")}
    for bound in bounds:
        models[bound] = common.compile_gpt(tad, vocab,
                                           budget=f"overhead:{bound}")
    steps = {}
    for name, m in models.items():
        m.set_num_threads(args.threads)
        steps[name] = gpt_step.tad_step(m, params, ids, targets, 0.1)
    calls = {name: [] for name in steps}
    for step, _ in steps.values():  # warm-up
        for _ in range(3):
            step()
    for _ in range(args.rounds):
        for name, (step, last) in steps.items():
            for _ in range(args.repeat):
                step()
                calls[name].append(last["call"])
    base_ms = 1e3 * float(np.median(calls["store-all"]))
    rows = []
    for name, (_, last) in steps.items():
        median_ms = 1e3 * float(np.median(calls[name]))
        row = {"side": name, "median_call_ms": median_ms,
               "p10_ms": 1e3 * float(np.percentile(calls[name], 10)),
               "p90_ms": 1e3 * float(np.percentile(calls[name], 90)),
               "peak_bytes": last["peak"], "loss": last["loss"],
               "measured_overhead": median_ms / base_ms - 1}
        report = models[name].report
        if report:
            f = report["functions"][0]
            row.update(budget=f["budget"],
                       predicted_peak=f["predicted_peak"],
                       predicted_overhead=f["recompute_overhead"])
        rows.append(row)
    torch_peak = gpt_step.torch_peak(0.1)
    record = {"benchmark": "examples/gpt gradient step under the overhead "
                           f"policy, {args.threads} thread(s)",
              "command": "/usr/bin/python3 bench/gpt/overhead.py "
                         f"--bounds {args.bounds} --rounds {args.rounds} "
                         f"--repeat {args.repeat} --threads {args.threads}",
              "machine": common.machine(),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "torch": torch.__version__, "threads": args.threads,
              "torch_peak_bytes": torch_peak, "rows": rows}
    print(f"{'side':10} {'call ms':>8} {'peak':>9} {'x torch':>7} "
          f"{'predicted':>9} {'measured':>8}")
    for r in rows:
        predicted = r.get("predicted_overhead")
        print(f"{r['side']:10} {r['median_call_ms']:8.3f} "
              f"{r['peak_bytes']:9d} {r['peak_bytes'] / torch_peak:7.2f} "
              f"{'' if predicted is None else f'{100 * predicted:8.1f}%'}"
              f"{100 * r['measured_overhead']:8.1f}%")
    print(f"PyTorch eager peak: {torch_peak}")
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
