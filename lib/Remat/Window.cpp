//===- Window.cpp - re-solve stretches of a schedule exactly --------------===//
//
// The eviction heuristics decide one value at a time, and tightening and
// exchanges change one or two recomputations at a time. An optimal
// schedule sometimes differs from theirs in a whole stretch: it recomputes
// a chain earlier, in another order, keeping other values. Such a stretch
// is small enough to solve exactly.
//
// A window is a stretch [a, b) of the compute sequence. What the rest of
// the sequence needs from it is fixed: the values resident when it starts,
// the values resident when it ends (those read after it), and the nodes
// computed nowhere else. Between the two, any sequence of computes over the
// window's nodes that stays within the budget will do, and the cheapest is
// found by A* over (resident set, nodes still to compute), as in Exact.cpp,
// but bounded by the window's current cost: only strictly cheaper
// sequences are searched for, which prunes most states at once. Values
// resident over the whole window and not read in it only add to its bytes.
//
// Three things keep the search small enough for windows of 30 to 50
// nodes, where Exact.cpp stops at 20. A value is freed only right after a
// compute that reads it (or at once, when nothing can use it any more):
// that is where free-after-last-use puts every free, so no schedule is
// lost, and orderings of frees are not told apart. The lower bound counts
// what memory forces, not only the nodes still to compute (memoryBound).
// And a window's search stops after a fixed amount of work, so that the
// solver's time stays bounded.
//
// The windows go over the sequence in passes of growing size; the last is
// the whole sequence, which on a graph of at most kMaxWindowNodes nodes makes
// the search exact whenever it finishes. From nothing, the same search
// schedules such a graph where the heuristics find no schedule at all.
//
//===----------------------------------------------------------------------===//

#include "ComputeSequence.h"
#include "tad/Remat/Solver.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>

using namespace tad::remat;

namespace {

static_assert(kMaxWindowNodes <= 64, "a window's node set is one uint64_t");
// The cost of what cannot be done.
constexpr double kNever = std::numeric_limits<double>::infinity();

struct Key {
  uint64_t resident, pending;
  bool operator==(const Key &o) const {
    return resident == o.resident && pending == o.pending;
  }
};
/// The states a search has reached, by open addressing: the search
/// spends most of its time looking states up, and on graphs that fill
/// the table, most of that waiting for memory. So what a lookup and a
/// relaxation read of a state (its key and costs) is one half of a cache
/// line, and expand asks for the lines of a batch of successors before
/// it looks any of them up (prefetch).
struct StateTable {
  struct alignas(32) Visit {
    Key key;
    double cost;      // of the cheapest path found; infinite before one
    double remaining; // the state's lower bound, computed once
  };
  /// What only the path back and the queue's pops read.
  struct Trail {
    int32_t parent;   // the state it was reached from, -1 at the start
    int32_t computed; // the window node computed to get here, -1 for a free
    bool complete;    // whether `remaining` includes the memory bound
  };
  std::vector<Visit> visits;    // per state
  std::vector<Trail> trails;    // per state
  std::vector<uint32_t> slotOf; // per state: its slot
  std::vector<uint64_t> slots;  // see kIndexBits
  uint64_t mask = 0;

  /// Forgets every state but keeps the memory, so that the next search
  /// does not pay again for growing it. A table grown by a large search
  /// has far more slots than a small one fills: only the filled ones are
  /// emptied.
  void clear() {
    if (visits.size() < slots.size() / 8) {
      for (uint32_t i : slotOf)
        slots[i] = 0;
    } else {
      std::fill(slots.begin(), slots.end(), 0);
    }
    visits.clear();
    trails.clear();
    slotOf.clear();
  }

  static uint64_t hash(Key k) { // splitmix64's finalizer over both words
    uint64_t z = k.resident * 0x9e3779b97f4a7c15ull ^ k.pending;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// Asks for the slot of the key whose hash is `h`.
  void prefetchSlot(uint64_t h) const {
    if (!slots.empty())
      __builtin_prefetch(&slots[h & mask]);
  }
  /// Asks for the state in the slot of the key whose hash is `h`, if it
  /// may be that key (after prefetchSlot).
  void prefetchState(uint64_t h) const {
    if (slots.empty())
      return;
    uint64_t slot = slots[h & mask];
    if (slot && (slot & ~kIndexBits) == (h & ~kIndexBits))
      __builtin_prefetch(&visits[(slot & kIndexBits) - 1]);
  }

  /// The state `k`, whose hash is `h`, or -1 with `slot` set to where
  /// add puts it.
  int32_t find(Key k, uint64_t h, uint64_t &slot) {
    if (2 * (visits.size() + 1) > slots.size())
      grow();
    uint64_t tag = h & ~kIndexBits;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t entry = slots[i];
      if (!entry) {
        slot = i;
        return -1;
      }
      int32_t state = int32_t((entry & kIndexBits) - 1);
      if ((entry & ~kIndexBits) == tag && visits[state].key == k)
        return state;
    }
  }
  /// Adds the state `k`, whose hash is `h`, at `slot` (find's, with no
  /// state added since).
  int32_t add(Key k, uint64_t h, uint64_t slot, double remaining) {
    visits.push_back({k, kNever, remaining});
    trails.push_back({-1, -1, false});
    slotOf.push_back(uint32_t(slot));
    slots[slot] = (h & ~kIndexBits) | visits.size();
    return int32_t(visits.size() - 1);
  }

private:
  // A slot holds state + 1 in its low bits (0 when empty) and the high
  // bits of the state's hash, which tell most other states apart without
  // reading their keys.
  static constexpr uint64_t kIndexBits = 0xffffffffull;
  void grow() {
    slots.assign(std::max<size_t>(1024, 2 * slots.size()), 0);
    mask = slots.size() - 1;
    for (size_t s = 0; s < visits.size(); ++s) {
      uint64_t h = hash(visits[s].key), i = h & mask;
      while (slots[i])
        i = (i + 1) & mask;
      slots[i] = (h & ~kIndexBits) | (s + 1);
      slotOf[s] = uint32_t(i);
    }
  }
};

/// An entry of the search's queue: A* by f = g + h; among equal f, the
/// state with the most cost paid first: it is nearest a goal (costs are
/// often integers, ties many).
struct Item {
  double f, g;
  int32_t state;
};
struct Later {
  bool operator()(const Item &x, const Item &y) const {
    return x.f > y.f || (x.f == y.f && x.g < y.g);
  }
};

/// What the searches of one WindowArena share: their tables are emptied
/// between searches, not freed.
struct SearchMemory {
  StateTable table;
  std::vector<Item> queue; // a heap by Later
};

/// The nodes reached from `from` along the edges `next` (inputs or users,
/// as bitsets per node) through nodes in `within`, `from` included.
uint64_t reach(uint64_t from, const std::vector<uint64_t> &next,
               uint64_t within) {
  uint64_t reached = from;
  for (uint64_t frontier = from; frontier;) {
    int u = __builtin_ctzll(frontier);
    frontier &= frontier - 1;
    uint64_t more = next[u] & within & ~reached;
    reached |= more;
    frontier |= more;
  }
  return reached;
}

/// One window's problem over its nodes, numbered 0..size-1.
struct WindowProblem {
  std::vector<int> nodes;          // graph node of each window node
  std::vector<uint64_t> inputs;    // window inputs of each window node
  std::vector<uint64_t> readers;   // window users of each window node
  std::vector<uint64_t> ancestors; // each node and its window ancestors
  std::vector<int> order;          // the nodes, inputs before readers
  uint64_t computable = 0;         // nodes whose inputs are all here
  int64_t base = 0;                // bytes of values passing through
  uint64_t start = 0, goal = 0;    // resident at the start; needed at the end
  uint64_t must = 0;               // computed nowhere else
  double bound = 0;                // the window's current cost

  int size() const { return int(nodes.size()); }
};

/// The A* search of one window (solveWindow): the nodes' fields at hand,
/// the two lower bounds, and the expansion of a state.
class WindowSearch {
public:
  WindowSearch(const Graph &graph, int64_t budget, const WindowProblem &p,
               SearchMemory &memory)
      : budget(budget), p(p), n(p.size()), table(memory.table),
        queue(memory.queue) {
    costs.resize(n);
    bytesOfNode.resize(n);
    footprint.resize(n);
    for (int u = 0; u < n; ++u) {
      const Node &v = graph.nodes[p.nodes[u]];
      costs[u] = v.cost;
      bytesOfNode[u] = v.bytes;
      footprint[u] = v.bytes + v.transient;
      if (!v.recomputable)
        once |= uint64_t(1) << u;
    }
    // What computing each node holds: the values passing through, its
    // inputs, itself and its transient bytes.
    fullFootprint.resize(n);
    for (int u = 0; u < n; ++u)
      fullFootprint[u] = bytesOf(p.inputs[u]) + footprint[u];
    for (int u = 0; u < n; ++u)
      if (bytesOfNode[u] > 0)
        cheapestPerByte.push_back(u);
    std::stable_sort(cheapestPerByte.begin(), cheapestPerByte.end(),
                     [&](int x, int y) {
                       return costs[x] * double(bytesOfNode[y]) <
                              costs[y] * double(bytesOfNode[x]);
                     });
    // Only strictly cheaper sequences: a margin against rounding.
    limit =
        p.bound == kNever ? kNever : p.bound - 1e-9 * std::max(1.0, p.bound);
  }

  std::optional<std::vector<int>> run(int64_t workLimit, int64_t &work,
                                      const std::atomic<bool> *stop);

  /// Whether the bounds at the problem's start already exclude every
  /// sequence within the budget (run's first step).
  bool excludedAtStart() const {
    Key start{p.start, p.must};
    uint64_t needed;
    double h0 = closure(start, needed);
    return h0 == kNever || memoryBound(start.resident, needed) == kNever;
  }

private:
  int64_t bytesOf(uint64_t set) const {
    int64_t bytes = p.base;
    for (; set; set &= set - 1)
      bytes += bytesOfNode[__builtin_ctzll(set)];
    return bytes;
  }

  double memoryBound(uint64_t resident, uint64_t needed) const;

  /// A lower bound on the cost still to pay: every pending node, every
  /// needed value that is not resident, and, transitively, every input of
  /// those that is not resident, is computed at least once more. Infinite
  /// when one of them cannot be computed. Sets `needed` to those nodes.
  double closure(Key k, uint64_t &needed) const {
    needed = reach(k.pending | (p.goal & ~k.resident), p.inputs, ~k.resident);
    if ((needed & ~p.computable) || (needed & once & ~k.pending))
      return kNever;
    double cost = 0;
    for (uint64_t set = needed; set; set &= set - 1)
      cost += costs[__builtin_ctzll(set)];
    return cost;
  }

  void push(Item item) {
    queue.push_back(item);
    std::push_heap(queue.begin(), queue.end(), Later());
  }

  /// Reaching `next` (whose hash is `h`) from state `from` at
  /// `nextCost`, having computed `computed` (-1: only freed).
  /// A state that the bound prunes as soon as it is reached is not kept:
  /// most are reached once (on dense windows, up to four in five), and a
  /// table of the others stays smaller. Reached again, it is bounded
  /// again, as if new: the same search.
  void relax(int32_t from, Key next, uint64_t h, double nextCost,
             int computed) {
    uint64_t slot = 0;
    int32_t at = table.find(next, h, slot);
    if (at < 0) {
      uint64_t needed;
      double remaining = closure(next, needed);
      if (nextCost + remaining >= limit)
        return;
      at = table.add(next, h, slot, remaining);
    }
    StateTable::Visit &visit = table.visits[at];
    double f = nextCost + visit.remaining;
    if (f >= limit || visit.cost <= nextCost)
      return;
    visit.cost = nextCost;
    table.trails[at].parent = from;
    table.trails[at].computed = computed;
    push({f, nextCost, at});
  }

  /// The successors of one expansion not relaxed yet, in the order they
  /// were made: relaxed in that order once their states' memory has been
  /// asked for (StateTable).
  struct Successor {
    Key key;
    uint64_t hash;
    double cost;
    int computed;
  };
  static constexpr size_t kBatch = 16;
  void relaxBatch(int32_t from, std::vector<Successor> &batch) {
    for (const Successor &s : batch)
      table.prefetchSlot(s.hash);
    for (const Successor &s : batch)
      table.prefetchState(s.hash);
    for (const Successor &s : batch)
      relax(from, s.key, s.hash, s.cost, s.computed);
    batch.clear();
  }

  /// Relaxes the successors of `key`; false where that passes the work
  /// limit (it then stops).
  bool expand(int32_t from, Key key, double cost);

  /// The computes on the path to `state`, as the graph's nodes.
  std::vector<int> pathTo(int32_t state) const {
    std::vector<int> found;
    for (int32_t at = state; at > 0; at = table.trails[at].parent)
      if (table.trails[at].computed >= 0)
        found.push_back(p.nodes[table.trails[at].computed]);
    std::reverse(found.begin(), found.end());
    return found;
  }

  int64_t budget;
  const WindowProblem &p;
  int n;
  StateTable &table;
  std::vector<Item> &queue;
  std::vector<Successor> batch;
  std::vector<double> costs;
  std::vector<int64_t> bytesOfNode, footprint, fullFootprint;
  uint64_t once = 0; // nodes that must not be recomputed
  std::vector<int> cheapestPerByte;
  double limit = kNever;
  /// run's work and its limit, which expand adds to.
  int64_t *work = nullptr;
  int64_t workLimit = 0;
};

// A lower bound on the recomputation that memory forces. Take a node y
// still to be computed (in `needed`, not resident). When it is first
// computed, its inputs and itself are resident, and so is every value
// that is resident then and read after that compute: by a needed node
// that reads y or reads such a node (each of its computes follows y's),
// or needed at the end. Values resident now are resident then unless
// freed, and so are needed ancestors of y, computed before it. Where they
// exceed the budget, some of those values are freed before y and recomputed
// after it, each at its cost at least; the cheapest bytes per cost first,
// fractionally, bounds that cost from below. The largest bound over y holds.
double WindowSearch::memoryBound(uint64_t resident, uint64_t needed) const {
  // For each needed y, through needed nodes: `later[y]`, what its
  // descendants read; `earlier[y]`, its ancestors. One pass each way
  // over a topological order.
  uint64_t later[kMaxWindowNodes], earlier[kMaxWindowNodes];
  for (int y : p.order) {
    if (!(needed >> y & 1))
      continue;
    uint64_t all = 0;
    for (uint64_t set = p.inputs[y] & needed; set; set &= set - 1) {
      int i = __builtin_ctzll(set);
      all |= (uint64_t(1) << i) | earlier[i];
    }
    earlier[y] = all;
  }
  for (auto it = p.order.rbegin(); it != p.order.rend(); ++it) {
    int y = *it;
    if (!(needed >> y & 1))
      continue;
    uint64_t all = 0;
    for (uint64_t set = p.readers[y] & needed; set; set &= set - 1) {
      int r = __builtin_ctzll(set);
      all |= p.inputs[r] | later[r];
    }
    later[y] = all;
  }
  double bound = 0;
  for (uint64_t ys = needed; ys; ys &= ys - 1) {
    int y = __builtin_ctzll(ys);
    uint64_t after = later[y];
    // The needed ancestors of y through needed nodes are all computed
    // before y's first compute: those read after it are kept too, or
    // computed once more.
    uint64_t before = earlier[y];
    uint64_t kept = (after | p.goal) & (resident | before) & ~p.inputs[y] &
                    ~(uint64_t(1) << y);
    int64_t excess = fullFootprint[y] + bytesOf(kept) - p.base - budget;
    if (excess <= 0)
      continue;
    // What must not be recomputed stays: the room comes from the rest.
    double cost = 0;
    for (int u : cheapestPerByte) {
      if (!(kept >> u & 1) || (once >> u & 1))
        continue;
      if (bytesOfNode[u] >= excess) {
        cost += costs[u] * double(excess) / double(bytesOfNode[u]);
        excess = 0;
        break;
      }
      cost += costs[u];
      excess -= bytesOfNode[u];
    }
    if (excess > 0)
      return kNever; // no way to make the room
    bound = std::max(bound, cost);
  }
  return bound;
}

/// Pushes the states one step from `key` (reached at `cost`).
bool WindowSearch::expand(int32_t from, Key key, double cost) {
  int64_t bytes = bytesOf(key.resident);
  // run counts n^2 for an expansion: about n per successor, of which it
  // makes up to n. But where a compute frees several inputs, each subset
  // of them that it frees is a successor of its own (4 million from 15
  // states on a dense graph's costly schedule, 15 s of windows): past n,
  // each counts n more, and the search stops once that passes its limit.
  // (Where the limit stops it, the successors not relaxed yet do not
  // matter: the search gives up.)
  int64_t made = 0;
  auto add = [&](Key next, double nextCost, int computed) {
    batch.push_back({next, StateTable::hash(next), nextCost, computed});
    if (batch.size() == kBatch)
      relaxBatch(from, batch);
    if (++made <= n)
      return true;
    *work += n;
    return *work <= workLimit;
  };
  batch.clear();
  // Values resident at the start that the new sequence does not read
  // are freed before its first compute.
  if (cost == 0)
    for (uint64_t set = key.resident & p.start; set; set &= set - 1)
      if (!add({key.resident & ~(set & -set), key.pending}, cost, -1))
        return false;
  // A compute is of use only to a target (a node still to be computed
  // or needed at the end) or to its ancestors. `without[t]` is what is
  // still of use once target t is computed: the ancestors of the other
  // targets, by prefix and suffix unions.
  int targets[kMaxWindowNodes], count = 0;
  for (uint64_t set = key.pending | p.goal; set; set &= set - 1)
    targets[count++] = __builtin_ctzll(set);
  uint64_t suffix[kMaxWindowNodes + 1], without[kMaxWindowNodes];
  suffix[count] = 0;
  for (int i = count - 1; i >= 0; --i)
    suffix[i] = suffix[i + 1] | p.ancestors[targets[i]];
  uint64_t useful = suffix[0];
  for (uint64_t prefix = 0, i = 0; i < uint64_t(count); ++i) {
    without[targets[i]] = prefix | suffix[i + 1];
    prefix |= p.ancestors[targets[i]];
  }
  for (int u = 0; u < n; ++u) {
    uint64_t bit = uint64_t(1) << u;
    if (!(useful & bit) || (key.resident & bit) || !(p.computable & bit) ||
        (key.resident & p.inputs[u]) != p.inputs[u] ||
        ((once & bit) && !(key.pending & bit)) ||
        bytes + footprint[u] > budget)
      continue;
    // Compute u, then free any of its inputs that it reads last (the
    // only frees a sequence needs: each value goes after its last
    // reader). What is of no more use goes at once, u included.
    uint64_t resident = key.resident | bit, pending = key.pending & ~bit;
    uint64_t usefulAfter =
        (key.pending & ~p.goal & bit) ? without[u] : useful;
    resident &= usefulAfter | ~(p.inputs[u] | bit);
    uint64_t inputs = p.inputs[u] & resident;
    for (uint64_t freed = inputs;; freed = (freed - 1) & inputs) {
      if (!add({resident & ~freed, pending}, cost + costs[u], u))
        return false;
      if (!freed)
        break;
    }
  }
  relaxBatch(from, batch);
  return true;
}

std::optional<std::vector<int>>
WindowSearch::run(int64_t workLimit, int64_t &work,
                  const std::atomic<bool> *stop) {
  table.clear();
  queue.clear();
  this->work = &work;
  this->workLimit = workLimit;
  Key start{p.start, p.must};
  uint64_t needed;
  double h0 = closure(start, needed);
  h0 += memoryBound(start.resident, needed);
  if (h0 >= limit)
    return std::nullopt;
  uint64_t h = StateTable::hash(start), slot = 0;
  (void)table.find(start, h, slot);
  push({h0, 0, table.add(start, h, slot, h0)});
  table.visits[0].cost = 0;
  table.trails[0].complete = true;
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), Later());
    Item item = queue.back();
    queue.pop_back();
    double cost = table.visits[item.state].cost;
    if (item.g > cost)
      continue; // reached more cheaply after this push
    Key key = table.visits[item.state].key;
    if (key.pending == 0 && (key.resident & p.goal) == p.goal)
      return pathTo(item.state);
    // The memory bound costs more than the rest of the search: only the
    // states taken from the queue get it, and go back with it.
    StateTable::Visit &visit = table.visits[item.state];
    if (!table.trails[item.state].complete) {
      closure(key, needed);
      table.trails[item.state].complete = true;
      double more = memoryBound(key.resident, needed);
      if (more > 0) {
        visit.remaining += more;
        if (cost + visit.remaining < limit)
          push({cost + visit.remaining, cost, item.state});
        continue;
      }
    }
    work += int64_t(n) * n;
    // Stopped, the search gave up: its work is spent.
    if (stop && stop->load(std::memory_order_relaxed))
      work = std::max(work, workLimit + 1);
    if (work > workLimit || !expand(item.state, key, cost))
      return std::nullopt;
  }
  return std::nullopt;
}

/// The cheapest compute sequence of `p` that costs less than p.bound, by
/// A* within `budget`; none when there is none or `work` passes
/// `workLimit`. Each expansion adds size^2 to `work`: about what it costs,
/// since it makes up to `size` successors and bounds each in time linear
/// to quadratic in `size`. Setting `stop` spends the work at once.
std::optional<std::vector<int>>
solveWindow(const Graph &graph, int64_t budget, const WindowProblem &p,
            SearchMemory &memory, int64_t workLimit, int64_t &work,
            const std::atomic<bool> *stop) {
  return WindowSearch(graph, budget, p, memory).run(workLimit, work, stop);
}

/// Builds the problem of window [a, b) of `computes`, or returns false when
/// it has more than kMaxWindowNodes nodes.
bool windowProblem(const Graph &graph, const std::vector<int> &computes,
                   const Instances &inst, int a, int b, WindowProblem &p) {
  int m = int(computes.size());
  std::vector<int> slot(graph.size(), -1);
  auto add = [&](int v) {
    if (slot[v] < 0) {
      slot[v] = p.size();
      p.nodes.push_back(v);
    }
    return slot[v];
  };
  // The window's computes, and the earlier computes they read.
  std::vector<char> readInside(m, 0);
  for (int j = a; j < b; ++j) {
    add(computes[j]);
    for (int src : inst.reads(j))
      if (src >= 0 && src < a) {
        readInside[src] = 1;
        add(computes[src]);
      }
  }
  if (p.size() > kMaxWindowNodes)
    return false;
  // Resident at a: the computes before it read at or after it.
  for (int k = 0; k < a; ++k) {
    if (inst.lastReader[k] < a)
      continue;
    if (readInside[k]) {
      p.start |= uint64_t(1) << slot[computes[k]];
      if (inst.lastReader[k] >= b)
        p.goal |= uint64_t(1) << slot[computes[k]];
    } else {
      p.base += graph.nodes[computes[k]].bytes;
    }
  }
  for (int j = a; j < b; ++j)
    if (inst.lastReader[j] >= b)
      p.goal |= uint64_t(1) << slot[computes[j]];
  // Nodes computed only inside the window.
  std::vector<char> outside(graph.size(), 0);
  for (int j = 0; j < m; ++j)
    if (j < a || j >= b)
      outside[computes[j]] = 1;
  for (int u = 0; u < p.size(); ++u)
    if (!outside[p.nodes[u]])
      p.must |= uint64_t(1) << u;
  p.inputs.assign(p.size(), 0);
  p.readers.assign(p.size(), 0);
  for (int u = 0; u < p.size(); ++u) {
    p.computable |= uint64_t(1) << u;
    for (int i : graph.nodes[p.nodes[u]].inputs) {
      if (slot[i] >= 0) {
        p.inputs[u] |= uint64_t(1) << slot[i];
        p.readers[slot[i]] |= uint64_t(1) << u;
      } else {
        // Neither resident nor computable here.
        p.computable &= ~(uint64_t(1) << u);
      }
    }
  }
  // Window nodes are numbered in sequence order, and a node's inputs come
  // before it in a valid sequence, except inputs resident at the start,
  // which are numbered as they are first read: hence the fixed point.
  p.ancestors.assign(p.size(), 0);
  for (int u = 0; u < p.size(); ++u)
    p.ancestors[u] = uint64_t(1) << u;
  for (bool changed = true; changed;) {
    changed = false;
    for (int u = 0; u < p.size(); ++u) {
      uint64_t all = p.ancestors[u];
      for (uint64_t set = p.inputs[u]; set; set &= set - 1)
        all |= p.ancestors[__builtin_ctzll(set)];
      changed |= all != p.ancestors[u];
      p.ancestors[u] = all;
    }
  }
  // A node has more ancestors than each of its inputs.
  p.order.resize(p.size());
  for (int u = 0; u < p.size(); ++u)
    p.order[u] = u;
  std::stable_sort(p.order.begin(), p.order.end(), [&](int x, int y) {
    return __builtin_popcountll(p.ancestors[x]) <
           __builtin_popcountll(p.ancestors[y]);
  });
  for (int j = a; j < b; ++j)
    p.bound += graph.nodes[computes[j]].cost;
  return true;
}

} // namespace

struct tad::remat::WindowArena::Impl {
  SearchMemory memory;
  /// The whole-graph searches' answers, by their question (wholeGraphKey):
  /// a caller's bisections ask the same ones again (the feasible-minimum
  /// search's failing probes each bisect the same budgets of one graph:
  /// 19 distinct searches of 76 on examples/deep_mlp.tad).
  std::map<std::string, std::pair<WholeGraphResult, std::vector<Event>>>
      wholeGraphAnswers;
};

/// What a whole-graph search's answer depends on: the graph, the budget,
/// the work limit and the cost bound, as bytes.
static std::string wholeGraphKey(const Graph &graph, int64_t budget,
                                 int64_t workLimit, double maxCost) {
  return questionKey(graph, budget, workLimit, maxCost);
}

tad::remat::WindowArena::WindowArena() : impl(std::make_unique<Impl>()) {}
tad::remat::WindowArena::~WindowArena() = default;

void tad::remat::windowSchedule(const Graph &graph, int64_t budget,
                                std::vector<Event> &schedule,
                                int64_t workLimit,
                                const std::atomic<bool> *stop,
                                WindowArena *arena) {
  budget = std::max(budget, simulate(graph, schedule).peak);
  std::vector<int> computes = computesOf(schedule);
  int64_t work = 0;
  std::optional<WindowArena> own;
  SearchMemory &memory = (arena ? arena : &own.emplace())->impl->memory;
  // Small windows first: they are cheap, and what they gain lowers the
  // bound of the larger ones. The last pass is the whole sequence, which
  // is solved exactly where the graph has at most kMaxWindowNodes nodes.
  for (int window : {16, 32, std::numeric_limits<int>::max()}) {
    int stride = std::max(1, window / 2);
    std::unique_ptr<Instances> inst;
    for (int a = 0; a < int(computes.size()) && work < workLimit; a += stride) {
      if (!inst)
        inst = std::make_unique<Instances>(graph, computes);
      int b = a + std::min(window, int(computes.size()) - a);
      WindowProblem p;
      if (!windowProblem(graph, computes, *inst, a, b, p))
        continue;
      std::optional<std::vector<int>> better =
          solveWindow(graph, budget, p, memory, workLimit, work, stop);
      if (!better)
        continue;
      std::vector<int> trial(computes.begin(), computes.begin() + a);
      trial.insert(trial.end(), better->begin(), better->end());
      trial.insert(trial.end(), computes.begin() + b, computes.end());
      dropUnread(graph, trial);
      std::vector<Event> candidate = scheduleOf(graph, trial);
      ScheduleStats before = simulate(graph, scheduleOf(graph, computes));
      ScheduleStats after = simulate(graph, candidate);
      if (!after.valid || after.peak > budget || after.cost >= before.cost)
        continue; // never expected: the search checks what the sequence does
      tightenSchedule(graph, budget, candidate);
      computes = computesOf(candidate);
      inst.reset();
    }
  }
  schedule = scheduleOf(graph, computes);
}

/// The problem of the sequence that computes every node of `graph` once,
/// in order, with no bound on the cost: nothing is resident at its start
/// or needed at its end, and every node is computed in it. (At most
/// kMaxWindowNodes nodes: the problem always fits in a window.)
static WindowProblem wholeGraphProblem(const Graph &graph) {
  std::vector<int> computes(graph.size());
  for (int v = 0; v < graph.size(); ++v)
    computes[v] = v;
  Instances inst(graph, computes);
  WindowProblem p;
  (void)windowProblem(graph, computes, inst, 0, graph.size(), p);
  p.bound = kNever;
  return p;
}

bool tad::remat::boundExcludes(const Graph &graph, int64_t budget) {
  if (graph.size() > kMaxWindowNodes)
    return false;
  WindowProblem p = wholeGraphProblem(graph);
  SearchMemory memory; // not used: no state is searched
  return WindowSearch(graph, budget, p, memory).excludedAtStart();
}

/// The search of wholeGraphSchedule, with the schedule where one is found.
static std::pair<WholeGraphResult, std::vector<Event>>
searchWholeGraph(const Graph &graph, int64_t budget, int64_t workLimit,
                 const std::atomic<bool> *stop, SearchMemory &memory,
                 double maxCost) {
  // The search wants sequences strictly cheaper than its bound (less a
  // margin against rounding): one that costs maxCost is wanted.
  WindowProblem p = wholeGraphProblem(graph);
  p.bound = maxCost == kNever ? kNever
                              : maxCost + 2e-9 * std::max(1.0, maxCost);
  int64_t work = 0;
  std::optional<std::vector<int>> found =
      solveWindow(graph, budget, p, memory, workLimit, work, stop);
  if (found)
    return {WholeGraphResult::found, scheduleOf(graph, *found)};
  return {work > workLimit ? WholeGraphResult::gaveUp
                           : WholeGraphResult::infeasible,
          {}};
}

WholeGraphResult tad::remat::wholeGraphSchedule(
    const Graph &graph, int64_t budget, std::vector<Event> &schedule,
    int64_t workLimit, const std::atomic<bool> *stop, WindowArena *arena,
    double maxCost, SearchMemos *memo) {
  if (graph.size() > kMaxWindowNodes)
    return WholeGraphResult::gaveUp;
  std::optional<WindowArena> own;
  WindowArena::Impl &impl = *(arena ? arena : &own.emplace())->impl;
  auto search = [&] {
    return searchWholeGraph(graph, budget, workLimit, stop, impl.memory,
                            maxCost);
  };
  // A stopped search answers nothing.
  auto keep = [&] { return !(stop && stop->load(std::memory_order_relaxed)); };
  std::pair<WholeGraphResult, std::vector<Event>> answer;
  if (memo) {
    answer = memo->wholeGraph.answer(
        wholeGraphKey(graph, budget, workLimit, maxCost), search, keep);
  } else if (arena) {
    std::string key = wholeGraphKey(graph, budget, workLimit, maxCost);
    auto known = impl.wholeGraphAnswers.find(key);
    if (known != impl.wholeGraphAnswers.end()) {
      answer = known->second;
    } else {
      answer = search();
      if (keep())
        impl.wholeGraphAnswers.emplace(std::move(key), answer);
    }
  } else {
    answer = search();
  }
  if (answer.first == WholeGraphResult::found)
    schedule = std::move(answer.second);
  return answer.first;
}
