"""A GPT at a GPU-sized configuration for bench/gpu/steps.py: token and
position embeddings, pre-LayerNorm blocks of causal multi-head attention and
a 4x GELU MLP, a final layer norm and an output head, trained on
next-token cross-entropy; examples/gpt/gpt.tad's model with more blocks,
heads and width, and no dropout (dropout's masks differ between tad and
PyTorch, so the results could not be compared).

The tad side is generated text (the blocks unrolled, each with parameters
of its own); the PyTorch side is the same model written as a user writes
it, with the attention either as tad computes it (a -1e9 mask and a
softmax) or as torch.nn.functional.scaled_dot_product_attention with
is_causal=True (PyTorch's fused attention, which stores no T x T scores).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "step"))
import suite  # noqa: E402

# The GPU-sized configuration (issue 50: d_model 512, 8 layers, context 256,
# batch 32), and a small one that the emulator runs in the tests.
CONFIGS = {
    "gpu": {"B": 32, "T": 256, "D": 512, "H": 8, "L": 8, "V": 512},
    "small": {"B": 2, "T": 8, "D": 16, "H": 2, "L": 2, "V": 11},
}
config = dict(CONFIGS["gpu"])
# No key bias: softmax over a row of scores is invariant to it, so its
# gradient is zero, and each side's would be rounding noise only.
BLOCK = ("ln1_g", "ln1_b", "wq", "bq", "wk", "wv", "bv", "wo", "bo",
         "ln2_g", "ln2_b", "wfc", "bfc", "wproj", "bproj")


def use(name):
    config.clear()
    config.update(CONFIGS[name])


def shapes():
    """Parameter name -> shape, in the order of the tad function's
    arguments."""
    D, V, T, L = config["D"], config["V"], config["T"], config["L"]
    F = 4 * D
    block = {"ln1_g": [D], "ln1_b": [D], "wq": [D, D], "bq": [D],
             "wk": [D, D], "wv": [D, D], "bv": [D], "wo": [D, D],
             "bo": [D], "ln2_g": [D], "ln2_b": [D], "wfc": [D, F], "bfc": [F],
             "wproj": [F, D], "bproj": [D]}
    out = {"wte": [V, D], "wpe": [T, D]}
    for i in range(L):
        out.update({f"{n}_{i}": block[n] for n in BLOCK})
    out.update({"lnf_g": [D], "lnf_b": [D], "head": [D, V]})
    return out


def source():
    B, T, D, H, L, V = (config[k] for k in "BTDHLV")
    f32 = lambda shape: "f32[" + ", ".join(map(str, shape)) + "]"
    block_args = ", ".join(f"{n}: {f32(s)}" for n, s in
                           zip(BLOCK, [shapes()[f"{n}_0"] for n in BLOCK]))
    heads = lambda w: (f"swapaxes(reshape({w}, [{B}, {T}, {H}, -1]), 1, 2)")
    text = f"""import "nn.tad";
fn block(x: f32[{B}, {T}, {D}], {block_args}) -> f32[{B}, {T}, {D}] {{
  let n = layer_norm(x, ln1_g, ln1_b);
  let q = {heads("linear(n, wq, bq)")};
  let k = {heads("n @ wk")};
  let v = {heads("linear(n, wv, bv)")};
  let a = reshape(swapaxes(causal_attention(q, k, v), 1, 2), [{B}, {T}, {D}]);
  let h = x + linear(a, wo, bo);
  return h + linear(gelu(linear(layer_norm(h, ln2_g, ln2_b), wfc, bfc)), wproj, bproj);
}}
"""
    params = ", ".join(f"{n}: {f32(s)}" for n, s in shapes().items())
    body = "".join("  x = block(x, " + ", ".join(f"{n}_{i}" for n in BLOCK)
                   + ");\n" for i in range(L))
    text += (f"fn net(ids: i32[{B}, {T}], targets: i32[{B}, {T}], {params}) "
             "-> f32 {\n  let x = embedding(wte, ids) + wpe;\n" + body +
             "  return cross_entropy_labels(layer_norm(x, lnf_g, lnf_b) @ head,"
             " targets);\n}\n"
             "fn net_value_and_grad = value_and_grad(net, wrt: ["
             + ", ".join(shapes()) + "]);\n")
    return text


def inputs_of(form):
    """Seeded parameters (GPT-2's initialization: N(0, 0.02), residual
    projections scaled by 1 / sqrt(2 L), unit gains, zero biases) and a batch
    of token ids."""
    rng = np.random.default_rng(0)
    B, T, L, V = config["B"], config["T"], config["L"], config["V"]
    out = {"ids": rng.integers(0, V, (B, T)).astype(np.int32),
           "targets": rng.integers(0, V, (B, T)).astype(np.int32)}
    for name, shape in shapes().items():
        base = name.rsplit("_", 1)[0] if name[-1].isdigit() else name
        if base.endswith("_g"):
            value = np.ones(shape)
        elif len(shape) == 1:
            value = np.zeros(shape)
        elif base in ("wo", "wproj"):
            value = rng.normal(0.0, 0.02 / np.sqrt(2 * L), shape)
        else:
            value = rng.normal(0.0, 0.02, shape)
        out[name] = value.astype(np.float32)
    return out


def torch_step(torch, checkpointed, inputs, device="cpu", compiled=False,
               fused_attention=False):
    """PyTorch's step (bench/step/suite.py's torch_step_of) whose loss is
    the cross-entropy, not mean(h * h)."""
    assert not checkpointed
    F = torch.nn.functional
    B, T, D, H, L, V = (config[k] for k in "BTDHLV")
    ids = torch.tensor(inputs["ids"], device=device).long()
    targets = torch.tensor(inputs["targets"], device=device).long()
    params = list(shapes())
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))

    def attention(q, k, v):
        if fused_attention:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        scores = q @ k.transpose(-1, -2) / (D // H) ** 0.5
        return F.softmax(scores.masked_fill(~allowed, -1e9), dim=-1) @ v

    def forward(t):
        x = t["wte"][ids] + t["wpe"]
        for i in range(L):
            p = {n: t[f"{n}_{i}"] for n in BLOCK}
            n = F.layer_norm(x, (D,), p["ln1_g"], p["ln1_b"], 1e-5)
            heads = lambda y: y.view(B, T, H, -1).transpose(1, 2)
            a = attention(heads(n @ p["wq"] + p["bq"]), heads(n @ p["wk"]),
                          heads(n @ p["wv"] + p["bv"]))
            x = x + a.transpose(1, 2).reshape(B, T, D) @ p["wo"] + p["bo"]
            n = F.layer_norm(x, (D,), p["ln2_g"], p["ln2_b"], 1e-5)
            u = F.gelu(n @ p["wfc"] + p["bfc"], approximate="tanh")
            x = x + u @ p["wproj"] + p["bproj"]
        x = F.layer_norm(x, (D,), t["lnf_g"], t["lnf_b"], 1e-5)
        return F.cross_entropy((x @ t["head"]).view(-1, V), targets.view(-1))
    return suite.torch_step_of(torch, inputs, params, forward, device,
                               compiled, loss_of=lambda loss: loss)
