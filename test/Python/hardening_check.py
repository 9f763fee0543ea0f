"""The tad package's edges (issue 46): a function of more than 1024
tensors, a program without a concrete function, `dims` that are not whole
numbers, a parameter named self, an array given for a record, a generic
entry's example inputs named in errors, and the program's names before the
package's (a field named items, a function named stats). argv: tadc, a scratch folder."""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402


def expect_error(kind, text, call):
    try:
        call()
    except kind as e:
        assert text in str(e), f"expected '{text}' in: {e}"
        return str(e)
    raise AssertionError(f"no {kind.__name__} ({text})")


# A record of 513 fields in and out: 1026 tensors, past ctypes' 1024
# arguments. The module loads, and both its functions run.
fields = [f"a{i}" for i in range(513)]
source = ("struct Wide { " + ", ".join(f"{f}: f32" for f in fields) + " }\n"
          "fn same(p: Wide) -> Wide { return p; }\n"
          "fn first(p: Wide) -> f32 { return p.a0 * 2.0; }\n")
# A function of more than 16 results writes them through a pointer
# (tad-return-results-by-pointer): the C interface's own, or a stack slot
# where another function calls it and reads some fields (`ends`).
source += ("fn ends(p: Wide) -> f32 { let q = same(p); return q.a1 + q.a512; }\n"
           "fn squares(p: Wide) -> f32 { return " +
           " + ".join(f"p.{f} * p.{f}" for f in fields) + "; }\n"
           "fn dsquares = grad(squares, wrt: [p]);\n")
m = tad.compile(source)
wide = {f: np.float32(i) for i, f in enumerate(fields)}
out = m.same(p=wide)
assert len(out) == 513, len(out)
assert all(float(out[f"result0.a{i}"]) == i for i in range(513))
assert float(m.first(p=wide).result0) == 0.0
assert float(m.ends(p=wide).result0) == 513.0
grads = m.dsquares(p=wide)
assert all(float(grads[f"grad_p.a{i}"]) == 2.0 * i for i in range(513)), grads

# Only a generic function: the library still has the runtime's
# measurements, which the module reads after each call.
g = tad.generic("fn twice[B](x: f32[B]) -> f32[B] { return x * 2.0; }\n",
                "twice")
assert np.array_equal(g(x=np.ones(3, np.float32)).result0,
                      np.full(3, 2, np.float32))
assert g.module.stats["peak_bytes"] >= 0
expect_error(TypeError, "takes its inputs by name",
             lambda: g(np.ones(3, np.float32)))
# The example input's error names the input, not a temporary file.
message = expect_error(
    tad.CompileError, "the example input 'x'",
    lambda: tad.compile("fn h[B](x: f32[B, 2]) -> f32 { return sum(x); }\n",
                        entry="h", inputs={"x": np.ones(3, np.float32)}))
assert "example_x.npy" not in message, message

# dims: whole numbers only.
generic = "fn h[B](x: f32[B]) -> f32 { return sum(x); }\n"
expect_error(TypeError, "the size of 'B' must be a whole number, got 'f64'",
             lambda: tad.compile(generic, entry="h", dims={"B": "f64"}))
expect_error(TypeError, "got 2.7",
             lambda: tad.compile(generic, entry="h", dims={"B": 2.7}))
expect_error(TypeError, "got True",
             lambda: tad.compile(generic, entry="h", dims={"B": True}))
for size in (4, np.int64(4), 4.0, "4"):
    h = tad.compile(generic, entry="h", dims={"B": size})
    assert float(h.h(x=np.ones(4, np.float32)).result0) == 4.0

# A parameter named self, by name and by position, here and generic.
selfish = "fn s(self: f32, y: f32) -> f32 { return self - y; }\n"
assert float(tad.compile(selfish).s(self=np.float32(5),
                                    y=np.float32(2)).result0) == 3.0
assert float(tad.compile(selfish).s(np.float32(5),
                                    np.float32(2)).result0) == 3.0
gs = tad.generic("fn s[B](self: f32[B]) -> f32 { return sum(self); }\n", "s")
assert float(gs(self=np.ones(2, np.float32)).result0) == 2.0

# An array for a record parameter says so.
rec = tad.compile("struct P { w: f32, b: f32 }\n"
                  "fn r(p: P) -> f32 { return p.w + p.b; }\n")
expect_error(TypeError, "parameter 'p' of 'r' is a record: pass a mapping "
             "of its fields (p.w, p.b), not ndarray",
             lambda: rec.r(p=np.ones(2, np.float32)))
# The program's names come first: a result or field named as a dict method
# is that result; a function named as a Module attribute is that function.
shadow = tad.compile("struct Q { items: f32, copy: f32 }\n"
                     "fn stats(x: f32) -> Q { return Q(items: x, copy: x * 2.0); }\n"
                     "fn report(x: f32) -> f32 { return x; }\n")
r = shadow.stats(x=np.float32(3))
assert float(r.result0.items) == 3.0 and float(r.result0.copy) == 6.0
assert sorted(dict.keys(r.result0)) == ["copy", "items"]
assert vars(shadow)["stats"]["function"] == "stats", vars(shadow)["stats"]
assert callable(shadow.report) and float(shadow.report(
    x=np.float32(1)).result0) == 1.0
tad.Module.set_num_threads(shadow, 1)
# A record result named items passes back in as the record.
back = tad.compile("struct Q { items: f32, copy: f32 }\n"
                   "fn make(x: f32) -> Q { return Q(items: x, copy: x); }\n"
                   "fn use(q: Q) -> f32 { return q.items + q.copy; }\n")
assert float(back.use(q=back.make(x=np.float32(2)).result0).result0) == 4.0
# options that would change what tad.compile makes are refused.
for bad in (["--emit=exe"], ["-o", "x.so"], ["--depfile=d"], "--opt"):
    expect_error((ValueError, TypeError), "options",
                 lambda: tad.compile(selfish, options=bad))
assert float(tad.compile(selfish, options=["--opt"]).s(
    self=np.float32(1), y=np.float32(1)).result0) == 0.0
# A function named after a symbol the process already has (glibc's legacy
# regexp `step`): the library's wrapper calls its own function (-Bsymbolic),
# where it called glibc's and hung.
stepper = tad.compile("fn step(x: f32[4]) -> f32 { return sum(x * x); }\n")
assert float(stepper.step(np.ones(4, np.float32))["result0"]) == 4.0

print("ok: the tad package's edges")
