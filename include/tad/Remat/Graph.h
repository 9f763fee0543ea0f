//===- Graph.h - the remat problem: a DAG of values -------------*- C++ -*-===//
//
// The graph the remat solver schedules: nodes in topological order, each
// with a compute cost and a byte size, and edges from inputs to users. It is
// read from the node-link JSON of Checkmate and Moccasin (nodes with `id`,
// `cost_cpu`, `cost_ram`; `links` with `source` and `target`), or built by
// the remat pass from IR.
//
// The memory model: resident bytes are the sum of cost_ram over the values
// computed and not yet freed; computing a node needs all its inputs
// resident, and its own bytes count from that moment; every node is
// computed at least once; a node without users may be freed right after it
// is computed. Graphs built from IR add two things that graph files do not
// have: transient bytes, which a node needs only while it is computed (the
// wide accumulator of a sum), and nodes that must not be recomputed (ops
// with effects).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_GRAPH_H
#define TAD_REMAT_GRAPH_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tad::remat {

struct Node {
  std::string name; // the JSON `id`, or a value's description
  double cost = 0;  // cost_cpu
  int64_t bytes = 0; // cost_ram
  std::vector<int> inputs, users; // indices into Graph::nodes
  int64_t transient = 0;   // bytes needed only while the node is computed
  bool recomputable = true; // false: computed exactly once
};

struct Graph {
  std::vector<Node> nodes; // in topological order

  int size() const { return int(nodes.size()); }
  /// Adds an edge from `input` to `user`; input < user.
  void addEdge(int input, int user);
  /// The bytes needed to compute node `v` at all: its own, its transient
  /// bytes and its inputs'.
  int64_t getComputeFootprint(int v) const;
};

/// Parses node-link JSON. On failure returns false with `error` describing
/// the problem (a missing field, an edge that is not in topological order,
/// a negative cost, ...).
bool parseGraphJson(llvm::StringRef text, Graph &graph, std::string &error);

/// Writes `graph` as node-link JSON that parseGraphJson reads back; nodes
/// with transient bytes or that must not be recomputed carry the optional
/// fields "transient_ram" and "recomputable".
std::string graphToJson(const Graph &graph);

/// One event of a schedule.
struct Event {
  enum Kind { compute, free } kind;
  int node;
  bool operator==(const Event &other) const {
    return kind == other.kind && node == other.node;
  }
};

struct ScheduleStats {
  bool valid = false;
  std::string error;  // why the schedule is invalid
  double cost = 0;    // the total cost of its compute events
  int64_t peak = 0;   // the maximum resident bytes
  int64_t computes = 0;
};

/// Replays `schedule` under the memory model and checks it: inputs resident
/// at every compute, only resident nodes freed, every node computed, and
/// nodes that are not recomputable computed once. The peak counts a node's
/// transient bytes while it is computed.
ScheduleStats simulate(const Graph &graph, const std::vector<Event> &schedule);

/// Computes every node once, in order, and frees each node right after its
/// last user (or at once, without users): the no-recompute schedule.
std::vector<Event> storeAllSchedule(const Graph &graph);

/// A DTR-style greedy schedule within `budget`: nodes are computed in
/// order; an input that was evicted is recomputed on demand; when a compute
/// would exceed the budget, the resident node with the smallest
/// cost / (bytes * staleness) that is still needed and not an input of the
/// current compute is evicted. Returns false when no eviction makes room,
/// or when the recomputations thrash: after kDtrComputesPerNode computes per
/// node (at least kDtrMinComputeLimit in all), or once its total cost
/// exceeds `costLimit` (a caller that has a cheaper schedule already).
constexpr int kDtrComputesPerNode = 256;
constexpr int64_t kDtrMinComputeLimit = 200'000;
bool dtrSchedule(const Graph &graph, int64_t budget, std::vector<Event> &out,
                 double costLimit = 1e300);

/// Writes `schedule` as JSON: {"solver": ..., "budget": ..., "events":
/// [{"compute": id}, {"free": id}, ...], "cost": ..., "peak": ...,
/// "computes": ...}. `solver` is omitted when empty, `budget` when negative.
std::string scheduleToJson(const Graph &graph,
                           const std::vector<Event> &schedule,
                           const ScheduleStats &stats,
                           const std::string &solver = "",
                           int64_t budget = -1);

} // namespace tad::remat

#endif // TAD_REMAT_GRAPH_H
