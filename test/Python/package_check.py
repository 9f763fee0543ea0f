"""The tad Python package (tad/, docs/python.md) against tadc run:
named and positional inputs, every float dtype, the integer ones, results by name, the
errors, a budget and its report, the cache (which another tadc, a rebuilt
one or a rebuilt runtime misses). argv: tadc, a scratch folder."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MLP = os.path.join(ROOT, "examples", "mlp.tad")


def expect_error(kind, text, call):
    try:
        call()
    except kind as e:
        assert text in str(e), f"expected '{text}' in: {e}"
        return
    raise AssertionError(f"no {kind.__name__} ({text})")


# Named inputs, and the same results as tadc run on the same .npy files.
m = tad.compile(MLP, entry="mlp_value_and_grad")
f = m.mlp_value_and_grad
rng = np.random.default_rng(7)
inputs = {p.name: rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
          for p in f.params}
out = f(**inputs)
assert list(out) == ["value", "value1", "grad_w1", "grad_b1", "grad_w2",
                     "grad_b2"], list(out)
folder = os.path.join(scratch, "run")
os.makedirs(folder, exist_ok=True)
for name, a in inputs.items():
    np.save(os.path.join(folder, name + ".npy"), a)
subprocess.run([tadc, "run", MLP, "--entry", "mlp_value_and_grad",
                "--inputs", folder, "--output-dir", folder], check=True,
               stdout=subprocess.DEVNULL)
for name, got in out.items():
    want = np.load(os.path.join(folder, name + ".npy"))
    assert np.array_equal(got, want), name
assert np.array_equal(out.grad_w1, out["grad_w1"])

# Positional, and mixed.
names = [p.name for p in f.params]
positional = f(*[inputs[n] for n in names])
mixed = f(*[inputs[n] for n in names[:2]], **{n: inputs[n] for n in names[2:]})
for name in out:
    assert np.array_equal(out[name], positional[name]), name
    assert np.array_equal(out[name], mixed[name]), name

# Threads (docs/runtime.md#threads): the same results to float32 rounding;
# a count out of range is an error.
m.set_num_threads(3)
threaded = f(**inputs)
m.set_num_threads(1)
for name in out:
    scale = max(float(np.max(np.abs(out[name]))), 1e-30)
    assert np.max(np.abs(threaded[name] - out[name])) <= 1e-5 * scale, name
expect_error(ValueError, "expected 1 to 4096 threads, got 0",
             lambda: m.set_num_threads(0))

# The last call's measurements.
assert m.stats["function"] == "mlp_value_and_grad"
assert m.stats["peak_bytes"] > 0 and m.stats["seconds"] > 0, m.stats

# Errors, with tadc run's wording.
expect_error(TypeError, "parameter 'x' of 'mlp_value_and_grad' is "
             "f32[64, 256] but got f64[64, 256]",
             lambda: f(**dict(inputs, x=inputs["x"].astype(np.float64))))
expect_error(TypeError, "is f32[128] but got f32[127]",
             lambda: f(**dict(inputs, b1=inputs["b1"][:127])))
expect_error(TypeError, "'mlp_value_and_grad' has no parameter 'z' (its "
             "parameters are x, y, w1, b1, w2, b2)",
             lambda: f(**dict(inputs, z=inputs["x"])))
expect_error(TypeError, "'mlp_value_and_grad' is missing input 'w2' "
             "(f32[128, 10])",
             lambda: f(**{n: inputs[n] for n in names if n != "w2"}))
expect_error(TypeError, "'mlp_value_and_grad' takes 6 inputs, got 7",
             lambda: f(*[inputs[n] for n in names], inputs["x"]))
expect_error(TypeError, "'mlp_value_and_grad' got 'x' twice",
             lambda: f(inputs["x"], x=inputs["x"]))
expect_error(AttributeError, "no result 'loss'", lambda: out.loss)
expect_error(AttributeError, "no function 'nope'", lambda: m.nope)

# A strided input is copied to C order; the results are the same.
x = np.asfortranarray(inputs["x"])
assert np.array_equal(f(**dict(inputs, x=x)).value, out.value)

# Every float dtype: f64, f16 (NumPy's float16), bf16 (its 16-bit patterns
# as uint16).
source = """
fn f(a: f64[3], b: f16[3], c: bf16[3]) -> (f64[3], f16[3], bf16[3]) {
  return a * 2.0, b * 2.0, c * 2.0;
}
"""
d = tad.compile(source)
a = np.array([1.5, -2.0, 0.25])
b = np.array([1.5, -2.0, 0.25], np.float16)
c = (np.array([1.5, -2.0, 0.25], np.float32).view(np.uint32) >> 16).astype(
    np.uint16)
r = d.f(a, b, c)
assert list(r) == ["result0", "result1", "result2"], list(r)
assert np.array_equal(r.result0, 2 * a)
assert np.array_equal(r.result1, 2 * b)
widened = (r.result2.astype(np.uint32) << 16).view(np.float32)
assert np.array_equal(widened, np.array([3.0, -4.0, 0.5], np.float32))

# Integers (token ids): i32 and i64 parameters take int32 and int64 arrays
# and return them exactly (an i64 past 2^53 too); the other integer type
# is refused by name.
source = """
fn g(ids: i32[3], n: i64[3]) -> (i32[3], i64[3]) {
  return ids + 1, n * 2;
}
"""
e = tad.compile(source)
assert [(p.name, p.dtype) for p in e.g.params] == [("ids", "i32"),
                                                  ("n", "i64")]
ids = np.array([0, -5, 2**31 - 2], np.int32)
n = np.array([2**53 + 1, -3, 7], np.int64)
r = e.g(ids, n)
assert r.result0.dtype == np.int32 and r.result1.dtype == np.int64
assert np.array_equal(r.result0, ids + 1)
assert np.array_equal(r.result1, n * 2)
expect_error(TypeError, "parameter 'ids' of 'g' is i32[3] but got i64[3]",
             lambda: e.g(ids.astype(np.int64), n))

# A budget: a share of the store-all peak; the report comes with it; one
# below the minimum names the minimum.
g = tad.compile(MLP, entry="mlp_value_and_grad", budget="100%")
assert g.report["functions"][0]["function"] == "mlp_value_and_grad"
assert np.array_equal(g.mlp_value_and_grad(**inputs).grad_w1, out.grad_w1)
# Without an entry, a share is of the program's one derivative, and every
# function is there.
whole = tad.compile(MLP, budget="100%")
assert sorted(whole.functions) == ["mlp", "mlp_value_and_grad", "sgd_step"], \
    sorted(whole.functions)
assert whole.report["functions"][0]["budget"] == \
    whole.report["functions"][0]["store_all_peak"], whole.report
expect_error(tad.CompileError, "the feasible minimum is",
             lambda: tad.compile(MLP, entry="mlp_value_and_grad",
                                 budget=1000))

# A malformed program: tadc's message, the source named <source>.
expect_error(tad.CompileError, "<source>:1:",
             lambda: tad.compile("fn f(a: f32[3]) -> f32[3] { return b; }"))

# The cache: compiling again reuses the library.
assert tad.compile(MLP, entry="mlp_value_and_grad").folder == m.folder


# Another tadc, or a rebuilt one, or a rebuilt runtime, compiles again
# (docs/python.md): the key has the size and time of change of the tadc
# run, of the executable and of the runtime that its --version names.
def compiled_by(program, env=None):
    saved = dict(os.environ)
    os.environ["TAD_TADC"] = program
    os.environ.update(env or {})
    try:
        return tad.compile(MLP, entry="mlp_value_and_grad").folder
    finally:
        os.environ.clear()
        os.environ.update(saved)


def touch_later(path):
    info = os.stat(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))


bin_dir = os.path.join(scratch, "bin")
os.makedirs(bin_dir, exist_ok=True)
# A wrapper script at another path.
wrapper = os.path.join(bin_dir, "tadc-wrapper")
with open(wrapper, "w") as w:
    w.write(f'#!/bin/sh\nexec "{tadc}" "$@"\n')
os.chmod(wrapper, 0o755)
by_wrapper = compiled_by(wrapper)
assert by_wrapper != m.folder
assert compiled_by(wrapper) == by_wrapper
# A copy of tadc (its --version names the copy), then the copy rebuilt: the
# same bytes, changed later.
copy = os.path.join(bin_dir, "tadc")
shutil.copy2(tadc, copy)
by_copy = compiled_by(copy)
assert by_copy not in (m.folder, by_wrapper)
assert compiled_by(copy) == by_copy
touch_later(copy)
rebuilt = compiled_by(copy)
assert rebuilt != by_copy
assert compiled_by(copy) == rebuilt
# The runtime that tadc links into libraries, rebuilt.
version = subprocess.run([tadc, "--version"], capture_output=True, text=True,
                         check=True).stdout
runtime = re.search(r"^  runtime: (.+)$", version, re.M).group(1)
runtime_copy = os.path.join(bin_dir, "libtad_runtime_static.a")
shutil.copy2(runtime, runtime_copy)
env = {"TAD_RUNTIME_STATIC_LIBRARY": runtime_copy}
by_runtime = compiled_by(tadc, env)
assert by_runtime != m.folder
assert compiled_by(tadc, env) == by_runtime
touch_later(runtime_copy)
assert compiled_by(tadc, env) != by_runtime
# The library that the rebuilt runtime made computes the same.
assert np.array_equal(
    tad.Module(compiled_by(tadc, env)).mlp_value_and_grad(**inputs).grad_w1,
    out.grad_w1)
print("ok: the tad package")
