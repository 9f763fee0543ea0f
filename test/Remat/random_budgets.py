#!/usr/bin/env python3
"""Random gradient programs swept from their store-all peak down to the
feasible minimum that tadc names, as budgets.py sweeps the examples.

The programs come from test/AutoDiff/random_programs.py's generator, with
what most often broke budgets added: loops inside checkpoints,
@checkpoint functions holding loops, custom-rule (rrule) calls at the top
level and inside loops, branches and checkpoints, nested calls, and
value_and_grad's several outputs. For each
program and each budget (store-all, the named minimum, and one between):

  - the compile succeeds (at the named minimum too);
  - the allocator's measured peak is at most the budget;
  - it equals the buffer plan's peak, or is at most that when the plan is a
    bound (a branch on data), and then the report's timeline (the plan's
    run of the compiled code) equals the allocator's, event for event;
  - the results equal the store-all results bit for bit.

    random_budgets.py --tadc PATH --count N [--seed S] [--tadc-arg ARG]...

--tadc-arg passes an argument to every run (not to the search for the
minimum, which compiles for no target): `--target=cuda-emulator` sweeps
the budgets through the emulated GPU kernels, whose allocator's peak must
equal the CPU's plan as well.

Prints one line per program and a summary line; exits non-zero on any
failure.
"""
import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "AutoDiff"))
import random_programs  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import budgets  # noqa: E402  (timeline_difference)

HELPERS = random_programs.HELPERS + """
fn soft(z: f64[2, 3]) -> f64[2, 3] { return log(1.0 + exp(z)); }
rrule soft(z: f64[2, 3]) -> f64[2, 3] {
  forward { save z; return soft(z); }
  pullback(dy: f64[2, 3]) -> f64[2, 3] { return dy * sigmoid(z); }
}
@checkpoint
fn looped(h: f64[2, 3], w: f64[3, 3]) -> f64[2, 3] {
  let x = h;
  for k in 0..2 {
    x = tanh(x @ w) + x * 0.5;
  }
  return x;
}
fn outer(h: f64[2, 3], w: f64[3, 3]) -> f64[2, 3] {
  return cell(soft(h), w);
}
"""


class Generator(random_programs.Generator):
    """Adds the constructs of the module docstring to the AD generator."""

    def expr(self):
        if self.rng.random() < 0.3:
            return "looped(h, w)"
        return super().expr()

    def block(self, depth, indent):
        r = self.rng
        pad = "  " * indent
        lines = super().block(depth, indent)
        if depth == 0 or r.random() < 0.3:
            # Before or after the statements (lines of nested blocks lie
            # between), in the function's body or in a loop's, a branch's
            # or a checkpoint's.
            for _ in range(r.randint(1, 2)):
                call = f"{pad}h = " + r.choice(
                    ["soft(h)", "outer(h, w)", "soft(h @ w) - 0.5"]) + ";"
                lines = [call] + lines if r.random() < 0.5 else lines + [call]
        if depth < 3 and r.random() < 0.5:
            v = f"k{self.loop_vars}"
            self.loop_vars += 1
            lines += [f"{pad}checkpoint {{",
                      f"{pad}  for {v} in 0..2 {{",
                      f"{pad}    h = " + r.choice(["tanh", "soft"]) +
                      f"(h @ ws[{v}]) - 0.5;",
                      f"{pad}  }}",
                      f"{pad}}}"]
        return lines

    def program(self):
        source = super().program().replace(random_programs.HELPERS, HELPERS)
        if self.rng.random() < 0.5:
            source = source.replace("fn df = grad(f);",
                                    "fn df = value_and_grad(f);")
        return source


def run(tadc, source, budget, out, seed, extra=()):
    os.makedirs(out)
    stats, report = os.path.join(out, "stats.json"), os.path.join(
        out, "report.json")
    trace = os.path.join(out, "trace.json")
    args = [tadc, "run", source, "--entry", "df", f"--stats-json={stats}",
            f"--output-dir={out}", f"--remat-budget={budget}",
            f"--remat-report={report}", f"--memory-trace={trace}",
            f"--seed={seed}", *extra]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"{' '.join(args)} failed:\n{proc.stderr[-2000:]}"
    with open(stats) as f:
        data = json.load(f)
    with open(report) as f:
        fn = next(f for f in json.load(f)["functions"]
                  if f["function"] == "df")
    if data["planned_peak_exact"]:
        difference = budgets.timeline_difference(fn, trace)
        if difference:
            return None, f"{' '.join(args)}: {difference}"
    results = {os.path.basename(p): np.load(p)
               for p in sorted(glob.glob(os.path.join(out, "*.npy")))}
    return (data, fn, results), None


def minimum(tadc, source):
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", "df",
                           "--remat-budget=1"], capture_output=True,
                          text=True)
    match = re.search(r"the feasible minimum is (\d+) bytes", proc.stderr)
    return int(match.group(1)) if match and proc.returncode else None


def check(tadc, source, tmp, seed, extra=()):
    """Returns (number of budgets run, error or None)."""
    top, error = run(tadc, source, "1024GiB", os.path.join(tmp, "top"), seed,
                     extra)
    if error:
        return 0, error
    _, base, reference = top
    low = minimum(tadc, source)
    if low is None:
        return 0, "no feasible minimum in the error of budget 1"
    high = base["store_all_peak"]
    budgets = sorted({high, low, (high + low) // 2}, reverse=True)
    for i, budget in enumerate(budgets):
        got, error = run(tadc, source, budget, os.path.join(tmp, f"b{i}"),
                         seed, extra)
        if error:
            return i, f"budget {budget} (minimum {low}): {error}"
        data, _, results = got
        measured, planned = data["peak_bytes"], data["planned_peak_bytes"]
        line = f"budget {budget}: measured {measured}, planned {planned}"
        if measured > budget:
            return i, f"{line}: measured peak over the budget"
        if (measured != planned if data["planned_peak_exact"]
                else measured > planned):
            return i, f"{line}: measured peak differs from the plan"
        if results.keys() != reference.keys() or any(
                not np.array_equal(results[k], reference[k])
                for k in reference):
            return i, f"{line}: results differ from store-all"
    return len(budgets), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tadc", required=True)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tadc-arg", action="append", default=[])
    args = ap.parse_args()
    rng = random.Random(args.seed)
    failures = runs = 0
    for n in range(args.count):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, f"p{n}.tad")
            text = Generator(rng).program()
            with open(source, "w") as f:
                f.write(text)
            count, error = check(args.tadc, source, tmp, n, args.tadc_arg)
            runs += count
            if error:
                failures += 1
                print(f"FAIL program {n}: {error}\n{text}")
            else:
                print(f"PASS program {n}: {count} budgets")
    print(f"{args.count - failures} of {args.count} random programs within "
          f"their budgets at every one of {runs} runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
