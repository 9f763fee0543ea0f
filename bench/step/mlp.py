#!/usr/bin/env python3
"""The gradient step of an 8-layer tanh MLP (width 1024, batch 64, a
mean-square loss), tad against PyTorch 1.13 eager and with
torch.utils.checkpoint on every layer (bench/step/suite.py says how).

    /usr/bin/python3 bench/step/mlp.py [--repeat N] [--threads 1 2] [--json FILE]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

WIDTH, BATCH, DEPTH = 1024, 64, 8


def source(depth=DEPTH, request="value_and_grad"):
    """The MLP of `depth` layers and its `net_<request>` (bench/compile
    times its `grad`)."""
    params = ", ".join(f"w{i}: f32[{WIDTH}, {WIDTH}], b{i}: f32[{WIDTH}]"
                       for i in range(depth))
    body = "".join(f"  h = tanh(h @ w{i} + b{i});\n" for i in range(depth))
    wrt = ", ".join(f"w{i}, b{i}" for i in range(depth))
    return (f"fn net(x: f32[{BATCH}, {WIDTH}], {params}) -> f32 {{\n"
            f"  let h = x;\n{body}  return mean(h * h);\n}}\n"
            f"fn net_{request} = {request}(net, wrt: [{wrt}]);\n")


def inputs_of(form):
    rng = np.random.default_rng(0)
    inputs = {"x": rng.uniform(-1, 1, (BATCH, WIDTH))}
    for i in range(DEPTH):
        inputs[f"w{i}"] = rng.uniform(-1, 1, (WIDTH, WIDTH)) / WIDTH ** 0.5
        inputs[f"b{i}"] = rng.uniform(-0.1, 0.1, WIDTH)
    return inputs


def torch_step(torch, checkpointed, inputs, **where):
    run = suite.memory.checkpoint_of(checkpointed)

    def forward(t):
        h = t["x"]
        for i in range(DEPTH):
            h = run(lambda h, w, b: torch.tanh(h @ w + b), h, t[f"w{i}"],
                    t[f"b{i}"])
        return h
    params = [f"{n}{i}" for i in range(DEPTH) for n in "wb"]
    return suite.torch_step_of(torch, inputs, params, forward, **where)


if __name__ == "__main__":
    suite.main("mlp", {"unrolled": lambda: source()}, torch_step, inputs_of,
               os.path.abspath(__file__))
