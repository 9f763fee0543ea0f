//===- Lookahead.cpp - eviction that knows every value's next use ---------===//
//
// DTR evicts by staleness because a dynamic runtime cannot see the future.
// A compiler can: the node order is the program order, so the next stage at
// which each value is read is known, and Belady's rule (evict what is
// needed farthest away) becomes available. The scores of EvictionScore
// weigh that distance against the cost of recomputing the value, including
// its inputs that were evicted too.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Solver.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

using namespace tad::remat;

namespace {

constexpr int kNoUse = std::numeric_limits<int>::max();

class Lookahead {
public:
  Lookahead(const Graph &graph, int64_t budget, const LookaheadOptions &options)
      : graph(graph), budget(budget), costLimit(options.costLimit),
        thrashRatio(options.thrashRatio), thrashSlack(options.thrashSlack),
        score(options.score), weights(options.weights),
        keepAncestors(options.keepAncestors), depthFirst(options.depthFirst),
        queue(options.queue), walkLimit(options.walkLimit),
        random(options.seed),
        maxComputes(std::max<int64_t>(
            int64_t(kDtrComputesPerNode) * graph.size(), kDtrMinComputeLimit)),
        n(graph.size()), users(n), nextUser(n, 0), resident(n, 0),
        computed(n, 0), where(n, -1), pins(n, 0), inStage(n, 0), rcStamp(n, 0),
        rcValue(n, 0), iuFrom(n, -1), iuValue(n, 0), firstWord(n + 1, 0),
        inputEdges(n) {
    for (int v = 0; v < n; ++v) {
      users[v] = graph.nodes[v].users;
      std::sort(users[v].begin(), users[v].end());
    }
    // Nothing is resident yet: every input of every node is missing.
    for (int w = 0; w < n; ++w) {
      const std::vector<int> &inputs = graph.nodes[w].inputs;
      firstWord[w + 1] = firstWord[w] + (inputs.size() + 63) / 64;
      for (size_t p = 0; p < inputs.size(); ++p)
        inputEdges[inputs[p]].push_back({w, int(p)});
    }
    missingBits.assign(firstWord[n], 0);
    // A bounded walk (walkLimit) needs each node's missing inputs' cost.
    if (walkLimit != std::numeric_limits<int64_t>::max()) {
      missingCost.assign(n, 0);
      for (int w = 0; w < n; ++w)
        for (int i : graph.nodes[w].inputs)
          missingCost[w] += graph.nodes[i].cost;
    }
    for (int w = 0; w < n; ++w)
      for (size_t p = 0; p < graph.nodes[w].inputs.size(); ++p)
        missingBits[firstWord[w] + p / 64] |= uint64_t(1) << (p % 64);
    if (queue) {
      version.assign(n, 0);
      // One factor per node, drawn in node order: a queued score must not
      // change between two looks at it.
      if (random) {
        nodeNoise.resize(n);
        for (double &f : nodeNoise)
          f = noise();
      }
    }
  }

  bool run(std::vector<Event> &out) {
    double reached = 0; // the store-all cost of stages 0 to `stage`
    for (stage = 0; stage < n; ++stage) {
      reached += graph.nodes[stage].cost;
      if (thrashRatio > 0)
        stageLimit = thrashRatio * reached + thrashSlack;
      if (!runStage(stage))
        return false;
    }
    out = std::move(events);
    return true;
  }

private:
  /// The first stage >= `from` at which `v` is an input; kNoUse if none.
  int nextUse(int v, int from) {
    const std::vector<int> &u = users[v];
    size_t &p = nextUser[v];
    while (p < u.size() && u[p] < from)
      ++p;
    return p < u.size() ? u[p] : kNoUse;
  }

  /// When `v` itself is read no more: the first stage >= `from` that reads
  /// one of its users, which may have to be recomputed from `v`.
  int indirectUse(int v, int from) {
    // Memoized per `from`: every eviction of a stage asks again, and a
    // value of a dense graph has many users.
    if (iuFrom[v] == from)
      return iuValue[v];
    int first = kNoUse;
    for (int u : users[v])
      first = std::min(first, nextUse(u, from));
    iuFrom[v] = from;
    iuValue[v] = first;
    return first;
  }

  /// Whether `v` may go once no later stage reads it.
  bool dead(int v, int from) {
    return nextUse(v, from) == kNoUse &&
           (!keepAncestors || indirectUse(v, from) == kNoUse);
  }

  /// Computes node `t` for the first time, after recomputing whatever of
  /// its inputs is missing.
  bool runStage(int t) {
    // The inputs of the last stage were read there: their next use moved.
    if (queue && t > 0)
      for (int i : graph.nodes[t - 1].inputs)
        if (resident[i])
          enqueue(i);
    if (depthFirst)
      return runStageDepthFirst(t);
    // The missing inputs and, transitively, their missing inputs.
    std::vector<int> missing, stack;
    ++stageStamp;
    for (int i : graph.nodes[t].inputs)
      stack.push_back(i);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (resident[v] || inStage[v] == stageStamp)
        continue;
      inStage[v] = stageStamp;
      missing.push_back(v);
      for (int i : graph.nodes[v].inputs)
        stack.push_back(i);
    }
    std::sort(missing.begin(), missing.end());
    // Every input of a compute of this stage stays resident until that
    // compute is done.
    for (int v : missing)
      pin(v, +1);
    pin(t, +1);
    for (int v : missing) {
      if (!compute(v))
        return false;
      pin(v, -1);
    }
    if (!compute(t))
      return false;
    pin(t, -1);
    endStage(t, missing);
    return true;
  }

  /// runStage, one missing input at a time (LookaheadOptions::depthFirst).
  bool runStageDepthFirst(int t) {
    if (!ensureInputs(t) || !compute(t))
      return false;
    pin(t, -1);
    endStage(t, stageComputes);
    stageComputes.clear();
    return true;
  }

  /// After stage `t`: the values it recomputed or read that no later stage
  /// reads go at once, and `t` itself if nothing reads it.
  void endStage(int t, const std::vector<int> &recomputed) {
    for (int v : recomputed)
      if (resident[v] && dead(v, t + 1))
        free(v);
    for (int i : graph.nodes[t].inputs)
      if (resident[i] && dead(i, t + 1))
        free(i);
    if (users[t].empty())
      free(t);
  }

  /// Makes every input of `v` resident and pins them all (the caller
  /// unpins after computing `v`). The resident ones are pinned first, so
  /// that recomputing the others does not evict them; the missing ones are
  /// recomputed latest node first, each pinned once it is back.
  bool ensureInputs(int v) {
    std::vector<int> missing;
    for (int i : graph.nodes[v].inputs) {
      if (resident[i])
        ++pins[i];
      else
        missing.push_back(i);
    }
    std::sort(missing.begin(), missing.end(), std::greater<int>());
    for (int i : missing) {
      if (resident[i]) { // recomputed for an earlier input meanwhile
        ++pins[i];
        continue;
      }
      if (!ensureInputs(i) || !compute(i))
        return false;
      pin(i, -1);
      stageComputes.push_back(i);
      ++pins[i];
    }
    return true;
  }

  void pin(int v, int delta) {
    for (int i : graph.nodes[v].inputs)
      pins[i] += delta;
  }

  bool compute(int v) {
    if (++computes > maxComputes ||
        (cost += graph.nodes[v].cost) > std::min(costLimit, stageLimit))
      return false;
    if (!graph.nodes[v].recomputable && computed[v])
      return false; // needed again after it was freed: not allowed
    bool again = computed[v];
    computed[v] = 1;
    if (!makeRoom(graph.nodes[v].bytes + graph.nodes[v].transient))
      return false;
    events.push_back({Event::compute, v});
    resident[v] = 1;
    setMissing(v, false);
    where[v] = int(residentList.size());
    residentList.push_back(v);
    bytes += graph.nodes[v].bytes;
    ++residency;
    if (queue) {
      enqueue(v);
      // A recomputed value lowers the recompute cost of its resident users.
      if (again)
        for (int u : graph.nodes[v].users)
          if (resident[u])
            enqueue(u);
    }
    return true;
  }

  /// Records that `v` became missing (or resident) as an input of each of
  /// its users.
  void setMissing(int v, bool missing) {
    double delta = missing ? graph.nodes[v].cost : -graph.nodes[v].cost;
    for (auto [w, p] : inputEdges[v]) {
      uint64_t &word = missingBits[firstWord[w] + p / 64];
      uint64_t bit = uint64_t(1) << (p % 64);
      word = missing ? word | bit : word & ~bit;
      if (!missingCost.empty())
        missingCost[w] += delta;
    }
  }

  void free(int v) {
    events.push_back({Event::free, v});
    resident[v] = 0;
    setMissing(v, true);
    int last = residentList.back();
    residentList[where[v]] = last;
    where[last] = where[v];
    residentList.pop_back();
    bytes -= graph.nodes[v].bytes;
    ++residency;
    if (queue)
      ++version[v]; // its entries in the queue are void
  }

  /// The cost of computing `v` again now: its own and that of its missing
  /// inputs, memoized until residency changes. Shared ancestors count once
  /// per path, the depth is capped, and the walk visits at most `walkLeft`
  /// values (LookaheadOptions::walkLimit): an estimate, not a schedule.
  double recomputeCost(int v, int depth = 0) {
    if (rcStamp[v] == residency)
      return rcValue[v];
    // Past the limit a value counts its own cost, and is not memoized:
    // that is not its recompute cost.
    if (walkLeft-- <= 0)
      return graph.nodes[v].cost;
    double c = graph.nodes[v].cost;
    // The missing inputs in input order, as a loop over every input that
    // skips the resident ones would visit them (the memo makes the order
    // matter), without that loop's cost on dense graphs.
    if (depth < 32) {
      const std::vector<int> &inputs = graph.nodes[v].inputs;
      // A bounded walk starts from the missing inputs' own costs, kept
      // as values come and go, and adds what the inputs it reaches cost
      // beyond their own: what it does not reach costs it nothing, so a
      // value of a dense graph is scored in O(walkLimit), not in O(its
      // missing inputs).
      bool bounded = !missingCost.empty();
      if (bounded)
        c += missingCost[v];
      for (int word = firstWord[v]; word < firstWord[v + 1]; ++word)
        for (uint64_t bits = missingBits[word]; bits; bits &= bits - 1) {
          if (bounded && walkLeft <= 0)
            break;
          int p = (word - firstWord[v]) * 64 + __builtin_ctzll(bits);
          int i = inputs[p];
          c +=
              recomputeCost(i, depth + 1) - (bounded ? graph.nodes[i].cost : 0);
        }
    }
    rcStamp[v] = residency;
    rcValue[v] = c;
    return c;
  }

  /// The eviction score of resident `u` now, and its tie breaker: the
  /// smallest goes first. Minus infinity for a value nobody reads any
  /// more; false when `u` may not be evicted before its next use. `bound`
  /// takes the value's own cost for its recompute cost: a lower bound,
  /// without the walk over its missing inputs.
  bool evictionScore(int u, double &s, double &tie, bool bound = false) {
    int use = nextUse(u, stage);
    if (!graph.nodes[u].recomputable && use != kNoUse)
      return false; // freed only after its last reader
    double indirect = 1;
    if (use == kNoUse && keepAncestors) {
      // Kept only to recompute a user from: worth less than a value
      // that is read itself.
      use = indirectUse(u, stage);
      indirect = 2;
    }
    s = tie = 0;
    if (use == kNoUse) { // read by nobody: free before anything else
      s = -std::numeric_limits<double>::infinity();
      return true;
    }
    double distance = double(use - stage + 1) * indirect;
    double size = double(std::max<int64_t>(graph.nodes[u].bytes, 1));
    walkLeft = walkLimit;
    double rc = bound ? graph.nodes[u].cost : recomputeCost(u);
    switch (score) {
    case EvictionScore::costPerByteDistance:
      s = rc / (size * distance);
      break;
    case EvictionScore::costPerByteDistance2:
      s = rc / (size * distance * distance);
      break;
    case EvictionScore::costPerByte:
      s = rc / size;
      tie = 1 / distance;
      break;
    case EvictionScore::farthestUse:
      s = 1 / distance;
      tie = rc / size;
      break;
    }
    if (weights)
      s *= (*weights)[u];
    if (random)
      s *= queue ? nodeNoise[u] : noise();
    return true;
  }

  bool makeRoom(int64_t needed) {
    if (queue)
      return makeRoomFromQueue(needed);
    while (bytes + needed > budget) {
      int victim = -1;
      double best = std::numeric_limits<double>::infinity();
      double bestTie = best;
      for (int u : residentList) {
        double s, tie;
        if (pins[u] || !evictionScore(u, s, tie))
          continue;
        if (s == -std::numeric_limits<double>::infinity()) {
          victim = u;
          break;
        }
        if (s < best || (s == best && tie < bestTie)) {
          best = s;
          bestTie = tie;
          victim = u;
        }
      }
      if (victim < 0)
        return false;
      free(victim);
    }
    return true;
  }

  /// A queued score; `version` voids it once `node` is queued again or
  /// freed.
  struct Entry {
    double score, tie;
    int node;
    uint32_t version;
    /// Whether `other` goes first: the heap's order is a max-heap's.
    bool operator<(const Entry &other) const {
      return std::tie(other.score, other.tie, other.node) <
             std::tie(score, tie, node);
    }
  };

  /// Queues resident `u` at a lower bound of its score now, voiding its
  /// older entries.
  void enqueue(int u) {
    ++version[u];
    double s, tie;
    if (!evictionScore(u, s, tie, /*bound=*/true))
      return; // queued again once its next use passes
    heap.push_back({s, tie, u, version[u]});
    std::push_heap(heap.begin(), heap.end());
    // Void entries pile up; drop them once they outnumber the live ones.
    if (heap.size() > 4 * residentList.size() + 1024) {
      llvm::erase_if(heap, [&](const Entry &e) {
        return e.version != version[e.node] || !resident[e.node];
      });
      std::make_heap(heap.begin(), heap.end());
    }
  }

  /// makeRoom by the queue (LookaheadOptions::queue). Scores only rise as
  /// the stage nears a value's next use and as its inputs go, so a queued
  /// score is mostly a lower bound: the smallest entry is scored again,
  /// and queued at its new score if that is no longer the smallest.
  bool makeRoomFromQueue(int64_t needed) {
    std::vector<Entry> held; // pinned: back into the queue afterwards
    bool ok = true;
    while (ok && bytes + needed > budget) {
      int victim = -1;
      while (victim < 0 && !heap.empty()) {
        std::pop_heap(heap.begin(), heap.end());
        Entry e = heap.back();
        heap.pop_back();
        if (e.version != version[e.node] || !resident[e.node])
          continue;
        if (pins[e.node]) {
          held.push_back(e);
          continue;
        }
        double s, tie;
        if (!evictionScore(e.node, s, tie)) {
          ++version[e.node];
          continue;
        }
        Entry now{s, tie, e.node, e.version};
        if (!heap.empty() && now < heap.front()) {
          heap.push_back(now);
          std::push_heap(heap.begin(), heap.end());
          continue;
        }
        victim = e.node;
      }
      if (victim < 0)
        ok = false;
      else
        free(victim);
    }
    for (const Entry &e : held) {
      heap.push_back(e);
      std::push_heap(heap.begin(), heap.end());
    }
    return ok;
  }

  /// A factor in [1/2, 2) from a splitmix64 stream: perturbed scores give
  /// the portfolio different schedules to choose from.
  double noise() {
    uint64_t z = (random += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return std::exp2(double(z >> 11) / double(1ull << 53) * 2 - 1);
  }

  const Graph &graph;
  int64_t budget;
  double costLimit, cost = 0;
  double thrashRatio, thrashSlack;
  /// The cost at which the run gives up in this stage: thrashRatio times
  /// the stages' store-all cost so far, plus thrashSlack.
  double stageLimit = std::numeric_limits<double>::infinity();
  EvictionScore score;
  const std::vector<double> *weights;
  bool keepAncestors, depthFirst, queue;
  int64_t walkLimit, walkLeft = 0;
  uint64_t random;
  std::vector<int> stageComputes; // what runStageDepthFirst recomputed
  int64_t maxComputes, computes = 0, bytes = 0;
  int n, stage = 0;
  std::vector<std::vector<int>> users;
  std::vector<size_t> nextUser;
  std::vector<char> resident, computed;
  std::vector<int> residentList, where; // the resident nodes, and where
  std::vector<int> pins;
  std::vector<int> inStage;
  int stageStamp = 0;
  // recomputeCost's memo, valid while `residency` (bumped on every compute
  // and free) is unchanged.
  int64_t residency = 1;
  std::vector<int64_t> rcStamp;
  std::vector<double> rcValue;
  // indirectUse's memo: the `from` it was computed for, and its value.
  std::vector<int> iuFrom, iuValue;
  // Which inputs of each node are not resident, one bit per input position
  // (node w's bits start at word firstWord[w]), and for each node the
  // (user, position) pairs at which it is an input.
  std::vector<int> firstWord;
  std::vector<uint64_t> missingBits;
  // With a bounded walk: the sum of each node's missing inputs' own costs.
  std::vector<double> missingCost;
  std::vector<std::vector<std::pair<int, int>>> inputEdges;
  std::vector<Event> events;
  // The eviction queue (LookaheadOptions::queue): a max-heap by Entry's
  // order, each node's current entry version, and per-node noise.
  std::vector<Entry> heap;
  std::vector<uint32_t> version;
  std::vector<double> nodeNoise;
};

} // namespace

LookaheadOptions tad::remat::lookaheadVariant(int variant) {
  LookaheadOptions options;
  options.score = EvictionScore(variant % 4);
  options.keepAncestors = variant & 4;
  options.depthFirst = variant & 8;
  return options;
}

bool tad::remat::lookaheadSchedule(const Graph &graph, int64_t budget,
                                   const LookaheadOptions &options,
                                   std::vector<Event> &out) {
  return Lookahead(graph, budget, options).run(out);
}
