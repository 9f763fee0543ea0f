#!/usr/bin/env python3
"""The standard library's functions (stdlib/nn.tad) against NumPy, in f64
and f32, through the Python package: each result within rounding of the
float64 reference, and PyTorch's layer_norm, gelu (tanh), cross_entropy
(probability targets) and attention where PyTorch is installed.

    stdlib_check.py TADC SCRATCH
"""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import tad  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

PROGRAM = """
import "nn.tad";
fn all(x: E[6, 5], w: E[5, 4], b: E[4], g: E[4], t: E[6, 4], q: E[6, 4],
       kv: E[7, 4], m: E[6, 7], hq: E[2, 6, 4], hk: E[2, 7, 4])
    -> (E[6, 4], E[6, 4], E[6, 4], E, E, E[6, 4], E[2, 6, 4]) {
  let y = linear(x, w, b);
  return y, layer_norm(y, g, b), gelu(y), cross_entropy(y, t), mse(y, t),
         attention(q, kv, kv, m), multi_head_attention(hq, hk, hk, m);
}
"""


def reference(x, w, b, g, t, q, kv, m, hq, hk):
    y = x @ w + b
    mu = y.mean(1, keepdims=True)
    var = ((y - mu) ** 2).mean(1, keepdims=True)
    norm = (y - mu) / np.sqrt(var + 1e-5) * g + b
    gelu = 0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y**3)))
    z = y - y.max(1, keepdims=True)
    log_softmax = z - np.log(np.exp(z).sum(1, keepdims=True))
    xent = np.mean(-(t * log_softmax).sum(1))
    mse = np.mean((y - t) ** 2)

    def attend(q, k, v):
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + m
        e = np.exp(s - s.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True) @ v
    return [y, norm, gelu, xent, mse, attend(q, kv, kv), attend(hq, hk, hk)]


def inputs(dtype):
    rng = np.random.default_rng(0)
    shapes = {"x": (6, 5), "w": (5, 4), "b": (4,), "g": (4,), "t": (6, 4),
              "q": (6, 4), "kv": (7, 4), "m": (6, 7), "hq": (2, 6, 4),
              "hk": (2, 7, 4)}
    data = {n: rng.standard_normal(s) for n, s in shapes.items()}
    data["t"] = np.abs(data["t"])  # probabilities need not sum to 1
    data["m"] = np.where(np.tril(np.ones((6, 7))) > 0, 0.0, -1e9)
    return {n: a.astype(dtype) for n, a in data.items()}


NAMES = ["linear", "layer_norm", "gelu", "cross_entropy", "mse",
         "attention", "multi_head_attention"]
for dtype, elem, rtol in ((np.float64, "f64", 1e-12), (np.float32, "f32", 2e-5)):
    m = tad.compile(PROGRAM.replace("E[", f"{elem}[").replace(" E,", f" {elem},"),
                    entry="all")
    data = inputs(dtype)
    got = list(m.all(**data).values())
    want = reference(**{n: a.astype(np.float64) for n, a in data.items()})
    for name, a, b in zip(NAMES, got, want):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol,
                                   err_msg=f"{name} ({elem})")
    print(f"PASS {elem}: {len(NAMES)} functions match NumPy")
    if torch is None or dtype != np.float64:
        continue
    T = {n: torch.from_numpy(a) for n, a in data.items()}
    y = T["x"] @ T["w"] + T["b"]
    F = torch.nn.functional
    peers = {
        "layer_norm": F.layer_norm(y, (4,), T["g"], T["b"], eps=1e-5),
        "gelu": F.gelu(y, approximate="tanh"),
        "cross_entropy": F.cross_entropy(y, T["t"]),
        "attention": torch.softmax(T["q"] @ T["kv"].T / 2.0 + T["m"], -1)
        @ T["kv"],
    }
    for name, peer in peers.items():
        np.testing.assert_allclose(got[NAMES.index(name)], peer.numpy(),
                                   rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} against PyTorch")
    print(f"PASS f64: {len(peers)} functions match PyTorch")

# At any rank, and over token ids: a batch of sequences, integer labels,
# batched heads, a causal mask.
RANKED = """
import "nn.tad";
fn ranked(x: f64[2, 3, 5], w: f64[5, 4], b: f64[4], g: f64[4], table: f64[9, 4],
          ids: i32[2, 3], labels: i32[2, 3], q: f64[2, 2, 3, 4])
    -> (f64[2, 3, 4], f64[2, 3, 4], f64[2, 3, 4], f64[2, 3, 4], f64, f64[2, 2, 3, 4]) {
  let y = linear(x, w, b);
  return layer_norm(y, g, b), rms_norm(y, g), gelu(y), embedding(table, ids),
         cross_entropy_labels(y @ transpose(table), labels),
         causal_attention(q, q, q);
}
"""
rng = np.random.default_rng(1)
data = {"x": rng.standard_normal((2, 3, 5)), "w": rng.standard_normal((5, 4)),
        "b": rng.standard_normal(4), "g": rng.standard_normal(4),
        "table": rng.standard_normal((9, 4)),
        "ids": rng.integers(0, 9, (2, 3)).astype(np.int32),
        "labels": rng.integers(0, 9, (2, 3)).astype(np.int32),
        "q": rng.standard_normal((2, 2, 3, 4))}
got = list(tad.compile(RANKED, entry="ranked").ranked(**data).values())
y = data["x"] @ data["w"] + data["b"]
rms = y / np.sqrt((y * y).mean(-1, keepdims=True) + 1e-6) * data["g"]
logits = y @ data["table"].T
z = logits - logits.max(-1, keepdims=True)
log_softmax = z - np.log(np.exp(z).sum(-1, keepdims=True))
picked = np.take_along_axis(log_softmax, data["labels"][..., None], -1)
q = data["q"]
s = q @ np.swapaxes(q, -1, -2) / 2.0 + np.where(np.tril(np.ones((3, 3))) > 0, 0, -1e9)
e = np.exp(s - s.max(-1, keepdims=True))
np.testing.assert_allclose(got[1], rms, rtol=1e-12, atol=1e-12, err_msg="rms_norm")
np.testing.assert_array_equal(got[3], data["table"][data["ids"]], err_msg="embedding")
np.testing.assert_allclose(got[4], -picked.mean(), rtol=1e-12, err_msg="cross_entropy_labels")
np.testing.assert_allclose(got[5], e / e.sum(-1, keepdims=True) @ q, rtol=1e-12,
                           atol=1e-12, err_msg="causal_attention")
print("PASS f64: the functions at rank 3 and 4 match NumPy")
if torch is not None:
    F = torch.nn.functional
    T = {n: torch.from_numpy(a) for n, a in data.items()}
    ty = T["x"] @ T["w"] + T["b"]
    tq = T["q"]
    causal = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64), 1)
    peers = {
        0: F.layer_norm(ty, (4,), T["g"], T["b"], eps=1e-5),
        2: F.gelu(ty, approximate="tanh"),
        3: F.embedding(T["ids"].long(), T["table"]),
        4: F.cross_entropy((ty @ T["table"].T).reshape(6, 9),
                           T["labels"].long().reshape(6)),
        5: torch.softmax(tq @ tq.transpose(-1, -2) / 2.0 + causal, -1) @ tq,
    }
    for i, peer in peers.items():
        np.testing.assert_allclose(got[i], peer.numpy(), rtol=1e-12, atol=1e-12,
                                   err_msg=f"result {i} against PyTorch")
    print(f"PASS f64: {len(peers)} functions at rank 3 and 4 match PyTorch")
