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

#include "FlatGraph.h"
#include "tad/Remat/Solver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

using namespace tad::remat;

static constexpr int kNoUse = FlatGraph::kNoUse;

FlatGraph::FlatGraph(const Graph &graph)
    : n(graph.size()), cost(n), bytes(n), transient(n), recomputable(n),
      inputStart(n + 1, 0), userStart(n + 1, 0), outStart(n + 1, 0) {
  double total = 0;
  for (int v = 0; v < n; ++v) {
    const Node &node = graph.nodes[v];
    cost[v] = node.cost;
    bytes[v] = node.bytes;
    transient[v] = node.transient;
    recomputable[v] = node.recomputable;
    wholeCosts &= node.cost >= 0 && node.cost == std::floor(node.cost);
    total += node.cost;
    inputStart[v + 1] = inputStart[v] + int(node.inputs.size());
    userStart[v + 1] = userStart[v] + int(node.users.size());
  }
  wholeCosts &= total < 0x1p52;
  inputList.reserve(inputStart[n]);
  for (const Node &node : graph.nodes)
    inputList.insert(inputList.end(), node.inputs.begin(), node.inputs.end());
  userList.reserve(userStart[n]);
  for (const Node &node : graph.nodes) {
    size_t begin = userList.size();
    userList.insert(userList.end(), node.users.begin(), node.users.end());
    // The graphs tadc and bench/remat write list their links by user:
    // these come sorted.
    if (!std::is_sorted(userList.begin() + begin, userList.end()))
      std::sort(userList.begin() + begin, userList.end());
  }
  // The (user, position) pairs by input, in user order: counted, then
  // filled by a pass over the users in node order.
  for (int e = 0; e < inputStart[n]; ++e)
    ++outStart[inputList[e] + 1];
  for (int v = 0; v < n; ++v)
    outStart[v + 1] += outStart[v];
  outList.resize(outStart[n]);
  std::vector<int> fill(outStart.begin(), outStart.end() - 1);
  for (int w = 0; w < n; ++w)
    for (int p = 0, e = inputStart[w]; e < inputStart[w + 1]; ++p, ++e)
      outList[fill[inputList[e]]++] = {w, p};
  // Each input edge's next use: the sorted users of its input, walked
  // alongside the same input's edges, which come in user order.
  nextUseAfter.resize(inputStart[n]);
  nextUsePosition.resize(inputStart[n]);
  for (int v = 0; v < n; ++v) {
    int position = userStart[v];
    for (int k = outStart[v]; k < outStart[v + 1]; ++k) {
      auto [w, p] = outList[k];
      while (position < userStart[v + 1] && userList[position] <= w)
        ++position;
      int e = inputStart[w] + p;
      nextUsePosition[e] = position;
      nextUseAfter[e] =
          position < userStart[v + 1] ? userList[position] : kNoUse;
    }
  }
}

namespace {

class Lookahead {
public:
  Lookahead(const FlatGraph &g, int64_t budget, const LookaheadOptions &options)
      : g(g), budget(budget), costLimit(options.costLimit),
        thrashRatio(options.thrashRatio), thrashSlack(options.thrashSlack),
        windowRatio(options.windowRatio),
        window(std::max(1, options.thrashWindow)), score(options.score),
        weights(options.weights), keepAncestors(options.keepAncestors),
        depthFirst(options.depthFirst), queue(options.queue),
        walkLimit(options.walkLimit), scanLimit(options.scanLimit),
        // (Whole costs keep missingCost exact: the bound must not pass
        // the score it bounds.)
        defer(options.deferScores && !options.queue && !options.seed &&
              g.wholeCosts),
        bestFirst(options.bestFirst && !options.queue && !options.seed &&
                  !options.weights &&
                  options.score == EvictionScore::costPerByte && g.wholeCosts),
        bounded(walkLimit != std::numeric_limits<int64_t>::max()),
        random(options.seed),
        maxComputes(std::max<int64_t>(int64_t(kDtrComputesPerNode) * g.n,
                                      kDtrMinComputeLimit)),
        n(g.n), nextUser(g.userStart.begin(), g.userStart.end() - 1),
        nextUseValue(n), resident(n, 0), computed(n, 0), where(n, -1),
        pins(n, 0), inStage(n, 0), memo(n), iuFrom(n, -1), iuValue(n, 0),
        firstWord(n + 1, 0) {
    for (int v = 0; v < n; ++v)
      nextUseValue[v] = g.users(v).empty() ? kNoUse : g.users(v).front();
    // Nothing is resident yet: every input of every node is missing.
    for (int w = 0; w < n; ++w)
      firstWord[w + 1] = firstWord[w] + (g.inputs(w).size() + 63) / 64;
    missingBits.assign(firstWord[n], 0);
    // A bounded walk (walkLimit), a queued bound and a deferring scan's
    // bound need each node's missing inputs' cost.
    if (bounded || queue || defer || bestFirst) {
      missingCost.assign(n, 0);
      for (int w = 0; w < n; ++w)
        for (int i : g.inputs(w))
          missingCost[w] += g.cost[i];
    }
    for (int w = 0; w < n; ++w)
      for (size_t p = 0; p < g.inputs(w).size(); ++p)
        missingBits[firstWord[w] + p / 64] |= uint64_t(1) << (p % 64);
    if (bestFirst)
      bucketDeaths();
    if (queue || bestFirst) {
      slot.assign(n, -1);
      isPending.assign(n, 0);
      countsInputs.assign(n, 0);
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
    // The cost and `reached` before each of the last `window` stages.
    std::vector<double> costBefore, reachedBefore;
    if (windowRatio > 0) {
      costBefore.resize(window);
      reachedBefore.resize(window);
    }
    for (stage = 0; stage < n; ++stage) {
      if (windowRatio > 0) {
        int at = stage % window;
        if (stage >= window &&
            cost - costBefore[at] > windowRatio * (reached - reachedBefore[at]))
          return false;
        costBefore[at] = cost;
        reachedBefore[at] = reached;
      }
      reached += g.cost[stage];
      // Values that die at this stage are evicted before any other.
      if (bestFirst)
        for (int k = deathStart[stage]; k < deathStart[stage + 1]; ++k)
          if (resident[deaths[k]])
            enqueue(deaths[k]);
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
    // The answer for an earlier `from` stands while it is not before
    // `from`: only the cached value is read, not the users list.
    int &value = nextUseValue[v];
    if (value >= from)
      return value;
    int &p = nextUser[v];
    int end = g.userStart[v + 1];
    while (p < end && g.userList[p] < from)
      ++p;
    value = p < end ? g.userList[p] : kNoUse;
    return value;
  }

  /// When `v` itself is read no more: the first stage >= `from` that reads
  /// one of its users, which may have to be recomputed from `v`.
  int indirectUse(int v, int from) {
    // Memoized per `from`: every eviction of a stage asks again, and a
    // value of a dense graph has many users.
    if (iuFrom[v] == from)
      return iuValue[v];
    int first = kNoUse;
    for (int u : g.users(v))
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
    // Their next uses come with the edges, so no users list is searched.
    if (queue && t > 0)
      for (int e = g.inputStart[t - 1]; e < g.inputStart[t]; ++e) {
        int i = g.inputList[e];
        if (!resident[i])
          continue;
        nextUser[i] = g.nextUsePosition[e];
        nextUseValue[i] = g.nextUseAfter[e];
        enqueue(i);
      }
    if (depthFirst)
      return runStageDepthFirst(t);
    // The missing inputs and, transitively, their missing inputs.
    std::vector<int> missing, stack;
    ++stageStamp;
    for (int i : g.inputs(t))
      stack.push_back(i);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (resident[v] || inStage[v] == stageStamp)
        continue;
      inStage[v] = stageStamp;
      missing.push_back(v);
      for (int i : g.inputs(v))
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
    for (int i : g.inputs(t))
      if (resident[i] && dead(i, t + 1))
        free(i);
    if (g.users(t).empty())
      free(t);
  }

  /// Makes every input of `v` resident and pins them all (the caller
  /// unpins after computing `v`). The resident ones are pinned first, so
  /// that recomputing the others does not evict them; the missing ones are
  /// recomputed latest node first, each pinned once it is back.
  bool ensureInputs(int v) {
    std::vector<int> missing;
    for (int i : g.inputs(v)) {
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
    for (int i : g.inputs(v))
      pins[i] += delta;
  }

  bool compute(int v) {
    if (++computes > maxComputes ||
        (cost += g.cost[v]) > std::min(costLimit, stageLimit))
      return false;
    if (!g.recomputable[v] && computed[v])
      return false; // needed again after it was freed: not allowed
    bool again = computed[v];
    computed[v] = 1;
    if (!makeRoom(g.bytes[v] + g.transient[v]))
      return false;
    events.push_back({Event::compute, v});
    resident[v] = 1;
    setMissing(v, false);
    where[v] = int(residentList.size());
    residentList.push_back(v);
    bytes += g.bytes[v];
    ++residency;
    if (bestFirst)
      enqueue(v);
    if (queue) {
      enqueue(v);
      // A recomputed value lowers the recompute cost of its resident
      // users: a queued score that counted it missing is no longer a lower
      // bound. (One that counted no missing input still is.)
      if (again)
        for (int u : g.users(v))
          if (resident[u] && countsInputs[u])
            enqueue(u);
    }
    return true;
  }

  /// Records that `v` became missing (or resident) as an input of each of
  /// its users.
  void setMissing(int v, bool missing) {
    double delta = missing ? g.cost[v] : -g.cost[v];
    for (int k = g.outStart[v]; k < g.outStart[v + 1]; ++k) {
      auto [w, p] = g.outList[k];
      uint64_t &word = missingBits[firstWord[w] + p / 64];
      uint64_t bit = uint64_t(1) << (p % 64);
      word = missing ? word | bit : word & ~bit;
      if (!missingCost.empty())
        missingCost[w] += delta;
      if (bestFirst && resident[w])
        enqueue(w); // its bound moved
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
    bytes -= g.bytes[v];
    ++residency;
    if (queue || bestFirst)
      removeEntry(v);
  }

  /// The cost of computing `v` again now: its own and that of its missing
  /// inputs, memoized until residency changes. Shared ancestors count once
  /// per path, the depth is capped, and the walk visits at most `walkLeft`
  /// values (LookaheadOptions::walkLimit): an estimate, not a schedule.
  double recomputeCost(int v, int depth = 0) {
    if (memo[v].stamp == residency)
      return memo[v].value;
    // A value that a deferred walk may have memoized (makeRoom): the walk
    // is void, and goes again once the deferred walks have gone.
    if (missAborts && depth > 0) {
      aborted = true;
      return 0;
    }
    // Past the limit a value counts its own cost, and is not memoized:
    // that is not its recompute cost.
    if (walkLeft-- <= 0)
      return g.cost[v];
    double c = g.cost[v];
    // The missing inputs in input order, as a loop over every input that
    // skips the resident ones would visit them (the memo makes the order
    // matter), without that loop's cost on dense graphs.
    if (depth < 32) {
      llvm::ArrayRef<int> inputs = g.inputs(v);
      // A bounded walk starts from the missing inputs' own costs, kept
      // as values come and go, and adds what the inputs it reaches cost
      // beyond their own: what it does not reach costs it nothing, so a
      // value of a dense graph is scored in O(walkLimit), not in O(its
      // missing inputs).
      if (bounded)
        c += missingCost[v];
      for (int word = firstWord[v]; word < firstWord[v + 1]; ++word)
        for (uint64_t bits = missingBits[word]; bits; bits &= bits - 1) {
          if (bounded && walkLeft <= 0)
            break;
          int p = (word - firstWord[v]) * 64 + __builtin_ctzll(bits);
          int i = inputs[p];
          // A value memoized is read here, not in a call: on dense graphs
          // most are.
          const Memo &m = memo[i];
          c += (m.stamp == residency ? m.value : recomputeCost(i, depth + 1)) -
               (bounded ? g.cost[i] : 0);
          if (aborted)
            return 0;
        }
    }
    memo[v] = {residency, c};
    return c;
  }

  /// The eviction score of resident `u` now, and its tie breaker: the
  /// smallest goes first. Minus infinity for a value nobody reads any
  /// more; false when `u` may not be evicted before its next use. `bound`
  /// takes the value's own cost and its missing inputs' for its recompute
  /// cost: a lower bound (either walk counts at least those), without the
  /// walk.
  bool evictionScore(int u, double &s, double &tie, bool bound = false) {
    int use = nextUse(u, stage);
    if (!g.recomputable[u] && use != kNoUse)
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
    double size = double(std::max<int64_t>(g.bytes[u], 1));
    walkLeft = walkLimit;
    // The bound is the same sum as a bounded walk's start, and at most
    // an unbounded walk's sum of its inputs' costs: not above the score.
    double rc = bound ? g.cost[u] + missingCost[u] : recomputeCost(u);
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
    if (bestFirst)
      return makeRoomBestFirst(needed);
    while (bytes + needed > budget) {
      if ((scanLooks += int64_t(residentList.size())) > scanLimit)
        return false;
      int victim = -1;
      double best = std::numeric_limits<double>::infinity();
      double bestTie = best;
      deferred.clear();
      for (int u : residentList) {
        double s, tie;
        if (pins[u])
          continue;
        // A value whose lower bound already loses to the best so far
        // loses: its walk is deferred, and goes (for what it memoizes,
        // which later walks may read) only if a later walk misses the memo.
        // So the scan chooses as if every value were scored in turn
        // (LookaheadOptions::deferScores).
        if (defer) {
          if (!evictionScore(u, s, tie, /*bound=*/true))
            continue;
          if (s > best) {
            // A walk with no missing input to visit memoizes nothing that
            // another walk reads: nothing to defer.
            if (anyMissing(u))
              deferred.push_back(u);
            continue;
          }
        }
        if (!scoreInTurn(u, s, tie))
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

  /// Whether an input of `v` is not resident.
  bool anyMissing(int v) const {
    for (int word = firstWord[v]; word < firstWord[v + 1]; ++word)
      if (missingBits[word])
        return true;
    return false;
  }

  /// evictionScore of `u` in makeRoom's scan, as if the deferred values
  /// before it had been scored: where its walk misses the memo, which a
  /// deferred walk might have filled, they go first, and it again.
  bool scoreInTurn(int u, double &s, double &tie) {
    if (deferred.empty())
      return evictionScore(u, s, tie);
    missAborts = true;
    bool scored = evictionScore(u, s, tie);
    missAborts = false;
    if (!aborted)
      return scored;
    aborted = false;
    for (int d : deferred) {
      walkLeft = walkLimit;
      recomputeCost(d);
    }
    deferred.clear();
    return evictionScore(u, s, tie);
  }

  /// A queued score. The queue holds one per node, so that rescoring a
  /// value moves its entry instead of leaving a void one behind: on dense
  /// graphs, where a recompute rescored hundreds of users, void entries
  /// were most of what evictions popped.
  struct Entry {
    double score, tie;
    int node;
    /// Whether this goes before `other`: the smallest score first.
    bool before(const Entry &other) const {
      return std::tie(score, tie, node) <
             std::tie(other.score, other.tie, other.node);
    }
  };

  /// The heap's arity: four children share a cache line or two, and the
  /// heap is half as deep as a binary one.
  static constexpr size_t kArity = 4;

  void place(size_t i, const Entry &e) {
    heap[i] = e;
    slot[e.node] = int(i);
  }

  void siftUp(size_t i) {
    Entry e = heap[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!e.before(heap[parent]))
        break;
      place(i, heap[parent]);
      i = parent;
    }
    place(i, e);
  }

  void siftDown(size_t i) {
    Entry e = heap[i];
    size_t size = heap.size();
    while (true) {
      size_t first = kArity * i + 1;
      if (first >= size)
        break;
      size_t child = first;
      for (size_t c = first + 1; c < std::min(first + kArity, size); ++c)
        if (heap[c].before(heap[child]))
          child = c;
      if (!heap[child].before(e))
        break;
      place(i, heap[child]);
      i = child;
    }
    place(i, e);
  }

  /// Queues `e`, replacing its node's entry if it has one.
  void setEntry(const Entry &e) {
    int i = slot[e.node];
    if (i < 0) {
      heap.push_back(e);
      siftUp(heap.size() - 1);
      return;
    }
    bool up = e.before(heap[i]);
    heap[i] = e;
    up ? siftUp(i) : siftDown(i);
  }

  /// Takes `node`'s entry out of the queue, if it has one.
  void removeEntry(int node) {
    int i = slot[node];
    if (i < 0)
      return;
    slot[node] = -1;
    Entry last = heap.back();
    heap.pop_back();
    if (size_t(i) == heap.size())
      return;
    place(i, last);
    siftUp(i);
    siftDown(slot[last.node]);
  }

  /// Queues resident `u` at a lower bound of its score now, in place of
  /// its entry.
  ///
  /// Lazily: `u` waits in `pending` until an eviction needs the queue, and
  /// is scored then. Most stages of a run evict nothing (on a dense graph
  /// a run near the store-all peak evicts nothing until its middle), and
  /// each stage requeues every input of the one before.
  void enqueue(int u) {
    if (!isPending[u]) {
      isPending[u] = 1;
      pending.push_back(u);
    }
  }

  /// Scores and queues the values waiting in `pending`: a queued score is
  /// a lower bound again.
  void flushPending() {
    for (int u : pending) {
      isPending[u] = 0;
      if (!resident[u])
        continue; // freed meanwhile: it has no entry
      countsInputs[u] = missingCost[u] > 0;
      double s, tie;
      if (!evictionScore(u, s, tie, /*bound=*/true)) {
        removeEntry(u); // queued again once its next use passes
        continue;
      }
      setEntry({s, tie, u});
    }
    pending.clear();
  }

  /// makeRoom by the queue (LookaheadOptions::queue). Scores only rise as
  /// the stage nears a value's next use and as its inputs go, so a queued
  /// score is mostly a lower bound: the smallest entry is scored again,
  /// and queued at its new score if that is no longer the smallest.
  bool makeRoomFromQueue(int64_t needed) {
    if (bytes + needed <= budget)
      return true;
    flushPending();
    std::vector<Entry> held; // pinned: back into the queue afterwards
    bool ok = true;
    while (ok && bytes + needed > budget) {
      int victim = -1;
      while (victim < 0 && !heap.empty()) {
        Entry e = heap.front();
        removeEntry(e.node);
        if (pins[e.node]) {
          held.push_back(e);
          continue;
        }
        double s, tie;
        if (!evictionScore(e.node, s, tie))
          continue;
        Entry now{s, tie, e.node};
        if (!heap.empty() && heap.front().before(now)) {
          countsInputs[e.node] = 1;
          setEntry(now);
          continue;
        }
        victim = e.node;
      }
      if (victim < 0)
        ok = false;
      else
        free(victim);
    }
    for (const Entry &e : held)
      setEntry(e);
    return ok;
  }

  /// The first stage at which evictionScore finds each value dead (read by
  /// nobody, and with keepAncestors, no user of it read either): past its
  /// last user's stage, and its users'. Those of each stage, by stage.
  void bucketDeaths() {
    auto lastUser = [&](int v) {
      return g.users(v).empty() ? -1 : g.users(v).back();
    };
    deadFrom.assign(n, 0);
    deathStart.assign(n + 2, 0);
    for (int v = 0; v < n; ++v) {
      int last = lastUser(v);
      if (keepAncestors)
        for (int u : g.users(v))
          last = std::max(last, lastUser(u));
      deadFrom[v] = last + 1;
      ++deathStart[last + 2];
    }
    for (int t = 0; t <= n; ++t)
      deathStart[t + 1] += deathStart[t];
    deaths.resize(n);
    std::vector<int> fill(deathStart.begin(), deathStart.end() - 1);
    for (int v = 0; v < n; ++v)
      deaths[fill[deadFrom[v]]++] = v;
  }

  /// Requeues the values waiting in `pending` at their lower bound now,
  /// the rc/b score of their own and their missing inputs' costs (minus
  /// infinity once dead): what evictionScore's bound gives.
  void flushBounds() {
    for (int u : pending) {
      isPending[u] = 0;
      if (!resident[u])
        continue; // freed meanwhile: it has no entry
      double bound = stage >= deadFrom[u]
                         ? -std::numeric_limits<double>::infinity()
                         : (g.cost[u] + missingCost[u]) /
                               double(std::max<int64_t>(g.bytes[u], 1));
      setEntry({bound, 0, u});
    }
    pending.clear();
  }

  /// makeRoom by bounds (LookaheadOptions::bestFirst): the values are
  /// scored in full in the order of their queued bounds, until a bound
  /// passes the best score, since no value after it can score below it.
  /// Of equal scores and ties, the one a scan meets first (its place in
  /// residentList) goes, as in the scan. The scan limit counts what a scan
  /// would have looked at, so a run gives up where the scan would.
  bool makeRoomBestFirst(int64_t needed) {
    while (bytes + needed > budget) {
      if ((scanLooks += int64_t(residentList.size())) > scanLimit)
        return false;
      flushBounds();
      int victim = -1;
      double best = std::numeric_limits<double>::infinity();
      double bestTie = best;
      // The queue's entries in order, without taking them out: a frontier
      // of the heap's positions whose parents came out, smallest first.
      auto later = [&](size_t a, size_t b) { return heap[b].before(heap[a]); };
      frontier.clear();
      if (!heap.empty())
        frontier.push_back(0);
      while (!frontier.empty()) {
        std::pop_heap(frontier.begin(), frontier.end(), later);
        const Entry e = heap[frontier.back()];
        size_t first = kArity * frontier.back() + 1;
        frontier.pop_back();
        if (e.score > best)
          break; // and so is every entry left
        for (size_t c = first; c < std::min(first + kArity, heap.size()); ++c)
          if (heap[c].score <= best) {
            frontier.push_back(c);
            std::push_heap(frontier.begin(), frontier.end(), later);
          }
        double s, tie;
        if (pins[e.node] || !evictionScore(e.node, s, tie))
          continue;
        bool wins =
            victim < 0 || s < best ||
            (s == best && (tie < bestTie ||
                           (tie == bestTie && where[e.node] < where[victim])));
        if (wins) {
          best = s;
          bestTie = tie;
          victim = e.node;
        }
      }
      if (victim < 0)
        return false;
      free(victim);
    }
    return true;
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

  const FlatGraph &g;
  int64_t budget;
  double costLimit, cost = 0;
  double thrashRatio, thrashSlack, windowRatio;
  int window;
  /// The cost at which the run gives up in this stage: thrashRatio times
  /// the stages' store-all cost so far, plus thrashSlack.
  double stageLimit = std::numeric_limits<double>::infinity();
  EvictionScore score;
  const std::vector<double> *weights;
  bool keepAncestors, depthFirst, queue;
  int64_t walkLimit, walkLeft = 0;
  int64_t scanLimit, scanLooks = 0; // LookaheadOptions::scanLimit
  bool defer;     // LookaheadOptions::deferScores, where it holds
  bool bestFirst; // LookaheadOptions::bestFirst, where it holds
  bool bounded; // whether walkLimit bounds the walk
  uint64_t random;
  std::vector<int> stageComputes; // what runStageDepthFirst recomputed
  int64_t maxComputes, computes = 0, bytes = 0;
  int n, stage = 0;
  // Each value's next use (nextUse): its position in g.userList, and the
  // stage there.
  std::vector<int> nextUser, nextUseValue;
  std::vector<char> resident, computed;
  std::vector<int> residentList, where; // the resident nodes, and where
  std::vector<int> pins;
  std::vector<int> inStage;
  int stageStamp = 0;
  // recomputeCost's memo, valid while `residency` (bumped on every compute
  // and free) is unchanged.
  int64_t residency = 1;
  struct Memo {
    int64_t stamp = 0;
    double value = 0;
  };
  std::vector<Memo> memo;
  // The values of makeRoom's scan whose walks wait (in scan order), and
  // whether a walk that misses the memo stops (and did).
  std::vector<int> deferred;
  bool missAborts = false, aborted = false;
  // indirectUse's memo: the `from` it was computed for, and its value.
  std::vector<int> iuFrom, iuValue;
  // Which inputs of each node are not resident, one bit per input position
  // (node w's bits start at word firstWord[w]), and for each node the
  // (user, position) pairs at which it is an input.
  std::vector<int> firstWord;
  std::vector<uint64_t> missingBits;
  // With a bounded walk or the queue: the sum of each node's missing
  // inputs' own costs.
  std::vector<double> missingCost;
  std::vector<Event> events;
  // The eviction queue (LookaheadOptions::queue): a binary heap, smallest
  // score first, where each node's entry is (slot[node], -1 if none), and
  // per-node noise.
  std::vector<Entry> heap;
  std::vector<int> slot;
  // The values enqueue was asked to queue since the last eviction.
  std::vector<int> pending;
  std::vector<char> isPending;
  /// Whether a node's queued score counted missing inputs.
  std::vector<char> countsInputs;
  std::vector<double> nodeNoise;
  // With bestFirst: the values that die at each stage (those of stage t
  // from deaths[deathStart[t]]), and each value's first stage dead.
  std::vector<int> deathStart, deaths, deadFrom;
  std::vector<size_t> frontier; // makeRoomBestFirst's
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
  return lookaheadSchedule(FlatGraph(graph), budget, options, out);
}

bool tad::remat::lookaheadSchedule(const FlatGraph &graph, int64_t budget,
                                   const LookaheadOptions &options,
                                   std::vector<Event> &out) {
  return Lookahead(graph, budget, options).run(out);
}
