"""Functions of records wide enough for tad-bufferize-wide-signatures
(300 fields in and 300 out: 90,000 argument-result pairs, past its 65,536)
compute what the narrow ones do: the identity, an update of two fields,
and a gradient, with the caller's inputs unchanged.

    python3 wide_boundaries_check.py TADC SCRATCH
"""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
import tad  # noqa: E402

n = 300
fields = [f"a{i}" for i in range(n)]
source = ("struct Wide { " + ", ".join(f"{f}: f32[3]" for f in fields) +
          " }\n"
          "fn same(p: Wide) -> Wide { return p; }\n"
          "fn upd(p: Wide, s: f32) -> Wide {\n"
          "  let q = p; q.a0 = p.a0 * s; q.a7 = p.a3 + p.a4; return q;\n}\n"
          "fn loss(p: Wide) -> f32 { return " +
          " + ".join(f"sum(p.{f} * p.{f})" for f in fields) + "; }\n"
          "fn dloss = grad(loss, wrt: [p]);\n")
m = tad.compile(source)
wide = {f: np.arange(3, dtype=np.float32) + i for i, f in enumerate(fields)}
kept = {f: v.copy() for f, v in wide.items()}

out = m.same(p=wide)
assert all(np.array_equal(out[f"result0.{f}"], wide[f]) for f in fields)
u = m.upd(p=wide, s=np.float32(3))
assert np.array_equal(u["result0.a0"], wide["a0"] * 3)
assert np.array_equal(u["result0.a7"], wide["a3"] + wide["a4"])
assert all(np.array_equal(u[f"result0.{f}"], wide[f])
           for f in fields if f not in ("a0", "a7"))
g = m.dloss(p=wide)
assert all(np.array_equal(g[f"grad_p.{f}"], 2 * wide[f]) for f in fields)
assert all(np.array_equal(wide[f], kept[f]) for f in fields), \
    "an input changed"
print("wide boundaries: ok")
