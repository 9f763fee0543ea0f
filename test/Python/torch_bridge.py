"""The PyTorch bridge (tad/torch.py, docs/python.md#pytorch):

1. A PyTorch training loop hands its router/experts block, whose
   auxiliary loss is a second result, to tad, compiled under a budget: at
   each of 10 SGD steps, loss.backward() gives every parameter the
   gradient pure PyTorch gives (float64, to 1e-10), the auxiliary loss's
   included, and the backward's measured peak is within the budget.
2. A small model trains for 50 SGD steps with one tad block and follows
   pure PyTorch's loss trajectory (float32, to 1e-5).
3. Token ids, int32 and int64 tensors, go in as they are and get no
   gradient, while the float inputs beside them get PyTorch's.
argv: tadc, a scratch folder."""
import os
import sys

import numpy as np
import torch

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import tad  # noqa: E402
import tad.torch  # noqa: E402

torch.manual_seed(0)

# 1. The auxiliary loss reaches the parameters.
BUDGET = 24704  # tadc mem's feasible minimum for moe_vjp
m = tad.compile(os.path.join(HERE, "Inputs", "moe.tad"), budget=BUDGET)
moe = tad.torch.function(m, "moe")


def torch_moe(x, wr, w1, w2):
    s = torch.sigmoid(x @ wr)
    mean = s.mean()
    return (x + s * torch.tanh(x @ w1) + (1 - s) * torch.tanh(x @ w2),
            (mean - 0.5) * (mean - 0.5))


f64 = torch.float64
params = {"w_in": torch.randn(8, 32, dtype=f64) * 0.3,
          "wr": torch.randn(32, 1, dtype=f64) * 0.3,
          "w1": torch.randn(32, 32, dtype=f64) * 0.2,
          "w2": torch.randn(32, 32, dtype=f64) * 0.2,
          "w_out": torch.randn(32, 4, dtype=f64) * 0.3}
inputs = torch.randn(16, 8, dtype=f64)
target = torch.randn(16, 4, dtype=f64)


def loss_of(block, p):
    h, aux = block(inputs @ p["w_in"], p["wr"], p["w1"], p["w2"])
    return ((h @ p["w_out"] - target) ** 2).mean() + 10.0 * aux, aux


# A training loop of 10 SGD steps on each side: at every step, every
# gradient equals pure PyTorch's.
models = {label: {k: v.clone().requires_grad_() for k, v in params.items()}
          for label in ("tad", "torch")}
optimizers = {label: torch.optim.SGD(p.values(), lr=0.05)
              for label, p in models.items()}
for step in range(10):
    grads = {}
    for label, block in (("tad", moe), ("torch", torch_moe)):
        p = models[label]
        optimizers[label].zero_grad()
        loss, aux = loss_of(block, p)
        loss.backward()
        grads[label] = ({k: v.grad.clone() for k, v in p.items()},
                        float(loss))
        if label == "tad":
            # The last tad call was the backward's vjp, planned within
            # the budget; the allocator measured it.
            assert m.stats["function"] == "moe_vjp", m.stats
            assert m.stats["peak_bytes"] <= BUDGET, (m.stats, BUDGET)
        optimizers[label].step()
    assert abs(grads["tad"][1] - grads["torch"][1]) < 1e-12, (step, grads)
    for k in params:
        error = float((grads["tad"][0][k] - grads["torch"][0][k]).abs().max())
        assert error < 1e-10, (step, k, error)
# The auxiliary loss's share: the router's gradient changes without it.
p = {k: v.clone().requires_grad_() for k, v in params.items()}
loss, aux = loss_of(moe, p)
loss.backward()
with_aux = p["wr"].grad.clone()
p = {k: v.clone().requires_grad_() for k, v in params.items()}
h, _ = moe(inputs @ p["w_in"], p["wr"], p["w1"], p["w2"])
((h @ p["w_out"] - target) ** 2).mean().backward()
assert float((p["wr"].grad - with_aux).abs().max()) > 1e-6

# 2. Fifty steps of training, one block in tad.
BLOCK = """
fn block(x: f32[32, 16], w: f32[16, 16], b: f32[16]) -> f32[32, 16] {
  return x + tanh(x @ w + b);
}
fn block_vjp = vjp(block, wrt: [x, w, b]);
"""
block = tad.torch.function(tad.compile(BLOCK), "block")


def torch_block(x, w, b):
    return x + torch.tanh(x @ w + b)


torch.manual_seed(1)
start = {"w_in": torch.randn(4, 16) * 0.5, "w": torch.randn(16, 16) * 0.3,
         "b": torch.zeros(16), "w_out": torch.randn(16, 1) * 0.5}
data = torch.randn(32, 4)
labels = torch.sin(data.sum(1, keepdim=True))
trajectories = {}
for label, f in (("tad", block), ("torch", torch_block)):
    p = {k: v.clone().requires_grad_() for k, v in start.items()}
    optimizer = torch.optim.SGD(p.values(), lr=0.1)
    losses = []
    for _ in range(50):
        optimizer.zero_grad()
        h = f(data @ p["w_in"], p["w"], p["b"])
        loss = ((h @ p["w_out"] - labels) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    trajectories[label] = np.array(losses)
assert trajectories["tad"][-1] < trajectories["tad"][0] * 0.5, trajectories
difference = float(np.abs(trajectories["tad"] - trajectories["torch"]).max())
assert difference < 1e-5, difference
# 3. Integer inputs: the vjp has no d_ids (integers are never in wrt), so
# the backward gives None, as PyTorch expects of an input that cannot
# require a gradient.
SHIFT = """
fn shift(ids: i32[8], pos: i64[8], x: f32[8], w: f32[8]) -> f32[8] {
  return tanh(x * w) + cast(ids, f32) - cast(pos, f32);
}
fn shift_vjp = vjp(shift, wrt: [x, w]);
"""
shift = tad.torch.function(tad.compile(SHIFT), "shift")
ids = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6], dtype=torch.int32)
pos = torch.arange(8)
sides = {label: (torch.randn(8, generator=torch.Generator().manual_seed(2)),
                 torch.randn(8, generator=torch.Generator().manual_seed(3)))
         for label in ("tad", "torch")}
for label, f in (("tad", shift), ("torch", lambda i, p, x, w: torch.tanh(
        x * w) + i.float() - p.float())):
    x, w = (t.requires_grad_() for t in sides[label])
    y = f(ids, pos, x, w)
    (y * y).sum().backward()
    assert ids.grad is None and pos.grad is None
for k in range(2):
    error = float((sides["tad"][k].grad - sides["torch"][k].grad).abs().max())
    assert error < 1e-5, (k, error)

print(f"ok: the PyTorch bridge (loss {trajectories['tad'][0]:.4f} -> "
      f"{trajectories['tad'][-1]:.4f})")
