//===- Dtr.cpp - a DTR-style greedy baseline ------------------------------===//
//
// Dynamic tensor rematerialization (Kirisame et al., ICLR 2021) adapted to a
// static graph: compute the nodes in order, recompute evicted inputs on
// demand, and when memory runs out evict the resident node with the
// smallest cost / (bytes * staleness). It is the baseline the optimal
// solver must never lose to.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Graph.h"

#include <algorithm>
#include <limits>

using namespace tad::remat;

namespace {

class Dtr {
public:
  Dtr(const Graph &graph, int64_t budget, double costLimit)
      : graph(graph), budget(budget), costLimit(costLimit),
        maxComputes(std::max<int64_t>(int64_t(kDtrComputesPerNode) *
                                          graph.size(),
                                      kDtrMinComputeLimit)),
        resident(graph.size(), 0), computed(graph.size(), 0),
        pinned(graph.size(), 0), lastUse(graph.size(), 0),
        remaining(graph.size(), 0) {
    for (int v = 0; v < graph.size(); ++v)
      remaining[v] = int(graph.nodes[v].users.size());
  }

  bool run(std::vector<Event> &out) {
    for (int v = 0; v < graph.size(); ++v) {
      if (!compute(v))
        return false;
      for (int i : graph.nodes[v].inputs)
        if (--remaining[i] == 0 && resident[i])
          free(i); // no first-time user left
      if (graph.nodes[v].users.empty())
        free(v);
    }
    out = std::move(events);
    return true;
  }

private:
  bool compute(int v) {
    // Recompute on demand can thrash: a recomputed input evicts another one
    // that is needed next, without end in sight. Giving up after a bound
    // keeps the greedy a baseline rather than a hang.
    if (++computes > maxComputes)
      return false;
    const Node &node = graph.nodes[v];
    if ((cost += node.cost) > costLimit || (computed[v] && !node.recomputable))
      return false;
    computed[v] = 1;
    for (int i : node.inputs) {
      if (!resident[i] && !compute(i))
        return false;
      ++pinned[i];
      lastUse[i] = ++clock;
    }
    bool ok = makeRoom(node.bytes + node.transient, v);
    if (ok) {
      events.push_back({Event::compute, v});
      resident[v] = 1;
      bytes += node.bytes;
      lastUse[v] = ++clock;
    }
    for (int i : node.inputs)
      --pinned[i];
    return ok;
  }

  bool makeRoom(int64_t needed, int computing) {
    while (bytes + needed > budget) {
      int victim = -1;
      double best = std::numeric_limits<double>::infinity();
      for (int u = 0; u < graph.size(); ++u) {
        if (!resident[u] || pinned[u] || u == computing)
          continue;
        const Node &node = graph.nodes[u];
        if (!node.recomputable)
          continue; // freed only after its last user
        double staleness = double(clock - lastUse[u] + 1);
        double size = double(std::max<int64_t>(node.bytes, 1));
        double score = node.cost / (size * staleness);
        if (score < best) {
          best = score;
          victim = u;
        }
      }
      if (victim < 0)
        return false;
      free(victim);
    }
    return true;
  }

  void free(int v) {
    events.push_back({Event::free, v});
    resident[v] = 0;
    bytes -= graph.nodes[v].bytes;
  }

  const Graph &graph;
  int64_t budget;
  double costLimit, cost = 0;
  int64_t maxComputes, bytes = 0, clock = 0, computes = 0;
  std::vector<char> resident, computed;
  std::vector<int> pinned;
  std::vector<int64_t> lastUse;
  std::vector<int> remaining;
  std::vector<Event> events;
};

} // namespace

bool tad::remat::dtrSchedule(const Graph &graph, int64_t budget,
                             std::vector<Event> &out, double costLimit) {
  return Dtr(graph, budget, costLimit).run(out);
}
