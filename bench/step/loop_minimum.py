#!/usr/bin/env python3
"""The transformer of transformer.py as a loop and unrolled, each at its
store-all peak and at the feasible minimum tadc names for it: the budget
and the step of the loop form against the unrolled form's (issue 19 asks
for both within 10%), at 1 thread and at every core.

Both forms' executables are compiled once; the four of them then run in
`--rounds` interleaved rounds per thread count (the machine drifts over
minutes), each round taking every executable's median of `--repeat`
steps. Printed per thread count: each executable's median over the
rounds, and the median over the rounds of the ratio of the loop form's
step to the unrolled form's at the two minima (both ratios come from the
same round, so a drift that moves both cancels).

    /usr/bin/python3 bench/step/loop_minimum.py [--rounds 9] [--repeat 7]
        [--json FILE]

`--json` also writes those rows and ratios, with the machine, the date and
the kernels (docs/results.md shows them).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402
import transformer  # noqa: E402

memory = suite.memory


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, nargs="*",
                    default=[1, os.cpu_count()])
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    core = suite.tad_core()
    print(f"{suite.machine()}; OpenBLAS core {core}")
    rows, ratio_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        runs, minima = {}, {}
        for form, unrolled in (("loop", False), ("unrolled", True)):
            source, inputs = suite.prepare(
                tmp, form,
                transformer.value_and_grad(
                    memory.transformer_source(unrolled)),
                transformer.inputs_of(form))
            minima[form] = memory.tad_minimum(source, "net_value_and_grad")
            if minima[form] is None:
                sys.exit(f"tadc named no minimum for the {form} form")
            for budget in (None, minima[form]):
                exe = os.path.join(tmp, f"{form}_{budget}")
                suite.compile_tad(source, budget, exe)
                runs[(form, budget)] = (exe, inputs)
        print(f"minima: loop {minima['loop']} bytes, unrolled "
              f"{minima['unrolled']}: "
              f"{minima['loop'] / minima['unrolled']:.3f}x")
        for threads in args.threads:
            times = {key: [] for key in runs}
            peaks, ratios = {}, []
            for _ in range(args.rounds):
                for key, (exe, inputs) in runs.items():
                    result = suite.run_tad(exe, inputs, core, threads,
                                           args.repeat, tmp)
                    times[key].append(result["seconds"])
                    peaks[key] = result["peak"]
                ratios.append(times[("loop", minima["loop"])][-1] /
                              times[("unrolled", minima["unrolled"])][-1])
            print(f"\n{threads} thread(s), the median of {args.rounds} "
                  f"interleaved rounds:\n")
            print("| form | budget | peak bytes | step |")
            print("| --- | --- | --- | --- |")
            for (form, budget), samples in times.items():
                print(f"| {form} | {budget or 'store-all'} | "
                      f"{peaks[(form, budget)]} | "
                      f"{median(samples) * 1e3:.1f} ms |")
                rows.append({"threads": threads, "form": form,
                             "budget": budget or "store-all",
                             "peak": peaks[(form, budget)],
                             "seconds": median(samples)})
            print(f"\nloop at its minimum over unrolled at its minimum: "
                  f"{median(ratios):.3f}x (rounds: "
                  f"{min(ratios):.3f} to {max(ratios):.3f})")
            ratio_rows.append({"threads": threads, "median": median(ratios),
                               "low": min(ratios), "high": max(ratios)})
    if args.json:
        suite.write_json(args.json, "the transformer's loop form against "
                         "its unrolled form, each at its minimum", rows,
                         blas_core=core, rounds=args.rounds,
                         repeat=args.repeat, minima=minima,
                         ratios=ratio_rows)


if __name__ == "__main__":
    main()
