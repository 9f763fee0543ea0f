#!/usr/bin/env python3
"""A generated-call fuzzer for the tad Python package (docs/fuzzing.md).

    scripts/fuzz-python.py [--seconds 600] [--seed N] [--out DIR]
        [--tadc PATH]

It compiles a few programs (records, a generic function, every float
dtype, scalars, a derivative) and then, until the time is up, makes random
calls of the package: functions called with right and wrong arrays (dtype,
shape, order, lists, scalars, None, records as dicts with missing or extra
fields, arrays for records, positional and named mixes, duplicates),
`tad.compile` with random `dims`, budgets, targets and options, and
`tad.generic` at random shapes. A call must either return results of the
declared dtypes and shapes, or raise one of the package's errors
(TypeError, ValueError, AttributeError, tad.CompileError). A finding is
any other exception, a result of the wrong kind, or a crash of the process
(each batch of calls runs in a child process, and the case it was making is
written before each call): its description goes to DIR/finding-N.txt and
the script exits non-zero.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAMS = {
    "records": """
struct Layer { w: f32[3, 2], b: f32[2] }
struct Net { l1: Layer, scale: f32 }
fn loss(x: f32[4, 3], p: Net) -> f32 {
  let h = x @ p.l1.w + p.l1.b;
  return p.scale * sum(h * h);
}
fn loss_vg = value_and_grad(loss, wrt: [p]);
fn ident(p: Net) -> Net { return p; }
""",
    "dtypes": """
fn f64s(a: f64[2, 3], b: f64) -> f64[2, 3] { return a * b; }
fn f16s(a: f16[4]) -> f16[4] { return a + a; }
fn bf16s(a: bf16[4]) -> bf16 { return sum(a); }
fn scalar(x: f32) -> f32 { return x * x; }
fn dscalar = grad(scalar, wrt: [x]);
""",
    "generic": "fn twice[B, D](x: f32[B, D]) -> f32[B] "
               "{ return sum(x * 2.0, axes: [1]); }\n",
    "tokens": """
struct Linear[E: type, I, O] { w: E[I, O], b: E[O] }
fn embed(t: f32[10, 4], ids: i32[2, 3], key: i64) -> f32[2, 3, 4] {
  return dropout(take(t, ids), 0.5, key);
}
fn lin(p: Linear[f32, 4, 2], x: f32[3, 4]) -> f32[3, 2] { return x @ p.w + p.b; }
fn dlin = grad(lin_loss, wrt: [p]);
fn lin_loss(p: Linear[f32, 4, 2], x: f32[3, 4]) -> f32 { return sum(lin(p, x)); }
fn counts(n: i64[5], ids: i32[5]) -> (i64, i32[5]) { return sum(n), argmax(one_hot(ids, 7), axis: 1); }
""",
}
ERRORS = (TypeError, ValueError, AttributeError)
DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
          "bf16": "uint16", "i32": "int32", "i64": "int64"}


def pick(rng, options):
    """One of `options` (of any types, which rng.choice rejects)."""
    return options[int(rng.integers(len(options)))]


def random_array(rng, np, dtype, shape):
    """A right array, or a wrong one of many kinds."""
    kind = pick(rng, ["right"] * 6 + [
        "dtype", "shape", "list", "scalar", "none", "fortran", "strided",
        "empty", "nan", "string", "object", "bool", "int", "huge-shape"])
    right = rng.standard_normal(shape).astype(DTYPES[dtype]) if shape else \
        np.asarray(rng.standard_normal(), DTYPES[dtype])
    if kind == "right":
        return right
    if kind == "dtype":
        return right.astype(pick(rng, ["float32", "float64", "int32",
                                        "float16", "complex64"]))
    if kind == "shape":
        return np.zeros(tuple(rng.integers(0, 5, size=rng.integers(0, 4))),
                        DTYPES[dtype])
    if kind == "list":
        return right.tolist()
    if kind == "scalar":
        return 1.5
    if kind == "none":
        return None
    if kind == "fortran":
        return np.asfortranarray(right)
    if kind == "strided":
        big = np.zeros(tuple(2 * s for s in shape) or (2,), DTYPES[dtype])
        view = big[tuple(slice(None, None, 2) for _ in shape)] if shape \
            else big[0]
        return view
    if kind == "empty":
        return np.zeros((0,), DTYPES[dtype])
    if kind == "nan":
        return np.full(shape, np.nan, DTYPES[dtype])
    if kind == "string":
        return "x"
    if kind == "object":
        return np.array([object()], dtype=object)
    if kind == "bool":
        return np.ones(shape, bool)
    if kind == "int":
        return 3
    return np.zeros((1,) * 30, DTYPES[dtype])


def random_value(rng, np, fn, group):
    """A value for parameter `group` (a record is a dict of its fields)."""
    leaves = [p for p in fn.params if p.name == group or
              p.name.startswith(group + ".")]
    if len(leaves) == 1 and leaves[0].name == group:
        return random_array(rng, np, leaves[0].dtype, leaves[0].shape)
    if rng.random() < 0.1:
        return random_array(rng, np, leaves[0].dtype, leaves[0].shape)
    value = {}
    for p in leaves:
        if rng.random() < 0.05:
            continue  # a missing field
        path = p.name.split(".")[1:]
        node = value
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = random_array(rng, np, p.dtype, p.shape)
    if rng.random() < 0.05:
        value["extra"] = np.zeros(2, np.float32)
    if rng.random() < 0.05 and value:
        # A field given as an array where a record is.
        key = next(iter(value))
        value[key] = np.zeros(3, np.float32)
    return value


def check_results(fn, results, np):
    names = [r.name for r in fn.results]
    if list(dict.keys(results)) != names:
        return f"results {list(dict.keys(results))}, declared {names}"
    for r in fn.results:
        a = dict.__getitem__(results, r.name)
        if a.dtype != np.dtype(DTYPES[r.dtype]) or a.shape != r.shape:
            return f"result {r.name} is {a.dtype}{a.shape}"
    return None


def call_case(rng, np, tad, modules):
    """One random call; returns a finding's text, or None."""
    what = rng.random()
    if what < 0.15:
        # tad.compile with random options.
        dims = {pick(rng, ["B", "D", "Q", ""]): pick(rng, 
            [1, 2, 0, -1, 2**40, 2.0, 2.5, "3", "f32", None, True, [1]])
            for _ in range(rng.integers(0, 3))}
        kwargs = {"entry": "twice", "dims": dims}
        if rng.random() < 0.3:
            kwargs["budget"] = pick(rng, [0, -5, 10**30, "60%", "abc", 1.5,
                                           "64KiB", None])
        if rng.random() < 0.2:
            kwargs["target"] = pick(rng, ["cpu", "gpu", "", "cuda-emulator"])
        if rng.random() < 0.2:
            kwargs["options"] = [pick(rng, ["--bogus", "--emit=exe", "-o",
                                             "--entry=nope", "--opt"])]
        describe = f"tad.compile(generic, **{kwargs!r})"
        write_case(describe)
        try:
            m = tad.compile(PROGRAMS["generic"], **kwargs)
            fn = vars(m)["functions"]["twice"]
            if np.prod(fn.params[0].shape) > 10**6:
                return None  # compiled; too large to call here
            x = np.zeros(fn.params[0].shape, np.float32)
            bad = check_results(fn, fn(x=x), np)
            return bad and f"{describe}: {bad}"
        except (tad.CompileError,) + ERRORS:
            return None
    if what < 0.25:
        shape = tuple(int(s) for s in rng.integers(1, 4, size=2))
        x = random_array(rng, np, "f32", shape)
        describe = f"tad.generic(twice)(x={type(x).__name__} " \
                   f"{getattr(x, 'dtype', '')}{getattr(x, 'shape', '')})"
        write_case(describe)
        try:
            g = tad.generic(PROGRAMS["generic"], "twice")
            out = g(x=x)
            fn = vars(g.module)["functions"]["twice"]
            bad = check_results(fn, out, np)
            return bad and f"{describe}: {bad}"
        except (tad.CompileError,) + ERRORS:
            return None
    module = modules[pick(rng, sorted(modules))]
    functions = vars(module)["functions"]
    name = pick(rng, sorted(functions))
    fn = functions[name]
    groups = list(dict.fromkeys(p.name.split(".")[0] for p in fn.params))
    values = {g: random_value(rng, np, fn, g) for g in groups}
    order = list(groups)
    rng.shuffle(order) if rng.random() < 0.2 else None
    cut = int(rng.integers(0, len(order) + 1))
    positional = [values[g] for g in groups[:cut]]
    named = {g: values[g] for g in order if g not in groups[:cut]}
    if rng.random() < 0.05:
        named["nope"] = np.zeros(1)
    if rng.random() < 0.05 and groups:
        named[groups[0]] = values[groups[0]]  # given twice, maybe
    if rng.random() < 0.05:
        positional.append(np.zeros(1))
    describe = (f"{name}(positional {len(positional)}: "
                f"{[type(v).__name__ for v in positional]}, named "
                f"{ {k: type(v).__name__ for k, v in named.items()} })")
    write_case(describe)
    try:
        results = fn(*positional, **named)
    except ERRORS:
        return None
    bad = check_results(fn, results, np)
    return bad and f"{describe}: {bad}"


CASE_FILE = None


def write_case(text):
    with open(CASE_FILE, "w") as f:
        f.write(text)


def child(seed, seconds, case_file):
    """Makes calls for `seconds`; prints a JSON summary line."""
    global CASE_FILE
    CASE_FILE = case_file
    import numpy as np
    sys.path.insert(0, ROOT)
    import tad
    rng = np.random.default_rng(seed)
    modules = {k: tad.compile(v) for k, v in PROGRAMS.items()
               if k != "generic"}
    calls, findings = 0, []
    end = time.time() + seconds
    while time.time() < end:
        try:
            finding = call_case(rng, np, tad, modules)
        except Exception:  # anything else is a finding
            finding = (open(CASE_FILE).read() + "\n" +
                       traceback.format_exc())
        calls += 1
        if finding:
            findings.append(finding)
            break
    print(json.dumps({"calls": calls, "findings": findings}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=float, default=30,
                    help="seconds of calls per child process")
    ap.add_argument("--out", default=os.path.join(ROOT, "build",
                                                  "fuzz-python"))
    ap.add_argument("--tadc", help="the tadc to compile with (default: "
                    "$TAD_TADC, else build/bin/tadc)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(int(args.child[0]), float(args.child[1]), args.child[2])
    os.makedirs(args.out, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="tad-fuzz-cache")
    env = dict(os.environ, TAD_CACHE_DIR=cache)
    if args.tadc:
        env["TAD_TADC"] = args.tadc
    case_file = os.path.join(args.out, "last-case.txt")
    start, calls, batches, findings = time.time(), 0, 0, []
    seed = args.seed
    while time.time() - start < args.seconds and not findings:
        left = args.seconds - (time.time() - start)
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--child", str(seed),
             str(min(args.batch, left)), case_file],
            capture_output=True, text=True, env=env)
        seed += 1
        batches += 1
        if proc.returncode != 0:
            with open(case_file) as f:
                case = f.read()
            findings.append(f"the process ended with {proc.returncode} "
                            f"during: {case}\n{proc.stderr[-2000:]}")
            break
        summary = json.loads(proc.stdout.splitlines()[-1])
        calls += summary["calls"]
        findings += summary["findings"]
    for i, text in enumerate(findings):
        path = os.path.join(args.out, f"finding-{i}.txt")
        with open(path, "w") as f:
            f.write(text)
        print(f"finding: {path}\n{text}")
    elapsed = time.time() - start
    print(f"fuzz-python: {calls} calls in {batches} processes, "
          f"{elapsed:.0f} s ({calls / max(elapsed, 1e-9):.0f}/s), "
          f"{len(findings)} findings")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
