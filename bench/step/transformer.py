#!/usr/bin/env python3
"""The gradient step of 4 pre-LayerNorm transformer blocks (d = 256, 4
heads, seq = 128, MLP 4x with a sigmoid-GELU, a mean-square loss), tad
as a `for` loop over stacked weights and unrolled, against PyTorch 1.13
eager and with torch.utils.checkpoint on every block (bench/step/suite.py
says how). The programs are bench/memory/run.py's.

    /usr/bin/python3 bench/step/transformer.py [--repeat N] [--threads 1 2]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

memory = suite.memory
D, SEQ, HEADS, BLOCKS, NAMES = (memory.D, memory.SEQ, memory.HEADS,
                                memory.BLOCKS, memory.NAMES)
SHAPES = {"g1": [D], "b1": [D], "wq": [D, D], "wk": [D, D], "wv": [D, D],
          "wo": [D, D], "g2": [D], "b2": [D], "wu": [D, 4 * D],
          "wd": [4 * D, D]}


def value_and_grad(source):
    return source.replace("fn net_grad = grad(",
                          "fn net_value_and_grad = value_and_grad(")


def inputs_of(form):
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.5, 0.5, (SEQ, D))
    stacked = {}
    for n in NAMES:
        scale = 1.0 if n in ("g1", "g2") else 0.05
        offset = 0.5 if n in ("g1", "g2") else 0.0
        stacked[n] = offset + rng.uniform(-scale / 2, scale / 2,
                                          [BLOCKS] + SHAPES[n])
    if form == "loop":
        return dict(stacked, x=x)
    inputs = {"x": x}
    for i in range(BLOCKS):
        for n in NAMES:
            inputs[f"{n}_{i}"] = stacked[n][i]
    return inputs


def torch_step(torch, checkpointed, inputs):
    run = memory.checkpoint_of(checkpointed)
    t = {k: torch.tensor(np.asarray(v, np.float32)) for k, v in inputs.items()}
    layers = [[t[f"{n}_{i}"].requires_grad_() for n in NAMES]
              for i in range(BLOCKS)]
    dh = D // HEADS

    def layer_norm(v, gain, bias):
        mu = v.mean(1, keepdim=True)
        d = v - mu
        var = (d * d).mean(1, keepdim=True)
        return d * torch.rsqrt(var + 1e-5) * gain + bias

    def heads(v):
        return v.reshape(SEQ, HEADS, dh).transpose(0, 1)

    def block(h, g1, b1, wq, wk, wv, wo, g2, b2, wu, wd):
        n = layer_norm(h, g1, b1)
        q, k, v = (heads(n @ w) for w in (wq, wk, wv))
        a = torch.softmax(q @ k.transpose(1, 2) * (1 / dh ** 0.5), -1)
        o = (a @ v).transpose(0, 1).reshape(SEQ, D)
        h = h + o @ wo
        u = layer_norm(h, g2, b2) @ wu
        return h + (u * torch.sigmoid(1.702 * u)) @ wd
    last = {}

    def step():
        for layer in layers:
            for p in layer:
                p.grad = None
        h = t["x"]
        for layer in layers:
            h = run(block, h, *layer)
        loss = (h * h).mean()
        loss.backward()
        last["loss"] = loss.item()
    return step, lambda: last["loss"]


if __name__ == "__main__":
    suite.main("transformer", {
        "loop": lambda: value_and_grad(memory.transformer_source(False)),
        "unrolled": lambda: value_and_grad(memory.transformer_source(True))},
        torch_step, inputs_of, os.path.abspath(__file__))
