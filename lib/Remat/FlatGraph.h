//===- FlatGraph.h - a graph laid out for lookahead runs --------*- C++ -*-===//
//
// A lookahead run touches every edge several times. On a dense graph of
// 10,000 nodes (1.9M edges) the per-node vectors of Graph scattered those
// touches over the heap, and the cache misses (reading the next use of a
// value from its users list) were most of a run's time. The solver builds
// this layout once per graph and shares it among its runs.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_FLATGRAPH_H
#define TAD_REMAT_FLATGRAPH_H

#include "tad/Remat/Graph.h"
#include "tad/Remat/Solver.h"

#include "llvm/ADT/ArrayRef.h"

#include <limits>
#include <utility>
#include <vector>

namespace tad::remat {

/// The graph as a run reads it: flat arrays instead of a vector per node.
struct FlatGraph {
  /// A next use that never comes.
  static constexpr int kNoUse = std::numeric_limits<int>::max();

  explicit FlatGraph(const Graph &graph);

  int n;
  std::vector<double> cost;
  std::vector<int64_t> bytes, transient;
  std::vector<char> recomputable;
  /// Whether every cost is a whole number >= 0 and their total below
  /// 2^52: then every sum of them is exact (tadc's and bench/remat's
  /// costs are whole). A run's deferred scores need that
  /// (LookaheadOptions::deferScores).
  bool wholeCosts = true;
  /// Node w's inputs are inputList[inputStart[w] .. inputStart[w + 1]), in
  /// the graph's order; one entry per input edge.
  std::vector<int> inputStart, inputList;
  /// Node v's users, sorted: userList[userStart[v] .. userStart[v + 1]).
  std::vector<int> userStart, userList;
  /// Per input edge e of node w (an index into inputList): the first user
  /// of inputList[e] after w, kNoUse if none, and its index in userList.
  /// A stage's inputs learn their next use from these without a search.
  std::vector<int> nextUseAfter, nextUsePosition;
  /// Per node v, the (user, input position) pairs at which v is an input,
  /// by user: outList[outStart[v] .. outStart[v + 1]).
  std::vector<int> outStart;
  std::vector<std::pair<int, int>> outList;

  llvm::ArrayRef<int> inputs(int w) const {
    return llvm::ArrayRef(inputList).slice(inputStart[w],
                                           inputStart[w + 1] - inputStart[w]);
  }
  llvm::ArrayRef<int> users(int v) const {
    return llvm::ArrayRef(userList).slice(userStart[v],
                                          userStart[v + 1] - userStart[v]);
  }
};

/// lookaheadSchedule on a graph already laid out.
bool lookaheadSchedule(const FlatGraph &graph, int64_t budget,
                       const LookaheadOptions &options,
                       std::vector<Event> &out);

} // namespace tad::remat

#endif // TAD_REMAT_FLATGRAPH_H
