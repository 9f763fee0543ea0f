"""The PyTorch bridge with records and bf16 (tad/torch.py): a record
parameter is a dict of tensors and a record result a dict, and the
gradients through tad's vjp equal PyTorch's own (float64, to 1e-12); bf16
tensors pass as bf16. argv: tadc, a scratch folder."""
import os
import sys

import torch

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402
import tad.torch  # noqa: E402

m = tad.compile("""
struct P { w: f64[3], b: f64[3] }
fn rb(x: f64[3], p: P) -> f64[3] { return tanh(x * p.w + p.b); }
fn rb_vjp = vjp(rb, wrt: [x, p]);
fn rr(x: f64[3], p: P) -> P { return P(w: x * p.w, b: exp(p.b) * x); }
fn rr_vjp = vjp(rr, wrt: [x, p]);
fn hb(x: bf16[4]) -> bf16[4] { return x * x; }
fn hb_vjp = vjp(hb, wrt: [x]);
""")
torch.manual_seed(0)
f64 = torch.float64


def leaves():
    x = torch.randn(3, dtype=f64, requires_grad=True)
    p = {"w": torch.randn(3, dtype=f64, requires_grad=True),
         "b": torch.randn(3, dtype=f64, requires_grad=True)}
    return x, p


def same_gradients(tad_loss, torch_loss):
    x, p = leaves()
    tad_loss(x, p).backward()
    got = [x.grad, p["w"].grad, p["b"].grad]
    y = {"x": x.detach().clone().requires_grad_(),
         "w": p["w"].detach().clone().requires_grad_(),
         "b": p["b"].detach().clone().requires_grad_()}
    torch_loss(y["x"], {"w": y["w"], "b": y["b"]}).backward()
    for a, b in zip(got, [y["x"].grad, y["w"].grad, y["b"].grad]):
        # A leaf the loss does not reach: PyTorch leaves None, tad's vjp
        # gives zeros.
        b = torch.zeros_like(a) if b is None else b
        assert torch.allclose(a, b, rtol=0, atol=1e-12), (a, b)


# A record parameter.
rb = tad.torch.function(m, "rb")
same_gradients(lambda x, p: (rb(x, p) ** 2).sum(),
               lambda x, p: (torch.tanh(x * p["w"] + p["b"]) ** 2).sum())
# A record result: a dict of its fields, each reaching the parameters.
rr = tad.torch.function(m, "rr")
out = rr(*leaves())
assert sorted(out) == ["b", "w"], out
same_gradients(lambda x, p: (rr(x, p)["w"] * 3 + rr(x, p)["b"]).sum(),
               lambda x, p: (x * p["w"] * 3 + torch.exp(p["b"]) * x).sum())
# Only one field used: the other's cotangent is zeros.
same_gradients(lambda x, p: rr(x, p)["b"].sum(),
               lambda x, p: (torch.exp(p["b"]) * x).sum())
# An array for the record: a clear error.
try:
    rb(torch.ones(3, dtype=f64), torch.ones(3, dtype=f64))
except TypeError as e:
    assert "argument 'p' of rb is a record" in str(e), e
else:
    raise AssertionError("a tensor for a record was taken")

# bf16 in and out, and its gradient.
hb = tad.torch.function(m, "hb")
x = torch.tensor([1.5, -2.0, 0.25, 3.0], dtype=torch.bfloat16,
                 requires_grad=True)
y = hb(x)
assert y.dtype == torch.bfloat16
assert torch.equal(y, (x * x).detach()), (y, x * x)
y.sum().backward()
assert x.grad.dtype == torch.bfloat16
assert torch.equal(x.grad, (2 * x).detach()), x.grad
print("ok: records and bf16 through the PyTorch bridge")
