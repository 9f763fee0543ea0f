//===- TestGraphs.h - graphs the remat unit tests share ---------*- C++ -*-===//

#ifndef TAD_UNITTESTS_REMAT_TESTGRAPHS_H
#define TAD_UNITTESTS_REMAT_TESTGRAPHS_H

#include "tad/Remat/Graph.h"

#include <algorithm>
#include <random>
#include <string>

namespace tad::remat::testing {

/// The graph of a gradient through a chain: forward nodes f0..f(n-1), then
/// backward nodes b(n-1)..b0 where b_i reads f_i and b_(i+1).
inline Graph gradientChain(int n, int64_t bytes = 10, double cost = 1) {
  Graph g;
  for (int i = 0; i < n; ++i)
    g.nodes.push_back({"f" + std::to_string(i), cost, bytes, {}, {}});
  for (int i = n - 1; i >= 0; --i)
    g.nodes.push_back({"b" + std::to_string(i), cost, bytes, {}, {}});
  for (int i = 0; i + 1 < n; ++i)
    g.addEdge(i, i + 1);
  for (int k = 0; k < n; ++k) {
    int b = n + k, f = n - 1 - k;
    g.addEdge(f, b);
    if (k > 0)
      g.addEdge(b - 1, b);
  }
  return g;
}

inline Graph randomGraph(int n, std::mt19937 &rng) {
  Graph g;
  std::uniform_int_distribution<int64_t> bytes(1, 20);
  std::uniform_real_distribution<double> cost(0.5, 5);
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"v" + std::to_string(i), cost(rng), bytes(rng), {}, {}});
    for (int k = 0; k < 2 && i > 0; ++k) {
      int input = int(rng() % unsigned(i));
      auto &in = g.nodes[i].inputs;
      if (std::find(in.begin(), in.end(), input) == in.end())
        g.addEdge(input, i);
    }
  }
  return g;
}

/// The joint graph of the gradient of a random forward DAG, as in
/// bench/remat/gaps.py: forward nodes with the previous node and sometimes
/// an earlier one as inputs, then one adjoint per forward node, in reverse,
/// reading its users' adjoints and its own inputs.
inline Graph randomJointGraph(int forward, std::mt19937 &rng) {
  Graph g;
  std::uniform_int_distribution<int64_t> bytes(1, 8);
  std::uniform_int_distribution<int> cost(1, 10);
  std::bernoulli_distribution skip(0.4);
  std::vector<std::vector<int>> users(forward);
  for (int v = 0; v < forward; ++v) {
    g.nodes.push_back({"f" + std::to_string(v), double(cost(rng)),
                       16 * bytes(rng), {}, {}});
    if (v > 0) {
      g.addEdge(v - 1, v);
      users[v - 1].push_back(v);
    }
    if (v > 1 && skip(rng)) {
      int u = int(rng() % unsigned(v - 1));
      g.addEdge(u, v);
      users[u].push_back(v);
    }
  }
  auto adjoint = [&](int v) { return 2 * forward - 1 - v; };
  for (int v = forward - 1; v >= 0; --v) {
    g.nodes.push_back({"g" + std::to_string(v), double(cost(rng)),
                       16 * bytes(rng), {}, {}});
    for (int w : users[v])
      g.addEdge(adjoint(w), adjoint(v));
    std::vector<int> residuals = g.nodes[v].inputs;
    if (residuals.empty() || users[v].empty())
      residuals = {v};
    for (int u : residuals)
      g.addEdge(u, adjoint(v));
  }
  return g;
}

} // namespace tad::remat::testing

#endif // TAD_UNITTESTS_REMAT_TESTGRAPHS_H
