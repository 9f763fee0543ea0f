#!/usr/bin/env python3
"""Dense layered joint graphs for the remat solver, like Checkmate's
`random_layered`: a forward chain of layers in which every earlier layer
feeds a later one with probability `skip` (skip connections), and the
reverse-mode gradient of it, as AD builds it.

    /usr/bin/python3 bench/remat/layered_graph.py NODES [--skip 0.05]
        [--seed 1] [--sizes small|loguniform] [--grad-scale 1]
        [-o graph.json]

Forward nodes f0..f(k-1) and one adjoint node per forward node, in reverse
order: g_v reads the adjoints of v's users and v's own inputs (its
residuals). NODES = 2k + 2: a loss node after the last layer and a seed of
the backward sweep. Costs are uniform in 1..10 and sizes in 16..128 bytes
(steps of 16), as bench/remat/gaps.py draws them; with `--sizes loguniform`,
log-uniform in 1 KiB..1 MiB (`--min-size`, `--max-size`), and with
`--grad-scale`, each adjoint's size times that (issue 52's graphs: adjoints
half their values' size). Writes the node-link JSON that tad-remat reads,
and prints nodes and edges to stderr.
"""
import argparse
import json
import math
import random
import sys


def size_sampler(rng, sizes, low, high):
    """Draws a tensor's bytes: `small` as bench/remat/gaps.py does, or
    log-uniform in [low, high]."""
    if sizes == "small":
        return lambda: rng.randint(1, 8) * 16
    return lambda: int(round(math.exp(rng.uniform(math.log(low),
                                                   math.log(high)))))


def layered_graph(nodes, skip, seed, sizes="small", low=1024, high=1 << 20,
                  grad_scale=1.0):
    rng = random.Random(seed)
    forward = max(1, (nodes - 2) // 2)
    inputs = [[] for _ in range(forward)]
    for v in range(1, forward):
        inputs[v].append(v - 1)
        # Each earlier layer but the previous one with probability `skip`:
        # draw the gaps between chosen layers geometrically, so that dense
        # graphs of 20,000 nodes take seconds, not a double loop.
        u = -1
        while 0 < skip < 1:
            u += 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - skip))
            if u >= v - 1:
                break
            inputs[v].append(u)
    users = [[] for _ in range(forward)]
    for v in range(forward):
        for u in inputs[v]:
            users[u].append(v)

    cost = lambda: rng.randint(1, 10)
    ram = size_sampler(rng, sizes, low, high)
    graph_nodes, links = [], []
    for v in range(forward):
        graph_nodes.append({"id": f"f{v}", "cost_cpu": cost(),
                            "cost_ram": ram()})
        links += [(f"f{u}", f"f{v}") for u in inputs[v]]
    # The loss reads the last layer; its adjoint seeds the backward sweep.
    graph_nodes.append({"id": "loss", "cost_cpu": cost(), "cost_ram": 16})
    links.append((f"f{forward - 1}", "loss"))
    graph_nodes.append({"id": "dloss", "cost_cpu": 1, "cost_ram": 16})
    links.append(("loss", "dloss"))
    for v in reversed(range(forward)):
        cost_cpu = cost()
        size = ram()
        if grad_scale != 1.0:
            size = max(1, int(size * grad_scale))
        graph_nodes.append({"id": f"g{v}", "cost_cpu": cost_cpu,
                            "cost_ram": size})
        links += [(f"g{w}", f"g{v}") for w in users[v]]
        if v == forward - 1:
            links.append(("dloss", f"g{v}"))
        links += [(f"f{u}", f"g{v}") for u in inputs[v]]
        links.append((f"f{v}", f"g{v}"))
    return {"directed": True, "nodes": graph_nodes,
            "links": [{"source": s, "target": t} for s, t in links]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", type=int)
    parser.add_argument("--skip", type=float, default=0.05,
                        help="probability that an earlier layer feeds a "
                             "later one (besides the previous layer)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", choices=["small", "loguniform"],
                        default="small")
    parser.add_argument("--min-size", type=int, default=1024)
    parser.add_argument("--max-size", type=int, default=1 << 20)
    parser.add_argument("--grad-scale", type=float, default=1.0,
                        help="each adjoint's size times this")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    graph = layered_graph(args.nodes, args.skip, args.seed, args.sizes,
                          args.min_size, args.max_size, args.grad_scale)
    text = json.dumps(graph, separators=(",", ":"))
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(args.output, "w") as f:
            f.write(text)
    print(f"{len(graph['nodes'])} nodes, {len(graph['links'])} edges",
          file=sys.stderr)


if __name__ == "__main__":
    main()
