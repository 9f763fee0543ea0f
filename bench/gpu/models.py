"""PyTorch versions of the example derivatives that bench/gpu/run.py times:
each takes the parameters by name (as the tad executable lists them) and
returns the tad entry's results in its order."""
import torch


def mlp_value_and_grad(p):
    """examples/mlp.tad: value_and_grad(mlp, wrt: [w1, b1, w2, b2])."""
    w = {k: p[k].detach().requires_grad_() for k in ("w1", "b1", "w2", "b2")}
    h = torch.relu(p["x"] @ w["w1"] + w["b1"])
    err = h @ w["w2"] + w["b2"] - p["y"]
    aux = 0.001 * torch.mean(h * h)
    total = torch.mean(err * err) + aux
    grads = torch.autograd.grad(total, [w[k] for k in ("w1", "b1", "w2",
                                                       "b2")])
    return [total.detach(), aux.detach(), *grads]


def _layer_norm(x, gain, bias):
    mu = x.mean(dim=1, keepdim=True)
    d = x - mu
    var = (d * d).mean(dim=1, keepdim=True)
    return d * torch.rsqrt(var + 1e-5) * gain + bias


def _split_heads(x):
    return x.reshape(16, 4, 16).permute(1, 0, 2)


def _attention(x, mask, wq, wk, wv, wo):
    q, k, v = _split_heads(x @ wq), _split_heads(x @ wk), _split_heads(x @ wv)
    scores = q @ k.permute(0, 2, 1) * 0.25 + mask
    o = (torch.softmax(scores, dim=-1) @ v).permute(1, 0, 2)
    return o.reshape(16, 64) @ wo


TRANSFORMER_WRT = ("g1", "b1", "wq", "wk", "wv", "wo", "g2", "b2", "w_up",
                   "w_down", "readout")


def loss_grad(p):
    """examples/transformer.tad: grad(loss, wrt: [g1, ..., readout])."""
    w = {k: p[k].detach().requires_grad_() for k in TRANSFORMER_WRT}
    x = p["x"]
    h = x + _attention(_layer_norm(x, w["g1"], w["b1"]), p["mask"], w["wq"],
                       w["wk"], w["wv"], w["wo"])
    up = _layer_norm(h, w["g2"], w["b2"]) @ w["w_up"]
    h = h + (up * torch.sigmoid(1.702 * up)) @ w["w_down"]
    logits = h @ w["readout"]
    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    loss = -torch.mean(torch.sum(p["targets"] * logp, dim=1))
    return list(torch.autograd.grad(loss, [w[k] for k in TRANSFORMER_WRT]))


MODELS = {
    "mlp-mlp_value_and_grad": mlp_value_and_grad,
    "transformer-loss_grad": loss_grad,
}
