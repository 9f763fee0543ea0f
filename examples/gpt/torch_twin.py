"""examples/gpt/gpt.tad in plain PyTorch (nn.Module, torch.optim.AdamW): the
twin that examples/gpt/train.py --compare trains beside tad's model, from
the same NumPy initialization (common.init_params) on the same batches.

nn.Linear keeps its weight as [out, in]; the NumPy parameters are [in,
out] as in gpt.tad, so load() and grads() transpose them.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import D, H, MLP, N_LAYER, T, decays


class CausalSelfAttention(nn.Module):
    def __init__(self, pdrop):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.o = nn.Linear(D, D)
        self.drop = nn.Dropout(pdrop)
        self.register_buffer("allowed",
                             torch.tril(torch.ones(T, T, dtype=torch.bool)))

    def forward(self, x):
        b, t, d = x.shape
        heads = lambda y: y.view(b, t, H, d // H).transpose(1, 2)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // H)
        # -1e9, as tad's causal_attention, where a query may not look.
        scores = scores.masked_fill(~self.allowed[:t, :t], -1e9)
        y = F.softmax(scores, dim=-1) @ v
        y = y.transpose(1, 2).reshape(b, t, d)
        return self.drop(self.o(y))


class Block(nn.Module):
    def __init__(self, pdrop):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = CausalSelfAttention(pdrop)
        self.ln2 = nn.LayerNorm(D)
        self.fc = nn.Linear(D, MLP)
        self.proj = nn.Linear(MLP, D)
        self.drop = nn.Dropout(pdrop)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        m = self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x + self.drop(m)


class GPT(nn.Module):
    def __init__(self, vocab, pdrop=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, D)
        self.wpe = nn.Parameter(torch.zeros(T, D))
        self.drop = nn.Dropout(pdrop)
        self.blocks = nn.ModuleList(Block(pdrop) for _ in range(N_LAYER))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, vocab, bias=False)

    def forward(self, ids, targets=None):
        x = self.drop(self.wte(ids) + self.wpe[:ids.shape[1]])
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten().long())

    # The NumPy parameters (common.param_shapes' paths) and where they go:
    # (path, tensor, transposed).
    def places(self):
        out = [("wte", self.wte.weight, False), ("wpe", self.wpe, False)]
        for i, b in enumerate(self.blocks):
            a = b.attn
            out += [(f"h{i}.ln1_g", b.ln1.weight, False),
                    (f"h{i}.ln1_b", b.ln1.bias, False)]
            for name, lin in (("q", a.q), ("k", a.k), ("v", a.v), ("o", a.o)):
                out += [(f"h{i}.w{name}", lin.weight, True),
                        (f"h{i}.b{name}", lin.bias, False)]
            out += [(f"h{i}.ln2_g", b.ln2.weight, False),
                    (f"h{i}.ln2_b", b.ln2.bias, False),
                    (f"h{i}.w_fc", b.fc.weight, True),
                    (f"h{i}.b_fc", b.fc.bias, False),
                    (f"h{i}.w_proj", b.proj.weight, True),
                    (f"h{i}.b_proj", b.proj.bias, False)]
        out += [("lnf_g", self.ln_f.weight, False),
                ("lnf_b", self.ln_f.bias, False),
                ("head", self.head.weight, True)]
        return out

    @torch.no_grad()
    def load(self, params):
        """Copies the NumPy parameters in (the model's dtype)."""
        places = self.places()
        assert sorted(p for p, _, _ in places) == sorted(params)
        for path, tensor, transposed in places:
            value = torch.from_numpy(np.asarray(params[path]))
            tensor.copy_(value.T if transposed else value)

    def grads(self):
        """The gradients as NumPy arrays in gpt.tad's layout."""
        return {path: (t.grad.T if transposed else t.grad).numpy().copy()
                for path, t, transposed in self.places()}

    def optimizer(self, lr, betas=(0.9, 0.95), weight_decay=0.1):
        """AdamW with weight decay on the matrices only, as common.AdamW."""
        named = [(path, t) for path, t, _ in self.places()]
        decay = [t for path, t in named if decays(path, t)]
        other = [t for path, t in named if not decays(path, t)]
        return torch.optim.AdamW(
            [{"params": decay, "weight_decay": weight_decay},
             {"params": other, "weight_decay": 0.0}], lr=lr, betas=betas)


def make(vocab, params, pdrop=0.0, dtype=torch.float32):
    model = GPT(vocab, pdrop).to(dtype)
    model.load(params)
    return model
