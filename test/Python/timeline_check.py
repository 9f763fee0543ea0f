"""tad.Module.memory_timeline() (docs/python.md): after a call under a
budget, a figure of the measured and predicted timelines that savefig
writes as a PNG. argv: tadc, a scratch folder."""
import os
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import tad  # noqa: E402

m = tad.compile(os.path.join(HERE, "..", "..", "examples", "mlp.tad"),
                entry="mlp_value_and_grad", budget="100%")
try:
    m.memory_timeline()
    raise AssertionError("a timeline before any call")
except ValueError as e:
    assert "no call yet" in str(e), e
f = m.mlp_value_and_grad
f(*[np.full(p.shape, 0.1, np.float32) for p in f.params])
figure = m.memory_timeline()
labels = [line.get_label() for line in figure.axes[0].get_lines()]
assert labels == ["predicted (buffer plan, remat report)", "budget",
                  "measured (runtime allocator)"], labels
# The measured line peaks at the allocator's peak.
measured = figure.axes[0].get_lines()[2].get_ydata()
assert abs(max(measured) * 1024 - m.stats["peak_bytes"]) < 1, (
    max(measured), m.stats)
path = os.path.join(scratch, "timeline.png")
figure.savefig(path)
with open(path, "rb") as png:
    assert png.read(8) == b"\x89PNG\r\n\x1a\n"
print(f"ok: the memory timeline ({os.path.getsize(path)} bytes of PNG)")
