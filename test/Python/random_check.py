"""Counter-based random numbers (issue 47): a NumPy Philox 4x32-10, checked
against Random123's known-answer vectors, predicts every bit that tad's
random_uniform (f32, f64, f16), split, fold_in, bernoulli and dropout
draw, for several keys; random_normal agrees to a few ulp (its log and
cos are the target's); a saturating float-to-integer cast turns NaN into
0. argv: tadc, a scratch folder."""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402

# The reference Philox of the op cases (which also run on the emulated GPU).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Execution"))
from op_check import MASK32 as MASK, philox, philox_words as words  # noqa: E402

# Random123's known answers (kat_vectors: philox4x32 10).
assert philox([0] * 4, [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
assert philox([MASK] * 4, [MASK] * 2) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
assert philox([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
              [0xA4093822, 0x299F31D0]) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def unit32(w):
    return (w[0] >> 8) * 2.0**-24


def unit64(w):
    return (((w[1] >> 6) << 27) | (w[0] >> 5)) * 2.0**-53


def as_key(w):
    return np.array([(w[1] << 32) | w[0]], np.uint64).view(np.int64)[0]


source = """
fn draws(key: i64) -> (f32[3, 5], f64[7], f16[6], i64[3], i64, f32[8], f32[4]) {
  return random_uniform(key, [3, 5]), random_uniform(key, [7], to: f64),
         random_uniform(key, [6], to: f16), split(key, 3), fold_in(key, 5),
         where(bernoulli(key, 0.3, [8]), 1.0, 0.0), random_normal(key, [4]);
}
fn masked(x: f64[2, 4], key: i64) -> f64[2, 4] { return dropout(x, 0.25, key); }
fn saturate(x: f32[5]) -> (i32[5], i64[5]) { return cast(x, i32), cast(x, i64); }
"""
m = tad.compile(source)
x = np.arange(1.0, 9.0).reshape(2, 4)
for key in (0, 1, 42, -7, 2**62 + 12345):
    r = m.draws(np.int64(key))
    u32 = np.array([unit32(words(key, i, 0)) for i in range(15)], np.float32)
    assert np.array_equal(r["result0"], u32.reshape(3, 5)), key
    u64 = np.array([unit64(words(key, i, 0)) for i in range(7)])
    assert np.array_equal(r["result1"], u64), key
    assert np.array_equal(r["result2"], u32[:6].astype(np.float16)), key
    keys = np.array([as_key(words(key, i, 1)) for i in range(3)])
    assert np.array_equal(r["result3"], keys), key
    assert r["result4"] == as_key(words(key, 5, 2)), key
    assert np.array_equal(r["result5"], (u32[:8] < np.float32(0.3)).astype(np.float32))
    normal = np.array([np.sqrt(-2 * np.log(1 - unit32(w))) *
                       np.cos(2 * np.pi * unit32(w[1:]))
                       for w in (words(key, i, 0) for i in range(4))])
    assert np.allclose(r["result6"], normal, rtol=2e-6, atol=2e-6), key
    drop = np.array([unit64(words(key, i, 0)) < 0.25 for i in range(8)])
    want = np.where(drop.reshape(2, 4), 0.0, x / 0.75)
    assert np.array_equal(m.masked(x, np.int64(key))["result0"], want), key

# The same key draws the same numbers in every call: nothing is stateful.
assert np.array_equal(m.draws(np.int64(9))["result0"], m.draws(np.int64(9))["result0"])

s = m.saturate(np.array([np.nan, 3e9, -3e9, -2.9, 1e20], np.float32))
assert s["result0"].tolist() == [0, 2**31 - 1, -2**31, -2, 2**31 - 1], s
assert s["result1"].tolist() == [0, 3000000000, -3000000000, -2, 2**63 - 1], s
print("ok: counter-based random numbers")
