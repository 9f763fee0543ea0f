#!/usr/bin/env python3
"""Runs one tad program with `tadc run` and compares every result with
NumPy. The expected values come from NumPy alone (in float64, rounded to the
result type at the end), never from tad.

    op_check.py --tadc PATH --case NAME
    op_check.py --tadc PATH --family NAME   (NAME and NAME-f32, NAME-f64, ...)
    op_check.py --tadc PATH --all [--tadc-arg=--target=cuda-emulator]
                [--shard K/N]
    op_check.py --list
    op_check.py --tadc PATH --all --bundle DIR [--tadc-arg=--target=cuda]
    op_check.py --run-bundle DIR

--bundle compiles each selected case into an executable in DIR/CASE/, beside
its inputs, for a machine without tad (a GPU machine, say); --run-bundle
runs them there (python3 and numpy only) and compares with NumPy as above.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

NP_DTYPE = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
            "i32": np.int32, "i64": np.int64}
# rtol, atol for comparing with the float64 reference. f16 and bf16 compute
# in f32 and round once per op, so a chain of a few ops stays well inside.
TOLERANCE = {"f32": (2e-5, 1e-6), "f64": (1e-12, 1e-14),
             "f16": (4e-3, 1e-3), "bf16": (3e-2, 1e-2),
             "i32": (0, 0), "i64": (0, 0)}


def to_bf16_bits(x):
    """Rounds float values to bf16 (nearest even) and returns the bits."""
    f = np.asarray(x, dtype=np.float32)
    bits = f.reshape(-1).view(np.uint32).astype(np.uint64)
    one, half, shift = np.uint64(1), np.uint64(0x7FFF), np.uint64(16)
    rounded = (bits + half + ((bits >> shift) & one)) >> shift
    return rounded.astype(np.uint16).reshape(f.shape)


def from_bf16_bits(bits):
    bits = np.asarray(bits)
    wide = (bits.astype(np.uint32) << np.uint32(16)).astype(np.uint32).reshape(-1)
    return wide.view(np.float32).reshape(bits.shape)


def save(path, x, dtype):
    if dtype == "bf16":
        np.save(path, to_bf16_bits(x))
    else:
        np.save(path, np.asarray(x, dtype=NP_DTYPE[dtype]))


def load(path, dtype):
    a = np.load(path)
    if dtype == "bf16":
        assert a.dtype == np.uint16, a.dtype
        return from_bf16_bits(a).astype(np.float64)
    assert a.dtype == NP_DTYPE[dtype], (a.dtype, dtype)
    return a.astype(np.float64)


def rounded(x, dtype):
    """The value a tensor of `dtype` holds for the float64 value x."""
    if dtype == "bf16":
        return from_bf16_bits(to_bf16_bits(x)).astype(np.float64)
    return np.asarray(x, dtype=NP_DTYPE[dtype]).astype(np.float64)


# ---------------------------------------------------------------------------
# Cases: (program, {param: (dtype, shape, low, high)}, reference, results)
# `reference` takes the float64 inputs (already rounded to their dtype) and
# returns the float64 expected results; `results` lists their dtypes.
# ---------------------------------------------------------------------------

def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def logsumexp(x, axis, keepdims=False):
    m = x.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


CASES = {}
# Cases whose results must equal the reference bit for bit (random bits
# are exact arithmetic on every target).
EXACT = set()


ENTRY = {}


def case(name, program, params, reference, results, entry="f"):
    CASES[name] = (program, params, reference, results)
    ENTRY[name] = entry


def unary(name, fn, np_fn, low=-2.0, high=2.0, dtypes=("f32", "f64", "f16", "bf16")):
    for dt in dtypes:
        case(f"{name}-{dt}",
             f"fn f(x: {dt}[3, 5]) -> {dt}[3, 5] {{ return {fn}(x); }}",
             {"x": (dt, (3, 5), low, high)},
             lambda x, np_fn=np_fn: [np_fn(x)], [dt])


unary("exp", "exp", np.exp)
unary("log", "log", np.log, 0.1, 4.0)
unary("tanh", "tanh", np.tanh, -3, 3)
unary("sigmoid", "sigmoid", sigmoid, -8, 8)
unary("relu", "relu", lambda x: np.maximum(x, 0))
unary("sqrt", "sqrt", np.sqrt, 0.0, 4.0)
unary("rsqrt", "rsqrt", lambda x: 1 / np.sqrt(x), 0.1, 4.0)
unary("abs", "abs", np.abs)
unary("neg", "neg", np.negative)
unary("log1p", "log1p", np.log1p, -0.9, 4.0)
unary("expm1", "expm1", np.expm1, -3, 3)
unary("softplus", "softplus", lambda x: np.logaddexp(0, x), -30, 30)
unary("logsigmoid", "logsigmoid", lambda x: -np.logaddexp(0, -x), -30, 30)


def binary(name, expr, np_fn, low=-2.0, high=2.0, y_low=None, y_high=None,
           dtypes=("f32", "f64", "f16", "bf16")):
    for dt in dtypes:
        case(f"{name}-{dt}",
             f"fn f(x: {dt}[4, 3], y: {dt}[4, 3]) -> {dt}[4, 3] {{ return {expr}; }}",
             {"x": (dt, (4, 3), low, high),
              "y": (dt, (4, 3), low if y_low is None else y_low,
                    high if y_high is None else y_high)},
             lambda x, y, np_fn=np_fn: [np_fn(x, y)], [dt])


binary("add", "x + y", np.add)
binary("sub", "x - y", np.subtract)
binary("mul", "x * y", np.multiply)
binary("div", "x / y", np.divide, y_low=0.5, y_high=2.0)
binary("pow", "pow(x, y)", np.power, 0.1, 2.0)
binary("max", "maximum(x, y)", np.maximum)
binary("min", "minimum(x, y)", np.minimum)

case("broadcast-add",
     "fn f(a: f32[3, 1], b: f32[4]) -> f32[3, 4] { return a + b; }",
     {"a": ("f32", (3, 1), -1, 1), "b": ("f32", (4,), -1, 1)},
     lambda a, b: [a + b], ["f32"])
case("broadcast-explicit",
     "fn f(v: f32[4]) -> (f32[4, 3], f32[2, 4]) { return broadcast(v, [4, 3], dims: [0]), broadcast_to(v, [2, 4]); }",
     {"v": ("f32", (4,), -1, 1)},
     lambda v: [np.broadcast_to(v[:, None], (4, 3)), np.broadcast_to(v, (2, 4))],
     ["f32", "f32"])
case("literals",
     "fn f(x: f16[3]) -> (f16[3], f32, f64[2, 2]) { return x * 0.5 + 1, 2.5 * 4, ones_like(zeros_like(cast(broadcast_to(x[0], [2, 2]), f64))) + 1; }",
     {"x": ("f16", (3,), -1, 1)},
     lambda x: [x * 0.5 + 1, np.float64(10.0), np.full((2, 2), 2.0)],
     ["f16", "f32", "f64"])

for pred, np_op in [("<", np.less), ("<=", np.less_equal), (">", np.greater),
                    (">=", np.greater_equal), ("==", np.equal), ("!=", np.not_equal)]:
    nm = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}[pred]
    # Inputs on a coarse grid so that equal pairs occur.
    case(f"compare-{nm}",
         f"fn f(x: f32[6, 6], y: f32[6, 6]) -> f32[6, 6] {{ return where(x {pred} y, x, y); }}",
         {"x": ("f32", (6, 6), -2, 2, "grid"), "y": ("f32", (6, 6), -2, 2, "grid")},
         lambda x, y, np_op=np_op: [np.where(np_op(x, y), x, y)], ["f32"])
case("select-broadcast",
     "fn f(c: f32[4], a: f32[2, 1], b: f32[4]) -> f32[2, 4] { return where(c > 0.0, a, b); }",
     {"c": ("f32", (4,), -1, 1), "a": ("f32", (2, 1), -1, 1), "b": ("f32", (4,), -1, 1)},
     lambda c, a, b: [np.where(c > 0, a, b)], ["f32"])

for dt in ("f32", "f64", "f16", "bf16"):
    case(f"matmul-{dt}",
         f"fn f(a: {dt}[5, 7], b: {dt}[7, 3]) -> {dt}[5, 3] {{ return a @ b; }}",
         {"a": (dt, (5, 7), -1, 1), "b": (dt, (7, 3), -1, 1)},
         lambda a, b: [a @ b], [dt])
case("matmul-batched",
     "fn f(a: f32[2, 3, 4, 5], b: f32[2, 3, 5, 6]) -> f32[2, 3, 4, 6] { return a @ b; }",
     {"a": ("f32", (2, 3, 4, 5), -1, 1), "b": ("f32", (2, 3, 5, 6), -1, 1)},
     lambda a, b: [a @ b], ["f32"])
case("matmul-broadcast-batch",
     "fn f(a: f32[4, 5], b: f32[3, 5, 2], x: f32[3, 2, 4]) -> (f32[3, 4, 2], f32[3, 2, 5]) { return a @ b, x @ a; }",
     {"a": ("f32", (4, 5), -1, 1), "b": ("f32", (3, 5, 2), -1, 1), "x": ("f32", (3, 2, 4), -1, 1)},
     lambda a, b, x: [a @ b, x @ a], ["f32", "f32"])
case("matmul-large",
     "fn f(a: f32[64, 96], b: f32[96, 80]) -> f32[64, 80] { return a @ b; }",
     {"a": ("f32", (64, 96), -1, 1), "b": ("f32", (96, 80), -1, 1)},
     lambda a, b: [a @ b], ["f32"])
case("matmul-transposed-operands",
     "fn f(a: f32[7, 5], b: f32[3, 7]) -> f32[5, 3] { return transpose(a) @ transpose(b); }",
     {"a": ("f32", (7, 5), -1, 1), "b": ("f32", (3, 7), -1, 1)},
     lambda a, b: [a.T @ b.T], ["f32"])

case("transpose",
     "fn f(x: f32[2, 3, 4]) -> (f32[4, 3, 2], f32[3, 4, 2]) { return transpose(x), transpose(x, perm: [1, 2, 0]); }",
     {"x": ("f32", (2, 3, 4), -1, 1)},
     lambda x: [x.transpose(), x.transpose(1, 2, 0)], ["f32", "f32"])
case("reshape",
     "fn f(x: f32[2, 3, 4]) -> (f32[6, 4], f32[24], f32[4, 1, 6], f32) { return reshape(x, [6, 4]), reshape(x, [-1]), reshape(transpose(x), [4, 1, 6]), reshape(x[0, 0, 1], [1])[0]; }",
     {"x": ("f32", (2, 3, 4), -1, 1)},
     lambda x: [x.reshape(6, 4), x.reshape(-1), x.transpose().reshape(4, 1, 6), x[0, 0, 1]],
     ["f32", "f32", "f32", "f32"])
for red, np_red in [("sum", np.sum), ("mean", np.mean), ("max", np.max)]:
    for dt in ("f32", "f64", "f16"):
        case(f"reduce-{red}-{dt}",
             f"fn f(x: {dt}[3, 4, 5]) -> ({dt}, {dt}[3, 5], {dt}[1, 4, 1]) {{ return {red}(x), {red}(x, axes: [1]), {red}(x, axes: [0, 2], keepdims: true); }}",
             {"x": (dt, (3, 4, 5), -1, 1)},
             lambda x, r=np_red: [r(x), r(x, axis=1), r(x, axis=(0, 2), keepdims=True)],
             [dt, dt, dt])
# A long sum: accumulated in f32 it would be off by ~1% (1e6 x 0.1 gives
# 100958); tad accumulates f32 sums in f64 and f16/bf16 sums in f32.
case("sum-long",
     "fn f(x: f32[1000000], h: bf16[4096]) -> (f32, f32, bf16) { return sum(x), mean(x), sum(h); }",
     {"x": ("f32", (1000000,), 0.0999, 0.1001), "h": ("bf16", (4096,), 0.5, 1.5)},
     lambda x, h: [np.sum(x), np.mean(x), np.sum(h)], ["f32", "f32", "bf16"])
case("softmax",
     "fn f(x: f32[4, 6]) -> (f32[4, 6], f32[4, 6]) { return softmax(x), softmax(x * 1000.0, axis: 0); }",
     {"x": ("f32", (4, 6), -3, 3)},
     lambda x: [softmax(x, -1), softmax(x.astype(np.float32).astype(np.float64) * 1000, 0)],
     ["f32", "f32"])
case("logsumexp",
     "fn f(x: f32[4, 6]) -> (f32[4], f32[1, 6], f32[4]) { return logsumexp(x), logsumexp(x, axis: 0, keepdims: true), logsumexp(x * 1000.0); }",
     {"x": ("f32", (4, 6), -3, 3)},
     lambda x: [logsumexp(x, 1), logsumexp(x, 0, True), logsumexp(x * 1000, 1)],
     ["f32", "f32", "f32"])
case("logsumexp-neg-inf",
     "fn f(x: f32[2, 3]) -> f32[2] { return logsumexp(log(x), axis: 1); }",
     {"x": ("f32", (2, 3), 0, 0, "zeros-first-row")},
     lambda x: [logsumexp(np.log(x), 1)],
     ["f32"])
case("slice",
     "fn f(x: f32[5, 6]) -> (f32[2, 3], f32[5, 2]) { return slice(x, start: [1, 0], limit: [3, 6], step: [1, 2]), slice(x, [0, 4], [5, 6]); }",
     {"x": ("f32", (5, 6), -1, 1)},
     lambda x: [x[1:3, 0:6:2], x[0:5, 4:6]], ["f32", "f32"])
case("concat",
     "fn f(a: f32[2, 3], b: f32[4, 3], c: f32[2, 2]) -> (f32[6, 3], f32[2, 8]) { return concat(a, b), concat(a, c, a, axis: 1); }",
     {"a": ("f32", (2, 3), -1, 1), "b": ("f32", (4, 3), -1, 1), "c": ("f32", (2, 2), -1, 1)},
     lambda a, b, c: [np.concatenate([a, b]), np.concatenate([a, c, a], axis=1)],
     ["f32", "f32"])
case("cast",
     "fn f(x: f32[8], h: f16[8], b: bf16[8], d: f64[8]) -> (f16[8], bf16[8], f32[8], f32[8], f32[8], bf16[8], f16[8]) { return cast(x, f16), cast(x, bf16), cast(h, f32), cast(b, f32), cast(d, f32), cast(h, bf16), cast(b, f16); }",
     {"x": ("f32", (8,), -100, 100), "h": ("f16", (8,), -100, 100),
      "b": ("bf16", (8,), -100, 100), "d": ("f64", (8,), -100, 100)},
     lambda x, h, b, d: [x, x, h, b, d, h, b],
     ["f16", "bf16", "f32", "f32", "f32", "bf16", "f16"])
case("stop-gradient",
     "fn f(x: f32[3]) -> f32[3] { return stop_gradient(x) * 2; }",
     {"x": ("f32", (3,), -1, 1)},
     lambda x: [x * 2], ["f32"])
case("checkpoint",
     "fn f(x: f32[3], w: f32[3]) -> (f32[3], f32) { let a = 0.0; let h = checkpoint(tanh(x * w)); checkpoint { h = h * 2; a = a + sum(h); } return h, a; }",
     {"x": ("f32", (3,), -1, 1), "w": ("f32", (3,), -1, 1)},
     lambda x, w: [np.tanh(x * w) * 2, np.sum(np.tanh(x * w) * 2)],
     ["f32", "f32"])
case("loop-take",
     "fn f(x: f32[4], ws: f32[5, 4]) -> (f32[4], f32) { let h = x; let s = 0.0; for i in 0..5 { h = tanh(h * ws[i]); s = s + mean(h); } return h, s; }",
     {"x": ("f32", (4,), -1, 1), "ws": ("f32", (5, 4), -2, 2)},
     lambda x, ws: loop_take_reference(x, ws), ["f32", "f32"])
def loop_slice_reference(s):
    acc = s[:, 0:2].copy()
    for k in range(1, 5):
        acc = acc + s[:, k:k + 2] * s[:, k:k + 1] + s[-1, k]
    return [acc, s[1:3, -2:]]


case("loop-slice",
     "fn f(s: f32[4, 6]) -> (f32[4, 2], f32[2, 2]) { let acc = s[:, 0:2]; for k in 1..5 { acc = acc + s[:, k:k+2] * s[:, k:k+1] + s[-1, k]; } return acc, s[1:3, -2:]; }",
     {"s": ("f32", (4, 6), -1, 1)},
     loop_slice_reference, ["f32", "f32"])
case("if-else",
     "fn f(x: f32[4], s: f32) -> f32[4] { let y = x; if s > 0.0 { y = y * s; } else if s < -0.5 { y = -y; } else { y = y + 1; } return y; }",
     {"x": ("f32", (4,), -1, 1), "s": ("f32", (), -1, 1)},
     lambda x, s: [x * s if s > 0 else (-x if s < -0.5 else x + 1)], ["f32"])
case("call-and-rule",
     "fn g(x: f32[3]) -> (f32[3], f32) { return exp(x), sum(x); } fn f(x: f32[3]) -> f32[3] { let (a, b) = g(x); return a * b; }",
     {"x": ("f32", (3,), -1, 1)},
     lambda x: [np.exp(x) * np.sum(x)], ["f32"])
# stop_gradient: finite differences see the function, not the gradient rule,
# so the expected gradient is written out: d/dx = x w + w, d/dw = x.
case("stop-gradient-grad",
     "fn g(x: f64[3], w: f64[3]) -> f64 { return sum(stop_gradient(x * w) * x + x * w); } fn f = grad(g);",
     {"x": ("f64", (3,), -1, 1), "w": ("f64", (3,), -1, 1)},
     lambda x, w: [x * w + w, x], ["f64", "f64"], entry="f")
# tad.insert_slice is produced by AD (the adjoint of slice): MLIR input.
case("insert-slice", """
func.func @f(%x: tensor<3x5xf32>, %s: tensor<2x2xf32>) -> tensor<3x5xf32> {
  %r = tad.insert_slice %s into %x start [0, 1] step [2, 3] : tensor<2x2xf32> into tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}""", {"x": ("f32", (3, 5), -1, 1), "s": ("f32", (2, 2), -1, 1)},
     lambda x, s: [insert_slice_reference(x, s)], ["f32"])
# tad.update is produced by AD, not by the language: MLIR input.
case("update", """
func.func @f(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %i = arith.constant 1 : index
  %r = tad.update %v into %x[%i] : tensor<4xf32> into tensor<3x4xf32>
  %j = arith.constant 7 : index
  %s = tad.update %v into %r[%j] : tensor<4xf32> into tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}""", {"x": ("f32", (3, 4), -1, 1), "v": ("f32", (4,), -1, 1)},
     lambda x, v: [update_reference(x, v)], ["f32"])


def loop_take_reference(x, ws):
    h, s = x, 0.0
    for i in range(5):
        h = rounded(np.tanh(h * ws[i]), "f32")
        s = rounded(s + np.mean(h), "f32")
    return [h, s]


def insert_slice_reference(x, s):
    r = x.copy()
    r[0:3:2, 1:5:3] = s
    return r


def update_reference(x, v):
    r = x.copy()
    r[1] = v
    r[2] = v  # index 7 is clamped to the last row
    return r


# ---------------------------------------------------------------------------
# Integers and indexing: exact results. Inputs stay small, so that no sum
# wraps (wrapping is two's complement, as NumPy's).
# ---------------------------------------------------------------------------

for dt in ("i32", "i64"):
    case(f"int-arith-{dt}",
         f"fn f(x: {dt}[4, 3], y: {dt}[4, 3]) -> ({dt}[4, 3], {dt}[4, 3], {dt}[4, 3], {dt}[4, 3]) "
         "{ return x + y * 3 - 1, abs(-x), maximum(x, y), minimum(x, 2); }",
         {"x": (dt, (4, 3), -50, 50), "y": (dt, (4, 3), -50, 50)},
         lambda x, y: [x + y * 3 - 1, np.abs(x), np.maximum(x, y), np.minimum(x, 2)],
         [dt] * 4)
    case(f"int-compare-{dt}",
         f"fn f(x: {dt}[6, 6], y: {dt}[6, 6]) -> ({dt}[6, 6], {dt}[6, 6]) "
         "{ return where(x >= y, x, y), where(x == y, 1, where(x != 0, x, 7)); }",
         {"x": (dt, (6, 6), -2, 2), "y": (dt, (6, 6), -2, 2)},
         lambda x, y: [np.where(x >= y, x, y), np.where(x == y, 1, np.where(x != 0, x, 7))],
         [dt, dt])
    case(f"int-reduce-{dt}",
         f"fn f(x: {dt}[5, 7]) -> ({dt}, {dt}[5], {dt}[7], {dt}[5, 1]) "
         "{ return sum(x), sum(x, axes: [1]), max(x, axes: [0]), max(x, axes: [1], keepdims: true); }",
         {"x": (dt, (5, 7), -1000, 1000)},
         lambda x: [x.sum(), x.sum(1), x.max(0), x.max(1, keepdims=True)],
         [dt] * 4)
    case(f"int-shapes-{dt}",
         f"fn f(x: {dt}[2, 3]) -> ({dt}[3, 2], {dt}[6], {dt}[4, 3], {dt}[2, 2], {dt}[4, 2, 3]) "
         "{ return transpose(x), reshape(x, [6]), concat(x, x, axis: 0), x[:, 1:3], broadcast_to(x, [4, 2, 3]); }",
         {"x": (dt, (2, 3), -9, 9)},
         lambda x: [x.T, x.reshape(6), np.concatenate([x, x]), x[:, 1:3],
                    np.broadcast_to(x, (4, 2, 3))],
         [dt] * 5)
# Float to integer rounds toward zero and saturates (NaN is 0: its case is
# in test/Python/integers_check.py, as uniform inputs have none).
case("cast-int",
     "fn f(x: f32[4, 4], n: i32[4, 4], w: i64[4]) -> (i32[4, 4], i64[4, 4], f64[4, 4], i32[4], f32[4]) "
     "{ return cast(x, i32), cast(x, i64), cast(n, f64), cast(w, i32), cast(w, f32); }",
     {"x": ("f32", (4, 4), -6e9, 6e9), "n": ("i32", (4, 4), -100, 100),
      "w": ("i64", (4,), -100, 100)},
     lambda x, n, w: [np.clip(np.trunc(x), -2.0**31, 2.0**31 - 1),
                      np.trunc(x), n, w, w],
     ["i32", "i64", "f64", "i32", "f32"])
case("cast-int-f16",
     "fn f(n: i32[6], x: f16[6]) -> (f16[6], i64[6]) { return cast(n, f16), cast(x * 100.0, i64); }",
     {"n": ("i32", (6,), -5000, 5000), "x": ("f16", (6,), -600, 600)},
     lambda n, x: [n, np.trunc(np.float16(x * 100.0).astype(np.float64))],
     ["f16", "i64"])
case("take-axis0",
     "fn f(t: f32[10, 3], ids: i32[2, 4]) -> f32[2, 4, 3] { return take(t, ids); }",
     {"t": ("f32", (10, 3), -1, 1), "ids": ("i32", (2, 4), 0, 9)},
     lambda t, ids: [t[ids.astype(int)]], ["f32"])
case("take-axis1-i64",
     "fn f(t: f64[3, 5, 2], ids: i64[4]) -> f64[3, 4, 2] { return take(t, ids, axis: 1); }",
     {"t": ("f64", (3, 5, 2), -1, 1), "ids": ("i64", (4,), 0, 4)},
     lambda t, ids: [t[:, ids.astype(int)]], ["f64"])
# Ids outside the table are clamped into it.
case("take-clamped",
     "fn f(t: f32[6, 2], ids: i32[12]) -> f32[12, 2] { return take(t, ids); }",
     {"t": ("f32", (6, 2), -1, 1), "ids": ("i32", (12,), -20, 20)},
     lambda t, ids: [t[np.clip(ids.astype(int), 0, 5)]], ["f32"])
# take_along_axis: NumPy's, with indices clamped into the axis.
case("take-along-axis",
     "fn f(x: f32[3, 5], ids: i32[3, 2], y: f64[4, 3, 2], jds: i64[4, 1, 2]) -> (f32[3, 2], f64[4, 1, 2]) "
     "{ return take_along_axis(x, ids, axis: 1), take_along_axis(y, jds, 1); }",
     {"x": ("f32", (3, 5), -1, 1), "ids": ("i32", (3, 2), -3, 8),
      "y": ("f64", (4, 3, 2), -1, 1), "jds": ("i64", (4, 1, 2), -3, 6)},
     lambda x, ids, y, jds: [
         np.take_along_axis(x, np.clip(ids.astype(int), 0, 4), 1),
         np.take_along_axis(y, np.clip(jds.astype(int), 0, 2), 1)],
     ["f32", "f64"])
case("one-hot",
     "fn f(ids: i32[3, 4]) -> (f32[3, 4, 5], f64[3, 4, 5]) { return one_hot(ids, 5), one_hot(ids, depth: 5, to: f64); }",
     {"ids": ("i32", (3, 4), -1, 5)},
     lambda ids: [(ids[..., None] == np.arange(5))] * 2, ["f32", "f64"])
case("iota-mask",
     "fn f(s: f32[5, 5]) -> (f32[5, 5], i64[2, 5], f32[3]) "
     "{ return where(iota([5, 5], axis: 0) >= iota([5, 5], axis: 1), s, -1e9), iota([2, 5], axis: 1, to: i64), iota([3], to: f32); }",
     {"s": ("f32", (5, 5), -1, 1)},
     lambda s: [np.where(np.tril(np.ones((5, 5), bool)), s, -1e9),
                np.broadcast_to(np.arange(5), (2, 5)), np.arange(3)],
     ["f32", "i64", "f32"])
# The derivative of take: repeated ids add up (np.add.at), in order.
def scatter_add_reference(t, ids, w):
    g = np.zeros_like(t)
    np.add.at(g, np.clip(ids.astype(int), 0, t.shape[0] - 1), w)
    return [g]


case("take-grad",
     "fn g(t: f64[6, 2], ids: i32[9], w: f64[9, 2]) -> f64 { return sum(take(t, ids) * w); } fn f = grad(g, wrt: [t]);",
     {"t": ("f64", (6, 2), -1, 1), "ids": ("i32", (9,), -2, 7),
      "w": ("f64", (9, 2), -1, 1)},
     scatter_add_reference, ["f64"])
# Counter-based random numbers: Philox 4x32-10 (Random123's philox4x32_10)
# predicts every bit of the uniforms, keys and masks; test/Python/
# random_check.py checks this reference on Random123's known answers.
MASK32 = 0xFFFFFFFF


def philox(counter, key):
    c, k = list(counter), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & MASK32, (k[1] + 0xBB67AE85) & MASK32]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK32,
             (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK32]
    return c


def philox_words(key, i, stream):
    """Element i of a stream of `key` (0 samples, 1 split keys, 2 fold_in)."""
    key = int(key) & ((1 << 64) - 1)
    return philox([i & MASK32, i >> 32, stream, 0], [key & MASK32, key >> 32])


def random_reference(key):
    def uniform32(k, n):
        return np.array([(philox_words(k, i, 0)[0] >> 8) * 2.0**-24
                         for i in range(n)])

    def as_key(w):
        return (w[1] << 32) | w[0]

    u32 = uniform32(key, 12)
    u64 = np.array([(((w[1] >> 6) << 27) | (w[0] >> 5)) * 2.0**-53
                    for w in (philox_words(key, i, 0) for i in range(5))])
    # Keys do not fit a float64: the uniforms they draw do.
    split1 = as_key(philox_words(key, 1, 1))
    folded = as_key(philox_words(key, 4, 2))
    return [u32.reshape(3, 4), u64, uniform32(split1, 3), uniform32(folded, 3),
            (u32[:6] < np.float32(0.25)) * 1.0]


case("random",
     "fn f(key: i64) -> (f32[3, 4], f64[5], f32[3], f32[3], f32[6]) { "
     "return random_uniform(key, [3, 4]), random_uniform(key, [5], to: f64), "
     "random_uniform(split(key, 3)[1], [3]), random_uniform(fold_in(key, 4), [3]), "
     "where(bernoulli(key, 0.25, [6]), 1.0, 0.0); }",
     {"key": ("i64", (), -1000, 1000)},
     random_reference, ["f32", "f64", "f32", "f32", "f32"])
EXACT.add("random")
# Ties on a grid: the first of equal elements wins, as in NumPy.
case("argmax",
     "fn f(x: f32[6, 6], n: i64[4, 5]) -> (i32[6], i32[6], i32[6, 1], i32[5]) "
     "{ return argmax(x, axis: 1), argmin(x, axis: 0), argmax(x, axis: -1, keepdims: true), argmax(n, axis: 0); }",
     {"x": ("f32", (6, 6), -2, 2, "grid"), "n": ("i64", (4, 5), -3, 3)},
     lambda x, n: [np.argmax(x, 1), np.argmin(x, 0), np.argmax(x, 1)[:, None],
                   np.argmax(n, 0)],
     ["i32"] * 4)


# ---------------------------------------------------------------------------
# Running a case
# ---------------------------------------------------------------------------

def make_input(name, spec, rng):
    dtype, shape, low, high = spec[:4]
    kind = spec[4] if len(spec) > 4 else "uniform"
    if kind == "grid":
        x = rng.integers(-2, 3, size=shape) * 0.5
    elif kind == "zeros-first-row":
        x = rng.uniform(0.5, 2.0, size=shape)
        x[0, :] = 0.0
    elif dtype in ("i32", "i64"):
        x = rng.integers(low, high + 1, size=shape)
    else:
        x = rng.uniform(low, high, size=shape)
    return rounded(x, dtype)


def write_case(name, workdir):
    """Writes case NAME's program and its inputs (NAME.npy, or arg<i>.npy
    for an MLIR program, whose parameters have no names) into WORKDIR.
    Returns the program's path and the inputs."""
    program, params, _, _ = CASES[name]
    is_mlir = program.lstrip().startswith("func.func")
    src = os.path.join(workdir, "program.mlir" if is_mlir else "program.tad")
    with open(src, "w") as f:
        f.write(program)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs = {}
    for i, (pname, spec) in enumerate(params.items()):
        inputs[pname] = make_input(pname, spec, rng)
        save(os.path.join(workdir, (f"arg{i}" if is_mlir else pname) + ".npy"),
             inputs[pname], spec[0])
    return src, inputs


def compare(name, inputs, outdir, stats):
    """Compares the results in OUTDIR (named by the run's --stats-json
    STATS) with NumPy's; prints PASS or FAIL lines."""
    _, _, reference, result_types = CASES[name]
    expected = reference(**inputs)
    # The result files' names, in order (result<i>, or a derivative's
    # value and grad_<param>).
    with open(stats) as f:
        names = json.load(f)["results"]
    ok = True
    for i, (want, dtype) in enumerate(zip(expected, result_types)):
        got = load(os.path.join(outdir, f"{names[i]}.npy"), dtype)
        want = rounded(np.asarray(want, dtype=np.float64), dtype)
        rtol, atol = (0, 0) if name in EXACT else TOLERANCE[dtype]
        if got.shape != want.shape:
            print(f"FAIL {name} {names[i]}: shape {got.shape}, expected {want.shape}")
            ok = False
        elif not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            err = np.max(np.abs(got - want))
            print(f"FAIL {name} {names[i]}: max abs error {err}\n got  {got}\n want {want}")
            ok = False
    if ok:
        print(f"PASS {name}: {len(expected)} result(s) match NumPy")
    return ok


def execute(name, args):
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        print(f"FAIL {name}: {os.path.basename(args[0])} exited with "
              f"{proc.returncode}")
        return False
    return True


def run_case(name, tadc, workdir, extra=()):
    src, inputs = write_case(name, workdir)
    stats = os.path.join(workdir, "stats.json")
    args = [tadc, "run", src, "--entry", ENTRY[name], "--output-dir",
            workdir, f"--stats-json={stats}", "--inputs", workdir]
    return (execute(name, args + list(extra)) and
            compare(name, inputs, workdir, stats))


def bundle_case(name, tadc, folder, extra=()):
    """Compiles case NAME into FOLDER/NAME/program (--emit=exe) beside its
    inputs, for --run-bundle on a machine without tad."""
    workdir = os.path.join(folder, name)
    os.makedirs(workdir, exist_ok=True)
    src, _ = write_case(name, workdir)
    args = [tadc, src, "--entry", ENTRY[name], "--emit=exe", "-o",
            os.path.join(workdir, "program")]
    if not execute(name, args + list(extra)):
        return False
    print(f"compiled {name}")
    return True


def run_bundled_case(name, folder):
    workdir = os.path.join(folder, name)
    with tempfile.TemporaryDirectory() as outdir:
        stats = os.path.join(outdir, "stats.json")
        args = [os.path.join(workdir, "program"), "--inputs", workdir,
                "--output-dir", outdir, f"--stats-json={stats}"]
        # The inputs are made again from the case's seed, to hand them to
        # the reference; they equal the files the executable reads.
        _, inputs = write_case(name, outdir)
        return execute(name, args) and compare(name, inputs, outdir, stats)


def main():
    np.seterr(divide="ignore", invalid="ignore", over="ignore")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tadc")
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--family",
                        help="run the case NAME and its dtype variants NAME-f32, ...")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--all", action="store_true", help="run every case")
    parser.add_argument("--tadc-arg", action="append", default=[],
                        help="pass this argument to tadc run as well "
                             "(e.g. --tadc-arg=--target=cuda-emulator)")
    parser.add_argument("--bundle", metavar="DIR",
                        help="compile the cases into DIR instead of running them")
    parser.add_argument("--run-bundle", metavar="DIR",
                        help="run the cases compiled into DIR by --bundle")
    parser.add_argument("--shard", metavar="K/N",
                        help="of the selected cases, in order, run only "
                             "the Kth of every N (0 <= K < N): a sample "
                             "whose N shards together are every case")
    args = parser.parse_args()
    if args.run_bundle:
        args.case += sorted(n for n in os.listdir(args.run_bundle)
                            if n in CASES)
    if args.list:
        print("\n".join(sorted(CASES)))
        return 0
    names = list(args.case)
    if args.all:
        names += sorted(CASES)
    if args.family:
        names += sorted(n for n in CASES
                        if n == args.family or
                        n in (f"{args.family}-{dt}" for dt in TOLERANCE))
    if args.shard:
        try:
            k, n = (int(x) for x in args.shard.split("/"))
        except ValueError:
            k = n = 0
        if not 0 <= k < n:
            parser.error(f"--shard {args.shard}: want K/N with 0 <= K < N")
        names = names[k::n]
    if not names:
        parser.error("no case selected")
    failed = 0
    for name in names:
        if name not in CASES:
            print(f"unknown case {name}")
            failed += 1
            continue
        if args.run_bundle:
            failed += not run_bundled_case(name, args.run_bundle)
        elif args.bundle:
            failed += not bundle_case(name, args.tadc, args.bundle,
                                      args.tadc_arg)
        else:
            with tempfile.TemporaryDirectory() as workdir:
                failed += not run_case(name, args.tadc, workdir, args.tadc_arg)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
