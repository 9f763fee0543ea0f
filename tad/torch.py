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
the vjp does not differentiate get no gradient. The block's memory is then
tad's to plan: compile it under a budget. Tensors go through NumPy on the
CPU (no copy for contiguous CPU tensors of the parameter's dtype).
"""
import numpy as np
import torch as _torch

_FROM_TAD = {"f32": _torch.float32, "f64": _torch.float64,
             "f16": _torch.float16}


def _numpy(t):
    return t.detach().contiguous().cpu().numpy()


def function(module, name, vjp=None):
    """The torch.autograd.Function applying `module`'s `name`, differentiated
    by `module`'s `vjp` (default `name + "_vjp"`): call the returned
    function with one tensor per parameter of `name`, in order."""
    forward_fn = getattr(module, name)
    backward_fn = getattr(module, vjp or name + "_vjp")
    params = [p.name for p in forward_fn.params]
    # The vjp's results are d_W for the parameters it differentiates.
    differentiated = [r.name[2:] for r in backward_fn.results]
    for p in differentiated:
        if p not in params:
            raise ValueError(f"{backward_fn.name} returns d_{p}, but {name} "
                             f"has no parameter '{p}'")
    expected = params + [f"d_result{i}" for i in range(len(forward_fn.results))]
    if [p.name for p in backward_fn.params] != expected:
        raise ValueError(f"{backward_fn.name} is no vjp of {name}: its "
                         f"parameters are {[p.name for p in backward_fn.params]}")

    class TadFunction(_torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            arrays = [_numpy(t) for t in inputs]
            ctx.arrays = arrays
            ctx.device = inputs[0].device if inputs else None
            results = forward_fn(*arrays)
            outputs = tuple(_torch.from_numpy(a).to(ctx.device)
                            for a in results.values())
            return outputs if len(outputs) > 1 else outputs[0]

        @staticmethod
        def backward(ctx, *cotangents):
            # A result the loss does not use has no cotangent: zeros.
            arrays = []
            for spec, c in zip(forward_fn.results, cotangents):
                dtype = _FROM_TAD[spec.dtype]
                arrays.append(_numpy(c) if c is not None else
                              np.zeros(spec.shape, _torch.empty(
                                  0, dtype=dtype).numpy().dtype))
            grads = backward_fn(*ctx.arrays, *arrays)
            by_param = {name[2:]: g for name, g in grads.items()}
            return tuple(
                _torch.from_numpy(by_param[p]).to(ctx.device)
                if p in by_param else None for p in params)

    TadFunction.__name__ = f"Tad_{name}"

    def apply(*inputs):
        if len(inputs) != len(params):
            raise TypeError(f"{name} takes {len(params)} tensors "
                            f"({', '.join(params)}), got {len(inputs)}")
        return TadFunction.apply(*inputs)

    apply.__name__ = name
    return apply
