#!/usr/bin/env python3
"""How compile time and memory grow with a program's width: tadc's wall
time and peak resident memory (the kernel's count for the tadc process,
os.wait4) for

  - a record of N fields (f32[4] each): the identity `fn same(p: R) -> R`
    and the gradient of the sum of its fields, at `--emit=obj`;
  - N instances of a generic function (`--instantiate=scale[B=i]`), and of
    the gradient of one, at `--emit=obj`.

    /usr/bin/python3 bench/compile/scale.py [--fields 1000 2000 5000]
        [--instances 250 1000 2000] [--repeat N] [--json FILE]
        [--timeout 300]

With --repeat N each row is compiled N times, the runs of a row one after
another, and shows the median time and the largest peak (the machines this
runs on vary by 10-30% from run to run).

Each row also says how the time grew against the row before it, over how
the size grew (1.0 is linear, 2.0 quadratic).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
from common import TADC, machine, write_json  # noqa: E402


def record_source(fields, gradient):
    names = [f"a{i}" for i in range(fields)]
    text = ("struct R { " + ", ".join(f"{n}: f32[4]" for n in names) +
            " }\n")
    if not gradient:
        return text + "fn same(p: R) -> R { return p; }\n"
    total = " + ".join(f"sum(p.{n} * p.{n})" for n in names[:1]) + "".join(
        f";\n  s = s + sum(p.{n} * p.{n})" for n in names[1:])
    return (text + "fn loss(p: R) -> f32 {\n  let s = " + total +
            ";\n  return s;\n}\nfn dloss = grad(loss, wrt: [p]);\n")


GENERIC = {
    "generic": "fn scale[B](x: f32[B]) -> f32[B] { return x * 2.0; }\n",
    "generic gradient": (
        "fn loss[B](x: f32[B], w: f32[B]) -> f32 "
        "{ return sum(tanh(x * w)); }\nfn scale = grad(loss, wrt: [w]);\n"),
}


def measure(args, timeout):
    """Wall seconds and peak resident bytes of one tadc run (None on a
    failure or past `timeout`), and its error."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, None, f"over {timeout} s"
    seconds = time.perf_counter() - start
    # communicate() reaped it: its rusage is the children's maximum, read
    # per run by running each in a process of its own (below).
    return seconds, None, (err.strip()[-300:] if proc.returncode else None)


def measure_alone(args, timeout):
    """measure() in a child process, whose own children's peak resident
    memory (RUSAGE_CHILDREN) is then that one tadc run's."""
    code = ("import json, resource, sys; sys.path.insert(0, %r); "
            "import scale; s, _, e = scale.measure(%r, %r); "
            "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss; "
            "print(json.dumps([s, r * 1024, e]))"
            % (os.path.dirname(os.path.abspath(__file__)), args, timeout))
    out = subprocess.run([sys.executable, "-c", code], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fields", type=int, nargs="*",
                    default=[1000, 2000, 5000])
    ap.add_argument("--instances", type=int, nargs="*",
                    default=[250, 1000, 2000])
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()
    print(f"machine: {machine()}\n")
    print("| program | size | `--emit=obj` | peak memory | growth |")
    print("| --- | --- | --- | --- | --- |")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for gradient in (False, True):
            label = "record gradient" if gradient else "record identity"
            for n in args.fields:
                source = os.path.join(tmp, f"r{n}{gradient}.tad")
                with open(source, "w") as f:
                    f.write(record_source(n, gradient))
                cases.append((label, n, [TADC, source]))
        for label, text in GENERIC.items():
            source = os.path.join(tmp, f"{label.replace(' ', '_')}.tad")
            with open(source, "w") as f:
                f.write(text)
            for n in args.instances:
                cases.append((label, n, [TADC, source] + [
                    f"--instantiate=scale[B={i}]" for i in range(1, n + 1)]))
        last = {}
        for label, n, command in cases:
            command = command + ["--emit=obj", "-o",
                                 os.path.join(tmp, "out.o")]
            runs = [measure_alone(command, args.timeout)
                    for _ in range(max(1, args.repeat))]
            error = next((e for _, _, e in runs if e), None)
            seconds = (None if error else
                       statistics.median(s for s, _, _ in runs))
            peak = max(p for _, p, _ in runs)
            growth = "-"
            if seconds and label in last and last[label][1]:
                size0, seconds0 = last[label]
                growth = (f"{math.log(seconds / seconds0) / math.log(n / size0):.2f}")
            last[label] = (n, seconds)
            rows.append({"program": label, "size": n, "seconds": seconds,
                         "runs": [s for s, _, _ in runs],
                         "peak_bytes": peak, "error": error})
            shown = (f"{seconds:.2f} s" if seconds and not error
                     else f"failed: {error}")
            print(f"| {label} | {n} | {shown} | {peak / 2**20:.0f} MiB | "
                  f"{growth} |", flush=True)
    if args.json:
        write_json(args.json, "tadc --emit=obj on wide programs", rows)


if __name__ == "__main__":
    main()
