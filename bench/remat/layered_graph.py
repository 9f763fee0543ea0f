#!/usr/bin/env python3
"""Dense layered joint graphs for the remat solver, like Checkmate's
`random_layered`: a forward chain of layers in which every earlier layer
feeds a later one with probability `skip` (skip connections), and the
reverse-mode gradient of it, as AD builds it.

    /usr/bin/python3 bench/remat/layered_graph.py NODES [--skip 0.05]
        [--seed 1] [-o graph.json]

Forward nodes f0..f(k-1) and one adjoint node per forward node, in reverse
order: g_v reads the adjoints of v's users and v's own inputs (its
residuals). NODES = 2k + 2: a loss node after the last layer and a seed of
the backward sweep. Costs are uniform in 1..10 and sizes in 16..128 bytes
(steps of 16), as bench/remat/gaps.py draws them. Writes the node-link
JSON that tad-remat reads, and prints nodes and edges to stderr.
"""
import argparse
import json
import math
import random
import sys


def layered_graph(nodes, skip, seed):
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
    ram = lambda: rng.randint(1, 8) * 16
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
        graph_nodes.append({"id": f"g{v}", "cost_cpu": cost(),
                            "cost_ram": ram()})
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
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    graph = layered_graph(args.nodes, args.skip, args.seed)
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
