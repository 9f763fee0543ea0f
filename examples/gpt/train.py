#!/usr/bin/env python3
"""Trains examples/gpt/gpt.tad, a character-level GPT, on a text that
ships with Debian (/usr/share/common-licenses/GPL-3), from Python
(docs/tutorial-gpt.md).

tad computes the loss and its gradient (`train_step`, value_and_grad of
`loss` with respect to the parameter record); AdamW runs in NumPy
(common.AdamW): it is elementwise and cheap beside the step. Then it
samples text with `logits`.

    /usr/bin/python3 examples/gpt/train.py --steps 60            # make demo-gpt
    /usr/bin/python3 examples/gpt/train.py --steps 3000 --eval-every 250 \\
        --dropout 0.1 --compare --f64 --plot examples/gpt/loss.png \\
        --json examples/gpt/full-run.json                        # the full run

--compare trains examples/gpt/torch_twin.py (PyTorch, nn.Module,
torch.optim.AdamW) from the same initialization on the same batches, with
dropout as given (its masks are PyTorch's, so with dropout only the loss
levels compare) and again with dropout off (the losses must agree), and
compares the step-0 gradients in float32 and in float64 (gpt.tad with
every f32 rewritten as f64, there being no generic records yet); --f64
also trains both sides in float64 with dropout off.
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def scalar(value, dtype):
    return np.array(value, dtype=dtype)


class TadModel:
    """The compiled model and the calls training needs."""

    def __init__(self, tad, vocab, dtype="f32", threads=1):
        self.m = common.compile_gpt(tad, vocab, dtype)
        self.m.set_num_threads(threads)
        self.float = np.float32 if dtype == "f32" else np.float64

    def step(self, params, ids, targets, key, pdrop):
        """The loss and the gradients (a flat dict)."""
        r = self.m.train_step(**common.leaf_inputs(params), ids=ids,
                              targets=targets, key=scalar(key, np.int64),
                              pdrop=scalar(pdrop, self.float))
        return float(r.value), common.gradients(r, params)

    def loss(self, params, ids, targets):
        return float(self.m.loss(**common.leaf_inputs(params), ids=ids,
                                 targets=targets, key=scalar(0, np.int64),
                                 pdrop=scalar(0.0, self.float)).result0)

    def logits(self, params, ids):
        return self.m.logits(**common.leaf_inputs(params), ids=ids).result0


def mean_loss(loss, batches):
    return float(np.mean([loss(ids, targets) for ids, targets in batches]))


def train_tad(model, params, data, args, pdrop, log):
    """Trains a copy of `params`; returns them and the run's record."""
    params = {k: v.copy() for k, v in params.items()}
    opt = common.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    batches = common.Batches(data["train"], args.seed)
    run = {"step_loss": [], "eval": [], "step_seconds": []}
    start = time.perf_counter()
    for i in range(args.steps + 1):
        if i % args.eval_every == 0 or i == args.steps:
            evaluate(run, i, lambda ids, t: model.loss(params, ids, t), data,
                     log, "tad")
        if i == args.steps:
            break
        ids, targets = batches.next()
        t0 = time.perf_counter()
        # A key per step; gpt.tad folds in the site of each mask.
        loss, grads = model.step(params, ids, targets,
                                 key=args.seed * 1_000_003 + i, pdrop=pdrop)
        run["step_seconds"].append(time.perf_counter() - t0)
        run["step_loss"].append(loss)
        # The step's peak, as the runtime allocator measured it.
        run["peak_bytes"] = max(run.get("peak_bytes", 0),
                                model.m.stats["peak_bytes"])
        opt.update(params, grads)
    run["seconds"] = time.perf_counter() - start
    return params, run


def train_torch(vocab, params, data, args, pdrop, log, dtype="f32"):
    import torch
    import torch_twin
    torch.manual_seed(args.seed)  # PyTorch's dropout masks
    model = torch_twin.make(vocab, params, pdrop, getattr(
        torch, "float32" if dtype == "f32" else "float64"))
    opt = model.optimizer(args.lr, weight_decay=args.weight_decay)
    batches = common.Batches(data["train"], args.seed)
    run = {"step_loss": [], "eval": [], "step_seconds": []}

    def loss(ids, targets):
        model.eval()
        with torch.no_grad():
            value = model(torch.from_numpy(ids), torch.from_numpy(targets))
        model.train()
        return value.item()
    start = time.perf_counter()
    for i in range(args.steps + 1):
        if i % args.eval_every == 0 or i == args.steps:
            evaluate(run, i, loss, data, log, "torch")
        if i == args.steps:
            break
        ids, targets = batches.next()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        value = model(torch.from_numpy(ids), torch.from_numpy(targets))
        value.backward()
        run["step_seconds"].append(time.perf_counter() - t0)
        run["step_loss"].append(value.item())
        opt.step()
    run["seconds"] = time.perf_counter() - start
    return run


def evaluate(run, i, loss, data, log, who):
    """The mean loss, dropout off, over fixed batches of each split."""
    train = mean_loss(loss, data["train_eval"])
    val = mean_loss(loss, data["val_eval"])
    run["eval"].append({"step": i, "train": train, "val": val})
    if log:
        print(f"  {who:5} step {i:5d}  train {train:.4f}  val {val:.4f}",
              flush=True)


def grad_check(tad, vocab, data, args, dtype):
    """Step-0 gradients of tad and the twin on the first training batch,
    dropout off: the largest absolute difference, and the largest
    difference relative to the largest gradient entry of its parameter."""
    import torch
    import torch_twin
    np_dtype = np.float32 if dtype == "f32" else np.float64
    params = common.init_params(vocab, args.seed, np_dtype)
    ids, targets = common.Batches(data["train"], args.seed).next()
    model = TadModel(tad, vocab, dtype, args.threads)
    loss, grads = model.step(params, ids, targets, key=0, pdrop=0.0)
    twin = torch_twin.make(vocab, params, 0.0, getattr(
        torch, "float32" if dtype == "f32" else "float64"))
    value = twin(torch.from_numpy(ids), torch.from_numpy(targets))
    value.backward()
    theirs = twin.grads()
    per = {k: float(np.abs(grads[k] - theirs[k]).max()) for k in grads}
    largest = {k: float(np.abs(theirs[k]).max()) for k in grads}
    top = max(largest.values())
    # Relative to each parameter's largest gradient entry, leaving out the
    # key biases (bk): their gradient is zero in exact arithmetic (softmax
    # does not change when every score of a query grows by q . bk), so
    # both sides hold rounding noise there, around 1e-10 in f32.
    rel = {k: per[k] / largest[k] for k in grads if largest[k] > 1e-6 * top}
    worst = max(per, key=per.get)
    worst_rel = max(rel, key=rel.get)
    return {"dtype": dtype, "loss_tad": loss, "loss_torch": value.item(),
            "loss_abs_diff": abs(loss - value.item()),
            "max_abs_diff": per[worst], "worst_param": worst,
            "max_abs_grad": top,
            "max_rel_diff": rel[worst_rel], "worst_rel_param": worst_rel,
            "left_out_of_rel": sorted(set(grads) - set(rel)),
            "per_param_abs_diff": per, "per_param_max_abs_grad": largest}


def sample(model, params, chars, prompt, n, temperature, seed):
    """n characters after `prompt`, a window of the last T ids at a time.
    Position t's logits see ids 0..t only, so a window shorter than T is
    padded at the end and read at its last real position."""
    rng = np.random.default_rng(seed)
    ids = [chars.index(c) for c in prompt if c in chars] or [0]
    for _ in range(n):
        window = ids[-common.T:]
        padded = np.zeros((1, common.T), np.int32)
        padded[0, :len(window)] = window
        z = model.logits(params, padded)[0, len(window) - 1].astype(np.float64)
        if temperature == 0:
            nxt = int(np.argmax(z))
        else:
            z = z / temperature
            prob = np.exp(z - z.max())
            nxt = int(rng.choice(len(z), p=prob / prob.sum()))
        ids.append(nxt)
    return "".join(chars[i] for i in ids)


def loss_diffs(a, b):
    steps = np.abs(np.array(a["step_loss"]) - np.array(b["step_loss"]))
    evals = [max(abs(x["train"] - y["train"]), abs(x["val"] - y["val"]))
             for x, y in zip(a["eval"], b["eval"])]
    return {"max_abs_step_loss_diff": float(steps.max()),
            "max_abs_eval_loss_diff": float(max(evals)),
            "final_step_loss_diff": float(steps[-1]),
            "final_val_tad": a["eval"][-1]["val"],
            "final_val_torch": b["eval"][-1]["val"]}


def without_times(run):
    return {k: v for k, v in run.items() if k != "step_seconds"}


def diff_curve(a, b):
    return [abs(x - y) for x, y in zip(a["step_loss"], b["step_loss"])]


def summary(run):
    """The median step (the gradient call alone) and the run's time; the
    per-step times themselves stay out of the JSON."""
    s = sorted(run["step_seconds"])
    return {"median_step_seconds": s[len(s) // 2] if s else None,
            "total_seconds": run["seconds"]}


def plot(path, tad_run, torch_run, record, args):
    """The loss curves (each step's training loss, faint; the evaluations,
    dropout off, marked) and, with --compare, |tad - PyTorch| per step
    with dropout off."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = 2 if torch_run else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.4 * panels, 4.2),
                             squeeze=False)
    ax = axes[0][0]
    runs = [("tad", tad_run, "C0")]
    if torch_run:
        runs.append(("PyTorch", torch_run, "C1"))
    for name, run, color in runs:
        steps = [e["step"] for e in run["eval"]]
        ax.plot(range(len(run["step_loss"])), run["step_loss"], color=color,
                alpha=0.2, linewidth=0.7)
        ax.plot(steps, [e["train"] for e in run["eval"]], color=color,
                label=f"{name} train", marker=".")
        ax.plot(steps, [e["val"] for e in run["eval"]], color=color,
                linestyle="--", label=f"{name} validation", marker=".")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title(f"dropout {args.dropout}, AdamW lr {args.lr}, "
                 f"batch {common.B}x{common.T}")
    ax.legend()
    ax.grid(alpha=0.3)
    if torch_run:
        ax = axes[0][1]
        for key, label in (("compare_no_dropout", "float32"),
                           ("compare_f64", "float64")):
            if key in record:
                d = np.maximum(record[key]["step_loss_diff"], 1e-17)
                ax.semilogy(range(len(d)), d, ".", markersize=2,
                            label=label)
        ax.set_xlabel("step")
        ax.set_ylabel("|loss tad - loss PyTorch| (0 drawn at 1e-17)")
        ax.set_title("dropout off, same batches")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--dropout", type=float, default=0.0,
                    help="dropout probability (0 turns it off)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1,
                    help="tad's and PyTorch's threads")
    ap.add_argument("--text", default=common.DEFAULT_TEXT)
    ap.add_argument("--sample", type=int, default=200,
                    help="characters to sample at the end")
    ap.add_argument("--temperature", type=float, default=0.8,
                    help="sampling temperature (0: argmax)")
    ap.add_argument("--prompt", default="This License")
    ap.add_argument("--compare", action="store_true",
                    help="train the PyTorch twin too and compare")
    ap.add_argument("--f64", action="store_true",
                    help="with --compare: also train both sides in float64, "
                    "dropout off, and compare their losses")
    ap.add_argument("--plot", metavar="FILE")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    chars, train, val = common.load_text(args.text)
    vocab = len(chars)
    data = {"train": train, "val": val,
            "train_eval": common.eval_batches(train),
            "val_eval": common.eval_batches(val)}
    print(f"{args.text}: {len(train) + len(val)} characters, vocabulary "
          f"{vocab}, {len(train)} train / {len(val)} validation")
    tad = common.setup_tad()
    t0 = time.perf_counter()
    model = TadModel(tad, vocab, "f32", args.threads)
    compile_seconds = time.perf_counter() - t0
    init = common.init_params(vocab, args.seed)
    print(f"compiled gpt.tad in {compile_seconds:.1f} s (cached after the "
          f"first time); {sum(v.size for v in init.values())} parameters")
    record = {"args": vars(args), "vocab": vocab, "machine": common.machine(),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "compile_seconds": compile_seconds}

    if args.compare:
        import torch
        torch.set_num_threads(args.threads)
        for dtype in ("f32", "f64"):
            g = grad_check(tad, vocab, data, args, dtype)
            record[f"grad_check_{dtype}"] = g
            print(f"step-0 gradients, {dtype}: max |tad - PyTorch| "
                  f"{g['max_abs_diff']:.3g} (at {g['worst_param']}; the "
                  f"largest gradient entry is {g['max_abs_grad']:.3g}); "
                  f"relative to the parameter's largest entry "
                  f"{g['max_rel_diff']:.3g} (at {g['worst_rel_param']}; "
                  f"bk left out); loss difference "
                  f"{g['loss_abs_diff']:.3g}")

    print(f"training tad: {args.steps} steps, batch {common.B}x{common.T}, "
          f"AdamW lr {args.lr}, dropout {args.dropout}")
    params, tad_run = train_tad(model, init, data, args, args.dropout, True)
    record["tad"] = dict(without_times(tad_run), **summary(tad_run))
    torch_run = None
    if args.compare:
        print(f"training the PyTorch twin, dropout {args.dropout}")
        torch_run = train_torch(vocab, init, data, args, args.dropout, True)
        record["torch"] = dict(without_times(torch_run),
                               **summary(torch_run))
        record["compare"] = loss_diffs(tad_run, torch_run)
        if args.dropout > 0:
            print("dropout off, both sides (the losses must agree)")
            _, a = train_tad(model, init, data, args, 0.0, False)
            b = train_torch(vocab, init, data, args, 0.0, False)
        else:
            a, b = tad_run, torch_run
        record["compare_no_dropout"] = dict(
            loss_diffs(a, b), tad_eval=a["eval"], torch_eval=b["eval"],
            step_loss_diff=diff_curve(a, b))
        if args.f64:
            print("dropout off, both sides in float64")
            model64 = TadModel(tad, vocab, "f64", args.threads)
            init64 = common.init_params(vocab, args.seed, np.float64)
            _, a = train_tad(model64, init64, data, args, 0.0, False)
            b = train_torch(vocab, init64, data, args, 0.0, False, "f64")
            record["compare_f64"] = dict(
                loss_diffs(a, b), step_loss_diff=diff_curve(a, b),
                tad=summary(a), torch=summary(b))

    print(f"\ntad:     final train {tad_run['eval'][-1]['train']:.4f}  "
          f"val {tad_run['eval'][-1]['val']:.4f}  median step "
          f"{summary(tad_run)['median_step_seconds'] * 1e3:.2f} ms  "
          f"peak {tad_run['peak_bytes'] / 2**20:.1f} MiB")
    if torch_run:
        print(f"PyTorch: final train {torch_run['eval'][-1]['train']:.4f}  "
              f"val {torch_run['eval'][-1]['val']:.4f}  median step "
              f"{summary(torch_run)['median_step_seconds'] * 1e3:.2f} ms")
        c = record["compare_no_dropout"]
        print(f"dropout off: max |loss tad - loss PyTorch| over "
              f"{args.steps} steps {c['max_abs_step_loss_diff']:.3g} "
              f"(training steps), {c['max_abs_eval_loss_diff']:.3g} "
              f"(evaluations)")
        if args.f64:
            c = record["compare_f64"]
            print(f"dropout off, float64: max |loss tad - loss PyTorch| "
                  f"{c['max_abs_step_loss_diff']:.3g} (training steps), "
                  f"{c['max_abs_eval_loss_diff']:.3g} (evaluations)")
        if args.dropout > 0:
            c = record["compare"]
            print(f"dropout {args.dropout}: final validation loss tad "
                  f"{c['final_val_tad']:.4f}, PyTorch "
                  f"{c['final_val_torch']:.4f} (different masks)")
    if args.sample:
        text = sample(model, params, chars, args.prompt, args.sample,
                      args.temperature, args.seed)
        record["sample"] = text
        print(f"\nsample (temperature {args.temperature}):\n{text}")
    if args.plot:
        plot(args.plot, tad_run, torch_run, record, args)
        print(f"\nwrote {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
