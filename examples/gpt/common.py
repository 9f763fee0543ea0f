"""What examples/gpt/train.py, examples/gpt/torch_twin.py and
bench/gpt/step.py share: the sizes, the text and its vocabulary, the
batches, the NumPy initialization, the NumPy AdamW and the compiled tad
module (docs/tutorial-gpt.md).

Parameters are a flat dict from a path ("wte", "h0.wq", ...) to a NumPy
array, in the layout of gpt.tad's `Gpt` record: weights are [in, out]. A
tad function takes them as leaf paths ("p.h0.wq", docs/python.md), and its
gradient comes back as "grad_p.h0.wq".
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(HERE, "gpt.tad")

# The sizes gpt.tad is compiled at (it is generic in all but H and
# N_LAYER, which its code spells out).
B, T, D, H, N_LAYER, MLP = 16, 32, 64, 4, 2, 256

# A text that every Debian system ships.
DEFAULT_TEXT = "/usr/share/common-licenses/GPL-3"

BLOCK_FIELDS = [  # name, shape, kind: "w" matrix, "b" bias, "g" LN gain
    ("ln1_g", [D], "g"), ("ln1_b", [D], "b"),
    ("wq", [D, D], "w"), ("bq", [D], "b"),
    ("wk", [D, D], "w"), ("bk", [D], "b"),
    ("wv", [D, D], "w"), ("bv", [D], "b"),
    ("wo", [D, D], "proj"), ("bo", [D], "b"),
    ("ln2_g", [D], "g"), ("ln2_b", [D], "b"),
    ("w_fc", [D, MLP], "w"), ("b_fc", [MLP], "b"),
    ("w_proj", [MLP, D], "proj"), ("b_proj", [D], "b"),
]


def setup_tad():
    """Makes `import tad` work from anywhere and points it at the build's
    tadc (as test/Python/*_check.py do), unless the caller set its own."""
    os.environ.setdefault("TAD_TADC", os.path.join(ROOT, "build", "bin",
                                                   "tadc"))
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    import tad
    return tad


def param_shapes(vocab):
    """The flat parameter paths, in the record's field order, with their
    shapes and kinds."""
    shapes = [("wte", [vocab, D], "w"), ("wpe", [T, D], "w")]
    for i in range(N_LAYER):
        shapes += [(f"h{i}.{n}", s, k) for n, s, k in BLOCK_FIELDS]
    shapes += [("lnf_g", [D], "g"), ("lnf_b", [D], "b"),
               ("head", [D, vocab], "w")]
    return shapes


def init_params(vocab, seed=0, dtype=np.float32):
    """GPT-2's initialization: every matrix normal with std 0.02, the
    residual projections (wo, w_proj) with 0.02 / sqrt(2 * N_LAYER), biases
    zero, LayerNorm gains one. Drawn in float64 from one seeded generator
    and rounded to `dtype`, so that the f32 and f64 models start from the
    same numbers."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape, kind in param_shapes(vocab):
        if kind == "w":
            value = rng.normal(0.0, 0.02, shape)
        elif kind == "proj":
            value = rng.normal(0.0, 0.02 / np.sqrt(2 * N_LAYER), shape)
        elif kind == "g":
            value = np.ones(shape)
        else:
            value = np.zeros(shape)
        params[name] = value.astype(dtype)
    return params


def decays(name, value):
    """Weight decay applies to matrices only (embeddings, the attention
    and MLP weights, the head), not to biases or LayerNorm parameters."""
    return value.ndim >= 2


def load_text(path=DEFAULT_TEXT):
    if not os.path.exists(path):
        sys.exit(f"{path} does not exist: give another text with --text")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], dtype=np.int32)
    split = int(0.9 * len(ids))
    return chars, ids[:split], ids[split:]


# gpt.tad's entry points, and the batch each is compiled at.
ENTRIES = {"train_step": B, "loss": B, "logits": 1}


def instance_name(entry, vocab, dtype="f32", batch=None):
    """The exported name of `entry`'s instance (docs/language.md,
    Shape-generic functions): its generic parameters in order."""
    batch = ENTRIES[entry] if batch is None else batch
    return f"{entry}_{dtype}_B{batch}_V{vocab}_T{T}_D{D}_F{MLP}"


class Model:
    """The compiled model: `train_step` (value_and_grad of the loss wrt
    the record), `loss` and `logits`, each the instance at this vocabulary
    and element type; anything else is the module's (`stats`,
    `set_num_threads`, `remat_report`)."""

    def __init__(self, module, vocab, dtype):
        self.module = module
        for entry in ENTRIES:
            setattr(self, entry, getattr(module, instance_name(entry, vocab,
                                                               dtype)))

    def __getattr__(self, name):
        return getattr(self.module, name)


def instance_options(vocab, dtype="f32"):
    """The tadc flags that compile gpt.tad's entry points at `vocab` and
    `dtype` into one library."""
    return [f"--instantiate={entry}[E={dtype},B={batch},V={vocab},T={T},"
            f"D={D},F={MLP}]" for entry, batch in ENTRIES.items()]


def compile_gpt(tad, vocab, dtype="f32", source=SOURCE, **options):
    """gpt.tad compiled at `vocab` characters in `dtype` (f32 or f64), one
    source for every text and both element types. `source` may be another
    text of the model; `options` are tad.compile's (a budget, ...)."""
    extra = list(options.pop("options", ()))
    return Model(tad.compile(source, options=instance_options(vocab, dtype)
                             + extra, **options), vocab, dtype)


def leaf_inputs(params):
    """The record `p` as leaf paths, the form tad's functions accept."""
    return {"p." + k: v for k, v in params.items()}


def gradients(results, params):
    """The flat gradient dict from a step's results."""
    return {k: results["grad_p." + k] for k in params}


class Batches:
    """Random windows of T + 1 characters: ids are the first T, targets the
    last T. The generator is seeded, so tad and the PyTorch twin see the
    same batches in the same order."""

    def __init__(self, data, seed):
        self.data = data
        self.rng = np.random.default_rng(seed)

    def next(self):
        starts = self.rng.integers(0, len(self.data) - T - 1, B)
        return windows(self.data, starts)


def windows(data, starts):
    rows = np.stack([data[s:s + T + 1] for s in starts])
    return (np.ascontiguousarray(rows[:, :T], dtype=np.int32),
            np.ascontiguousarray(rows[:, 1:], dtype=np.int32))


def eval_batches(data, count=8):
    """`count` fixed batches of windows spread evenly over `data`: the
    same every evaluation, so that the losses of a run are comparable."""
    starts = np.linspace(0, len(data) - T - 1, count * B).astype(np.int64)
    return [windows(data, starts[i * B:(i + 1) * B]) for i in range(count)]


class AdamW:
    """AdamW in NumPy, as torch.optim.AdamW (PyTorch 1.13) computes it:
    p *= 1 - lr * wd (decoupled weight decay, on matrices only); m and v
    the moving averages of g and g^2; p -= lr / (1 - b1^t) * m /
    (sqrt(v) / sqrt(1 - b2^t) + eps). The optimizer is elementwise and
    cheap beside the step; the gradient is what tad computes."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.95), eps=1e-8,
                 weight_decay=0.1):
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def update(self, params, grads):
        self.t += 1
        b1, b2 = self.betas
        step_size = self.lr / (1 - b1 ** self.t)
        bias2_sqrt = np.sqrt(1 - b2 ** self.t)
        for k, p in params.items():
            g = grads[k]
            if decays(k, p):
                p *= 1 - self.lr * self.wd
            m, v = self.m[k], self.v[k]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= step_size * (m / (np.sqrt(v) / bias2_sqrt + self.eps))


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpu": model, "cores": os.cpu_count()}
