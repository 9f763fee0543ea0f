#!/usr/bin/env python3
"""The gradient step of 64 residual blocks h + tanh(h @ w + b) (width 256,
batch 128, a mean-square loss), tad as a `for` loop over stacked weights
(`ws[i]`) and unrolled, against PyTorch 1.13 eager and with
torch.utils.checkpoint on every block (bench/step/suite.py says how).

    /usr/bin/python3 bench/step/resnet.py [--repeat N] [--threads 1 2] [--json FILE]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

memory = suite.memory
WIDTH, BATCH, DEPTH = memory.WIDTH, memory.BATCH, memory.DEPTH


def value_and_grad(source):
    return source.replace("fn net_grad = grad(",
                          "fn net_value_and_grad = value_and_grad(")


def inputs_of(form):
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.5, 0.5, (BATCH, WIDTH))
    ws = rng.uniform(-0.05, 0.05, (DEPTH, WIDTH, WIDTH))
    bs = rng.uniform(-0.5, 0.5, (DEPTH, WIDTH))
    if form == "loop":
        return {"x": x, "ws": ws, "bs": bs}
    inputs = {"x": x}
    for i in range(DEPTH):
        inputs[f"w{i}"], inputs[f"b{i}"] = ws[i], bs[i]
    return inputs


def torch_step(torch, checkpointed, inputs, **where):
    run = memory.checkpoint_of(checkpointed)

    def forward(t):
        h = t["x"]
        for i in range(DEPTH):
            h = run(lambda h, w, b: h + torch.tanh(h @ w + b), h,
                    t[f"w{i}"], t[f"b{i}"])
        return h
    params = [f"{n}{i}" for i in range(DEPTH) for n in "wb"]
    return suite.torch_step_of(torch, inputs, params, forward, **where)


if __name__ == "__main__":
    suite.main("resnet", {
        "loop": lambda: value_and_grad(memory.resnet_source(False)),
        "unrolled": lambda: value_and_grad(memory.resnet_source(True))},
        torch_step, inputs_of, os.path.abspath(__file__))
