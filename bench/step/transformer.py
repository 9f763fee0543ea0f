#!/usr/bin/env python3
"""The gradient step of 4 pre-LayerNorm transformer blocks (d = 256, 4
heads, seq = 128, MLP 4x with a sigmoid-GELU, a mean-square loss), tad
as a `for` loop over stacked weights and unrolled, against PyTorch 1.13
eager and with torch.utils.checkpoint on every block (bench/step/suite.py
says how). The programs are bench/memory/run.py's.

    /usr/bin/python3 bench/step/transformer.py [--repeat N] [--threads 1 2] [--json FILE]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

memory = suite.memory
D, SEQ, BLOCKS, NAMES = memory.D, memory.SEQ, memory.BLOCKS, memory.NAMES
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


def torch_step(torch, checkpointed, inputs, **where):
    run = memory.checkpoint_of(checkpointed)
    block = memory.torch_transformer_block(torch)

    def forward(t):
        h = t["x"]
        for i in range(BLOCKS):
            h = run(block, h, *(t[f"{n}_{i}"] for n in NAMES))
        return h
    params = [f"{n}_{i}" for i in range(BLOCKS) for n in NAMES]
    return suite.torch_step_of(torch, inputs, params, forward, **where)


if __name__ == "__main__":
    suite.main("transformer", {
        "loop": lambda: value_and_grad(memory.transformer_source(False)),
        "unrolled": lambda: value_and_grad(memory.transformer_source(True))},
        torch_step, inputs_of, os.path.abspath(__file__))
