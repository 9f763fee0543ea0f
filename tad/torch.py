"""tad inside PyTorch: a compiled tad function as a torch.autograd.Function
(docs/python.md#pytorch).

    m = tad.compile(source)                  # defines block and block_vjp
    block = tad.torch.function(m, "block")   # block_vjp = vjp(block, wrt: [...])
    y, aux = block(x, w, b)                  # torch tensors in, torch tensors out
    (loss + aux).backward()                  # through tad's compiled vjp

The forward runs tad's compiled `block`; the backward runs its compiled
vjp (`block_vjp`, or the name given), given the cotangent of every result
(zeros for a result the loss does not use), so an auxiliary result's
gradient reaches the parameters as the main one's does. Parameters that
the vjp does not differentiate get no gradient, integer ones (token ids,
int32 or int64 tensors) never: tad differentiates no integer. A record parameter takes a
dict of tensors by field (nested for nested records), and a record result
is such a dict. bf16 tensors pass as their 16-bit patterns. The block's
memory is then tad's to plan: compile it under a budget. Tensors go
through NumPy on the CPU (no copy for contiguous CPU tensors of the
parameter's dtype).
"""
import collections.abc

import numpy as np
import torch as _torch

import tad as _tad

_FROM_TAD = {"f32": _torch.float32, "f64": _torch.float64,
             "f16": _torch.float16, "bf16": _torch.bfloat16,
             "i32": _torch.int32, "i64": _torch.int64}
_FLOATS = ("f32", "f64", "f16", "bf16")


def _numpy(t):
    """A tensor as the array tad takes: bf16 as its 16-bit patterns, which
    NumPy has no type for."""
    t = t.detach().contiguous().cpu()
    if t.dtype == _torch.bfloat16:
        return t.view(_torch.int16).numpy().view(np.uint16)
    return t.numpy()


def _tensor(a, spec, device):
    """A result of tad's (`spec` its tensor) as a tensor of its dtype."""
    if spec.dtype == "bf16":
        return _torch.from_numpy(a.view(np.int16)).view(
            _torch.bfloat16).to(device)
    return _torch.from_numpy(a).to(device)


def _zeros(spec):
    return np.zeros(spec.shape, np.uint16 if spec.dtype == "bf16" else
                    _torch.empty(0, dtype=_FROM_TAD[spec.dtype]).numpy().dtype)


def _groups(names):
    """The top-level names of leaves (`p.l1.w` is p's), in order."""
    return list(dict.fromkeys(n.split(".")[0] for n in names))


def function(module, name, vjp=None):
    """The torch.autograd.Function applying `module`'s `name`, differentiated
    by `module`'s `vjp` (default `name + "_vjp"`): call the returned
    function with one argument per parameter of `name`, in order: a tensor,
    or for a record a dict of its fields' tensors."""
    forward_fn = getattr(module, name)
    backward_fn = getattr(module, vjp or name + "_vjp")
    params = [p.name for p in forward_fn.params]
    groups = _groups(params)
    # The vjp's results are d_W for the parameters it differentiates.
    differentiated = [r.name[2:] for r in backward_fn.results]
    specs = {p.name: p for p in forward_fn.params}
    for p in differentiated:
        if p not in params:
            raise ValueError(f"{backward_fn.name} returns d_{p}, but {name} "
                             f"has no parameter '{p}'")
        # backward's None for an integer input is what PyTorch expects of
        # an input that cannot require a gradient.
        if specs[p].dtype not in _FLOATS:
            raise ValueError(f"{backward_fn.name} returns d_{p}, but '{p}' "
                             f"is {specs[p].dtype}: integers have no "
                             f"gradient")
    # Its parameters are the primal's, then a cotangent per result leaf.
    expected = params + [f"d_{r.name}" for r in forward_fn.results]
    vjp_params = [p.name for p in backward_fn.params]
    if vjp_params != expected:
        raise ValueError(f"{backward_fn.name} is no vjp of {name}: its "
                         f"parameters are {vjp_params}, not {expected}")

    class TadFunction(_torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            arrays = [_numpy(t) for t in inputs]
            ctx.arrays = arrays
            ctx.device = inputs[0].device if inputs else None
            # By leaf name: positions count a record as one argument.
            results = forward_fn(**dict(zip(params, arrays)))
            return tuple(_tensor(a, spec, ctx.device) for spec, a in
                         zip(forward_fn.results, dict.values(results)))

        @staticmethod
        def backward(ctx, *cotangents):
            # A result the loss does not use has no cotangent: zeros.
            arrays = [_numpy(c) if c is not None else _zeros(spec)
                      for spec, c in zip(forward_fn.results, cotangents)]
            grads = backward_fn(**dict(zip(vjp_params, ctx.arrays + arrays)))
            by_param = {n[2:]: g for n, g in dict.items(grads)}
            return tuple(
                _tensor(by_param[p], specs[p], ctx.device)
                if p in by_param else None for p in params)

    TadFunction.__name__ = f"Tad_{name}"

    def apply(*inputs):
        if len(inputs) != len(groups):
            raise TypeError(f"{name} takes {len(groups)} arguments "
                            f"({', '.join(groups)}), got {len(inputs)}")
        leaves = {}
        for group, value in zip(groups, inputs):
            record = [p for p in params if p.startswith(group + ".")]
            if record and not isinstance(value, collections.abc.Mapping):
                raise TypeError(f"argument '{group}' of {name} is a record: "
                                f"pass a dict of its fields' tensors "
                                f"({', '.join(record)})")
            leaves.update(_tad._flatten(group, value))
        missing = [p for p in params if p not in leaves]
        extra = [n for n in leaves if n not in params]
        if missing or extra:
            raise TypeError(f"{name}: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) +
                ([f"no parameter {', '.join(extra)}"] if extra else [])))
        outputs = TadFunction.apply(*[leaves[p] for p in params])
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        # A record result is a dict of its fields again.
        nested = list(dict.values(_tad._nest(
            {r.name: t for r, t in zip(forward_fn.results, outputs)})))
        return tuple(nested) if len(nested) > 1 else nested[0]

    apply.__name__ = name
    return apply
