"""Records through the Python package: a struct parameter is one input, a
mapping of its fields; a record result is a tad.Results of its fields that
another function takes as it is. The gradient is checked against NumPy's
hand-derived one in f64. argv: tadc, a scratch folder."""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402

SOURCE = """
struct Layer { w: f64[3, 2], b: f64[2] }
struct Net { l1: Layer, scale: f64 }
fn loss(x: f64[4, 3], p: Net) -> f64 {
  let h = x @ p.l1.w + p.l1.b;
  return p.scale * sum(h * h);
}
fn loss_vg = value_and_grad(loss, wrt: [p]);
fn sgd(p: Net, g: Net) -> Net {
  let q = p;
  q.l1 = Layer(w: p.l1.w - 0.1 * g.l1.w, b: p.l1.b - 0.1 * g.l1.b);
  q.scale = p.scale - 0.1 * g.scale;
  return q;
}
"""

m = tad.compile(SOURCE)
rng = np.random.default_rng(0)
x = rng.standard_normal((4, 3))
p = {"l1": {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)},
     "scale": np.float64(0.7)}

# By position, by name, and by leaf path: the same call.
r = m.loss_vg(x, p)
assert list(r) == ["value", "grad_p.l1.w", "grad_p.l1.b", "grad_p.scale"], r
r2 = m.loss_vg(x=x, p=p)
r3 = m.loss_vg(x, **{"p.l1.w": p["l1"]["w"], "p.l1.b": p["l1"]["b"],
                     "p.scale": p["scale"]})
for other in (r2, r3):
    assert all(np.array_equal(r[k], other[k]) for k in r)

# NumPy: h = x w + b, L = s sum(h^2), dL/dh = 2 s h.
h = x @ p["l1"]["w"] + p["l1"]["b"]
dh = 2 * p["scale"] * h
np.testing.assert_allclose(r.value, p["scale"] * np.sum(h * h), rtol=1e-13)
np.testing.assert_allclose(r.grad_p.l1.w, x.T @ dh, rtol=1e-12)
np.testing.assert_allclose(r.grad_p.l1.b, dh.sum(0), rtol=1e-12)
np.testing.assert_allclose(r.grad_p.scale, np.sum(h * h), rtol=1e-12)
assert sorted(r.grad_p) == ["l1", "scale"] and sorted(r.grad_p.l1) == ["b", "w"]

# The gradient record goes back in as it is; so does the updated record.
q = m.sgd(p, r.grad_p)
assert list(q) == ["result0.l1.w", "result0.l1.b", "result0.scale"], list(q)
np.testing.assert_allclose(q.result0.l1.w, p["l1"]["w"] - 0.1 * (x.T @ dh),
                           rtol=1e-12)
r4 = m.loss_vg(x, q.result0)
assert r4.value < r.value  # one SGD step down a quadratic's slope

for call, message in [
        (lambda: m.loss_vg(x, {"l1": p["l1"]}),
         "'loss_vg' is missing input 'p.scale' (f64)"),
        (lambda: m.loss_vg(x, dict(p, l2=1.0)),
         "'loss_vg' has no parameter 'p.l2'"),
        (lambda: m.loss_vg(x, p, p), "'loss_vg' takes 2 inputs, got 3"),
        (lambda: m.loss_vg(x, p, **{"p.scale": 1.0}),
         "'loss_vg' got 'p.scale' twice")]:
    try:
        call()
    except TypeError as e:
        assert message in str(e), (message, str(e))
    else:
        raise AssertionError(f"no error: {message}")
print("ok: records through the tad package")
