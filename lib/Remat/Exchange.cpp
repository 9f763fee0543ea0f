//===- Exchange.cpp - trade a dear recomputation for a cheap one ----------===//
//
// Tightening keeps a value resident instead of recomputing it wherever the
// budget has room between the two. Under a tight budget it rarely has: the
// kept value overflows the budget somewhere in between. The room can often
// be made by recomputing a cheaper value w instead, one that is resident
// over the whole overflow but not read during it: free w after its reader
// before the overflow and recompute it before its next reader after. The
// eviction heuristics do not find such exchanges, because they decide one
// eviction at a time; an exact (MILP) schedule is often the heuristic's
// schedule with a few of them made.
//
// The search works on the compute sequence (ComputeSequence.h) and checks
// each candidate exchange exactly, by the peak of its sequence; it takes
// the first one that fits and lowers the cost, tightens, and repeats.
//
//===----------------------------------------------------------------------===//

#include "ComputeSequence.h"
#include "tad/Remat/Solver.h"

#include <algorithm>

using namespace tad::remat;

namespace {

// Exchanges of one merge: at most this many recomputations inserted.
constexpr int kMaxExchanges = 2;

/// The readers of each compute of a sequence, in order.
std::vector<std::vector<int>> readersOf(const Instances &inst) {
  std::vector<std::vector<int>> readers(inst.size());
  for (size_t j = 0; j < inst.size(); ++j)
    for (int src : inst.reads(j))
      if (src >= 0 && (readers[src].empty() || readers[src].back() != int(j)))
        readers[src].push_back(int(j));
  return readers;
}

double costOf(const Graph &graph, const std::vector<int> &computes) {
  double cost = 0;
  for (int v : computes)
    cost += graph.nodes[v].cost;
  return cost;
}

/// Where a compute sequence needs more than `budget`: the first and last
/// such compute and the largest excess; first < 0 when it fits.
struct Overflow {
  int first = -1, last = -1;
  int64_t excess = 0;
};

Overflow overflowOf(const std::vector<int64_t> &profile, int64_t budget) {
  Overflow o;
  for (int k = 0; k < int(profile.size()); ++k) {
    int64_t over = profile[k] - budget;
    if (over > 0) {
      if (o.first < 0)
        o.first = k;
      o.last = k;
      o.excess = std::max(o.excess, over);
    }
  }
  return o;
}

/// Searches the exchanges of one merge: recomputations of values resident
/// over `sequence`'s overflow and unread there, at most `depth` of them,
/// costing less than `allowance` together. On success, `sequence` is the
/// sequence with them inserted.
class ExchangeSearch {
public:
  ExchangeSearch(const Graph &graph, int64_t budget, int64_t &work,
                 int64_t limit)
      : graph(graph), budget(budget), work(work), limit(limit) {}

  bool fit(std::vector<int> &sequence, double allowance, int depth) {
    int m = int(sequence.size());
    Instances inst(graph, sequence);
    Overflow o = overflowOf(profileOf(graph, sequence, inst), budget);
    work += m;
    if (o.first < 0)
      return true;
    if (depth == 0)
      return false;
    // Each exchange frees its value over the start of the overflow; the
    // last must free it over all of it.
    bool last = depth == 1;
    std::vector<std::vector<int>> readers = readersOf(inst);
    for (int q = 0; q < o.first && work <= limit; ++q) {
      const Node &w = graph.nodes[sequence[q]];
      if (w.cost >= allowance || !w.recomputable ||
          (last && w.bytes < o.excess))
        continue;
      int before = q;
      for (int r : readers[q]) {
        if (before < o.first && r > (last ? o.last : o.first)) {
          // w alone, reading its inputs' instances (which then live until
          // r); or with the inputs that would otherwise be kept alive for
          // it recomputed too.
          for (bool withInputs : {false, true}) {
            double price = w.cost;
            std::vector<int> inserted;
            if (withInputs) {
              for (int i : w.inputs) {
                const Node &input = graph.nodes[i];
                int instance = latestBefore(sequence, i, r);
                if (input.recomputable && instance >= 0 &&
                    inst.lastReader[instance] < r) {
                  inserted.push_back(i);
                  price += input.cost;
                }
              }
              if (inserted.empty())
                continue;
              std::sort(inserted.begin(), inserted.end());
            }
            if (price >= allowance)
              continue;
            inserted.push_back(sequence[q]);
            std::vector<int> trial = sequence;
            trial.insert(trial.begin() + r, inserted.begin(), inserted.end());
            if (fit(trial, allowance - price, depth - 1)) {
              sequence.swap(trial);
              return true;
            }
          }
        }
        before = r;
      }
    }
    return false;
  }

private:
  /// The last compute of `node` before position `at`, or -1.
  static int latestBefore(const std::vector<int> &sequence, int node, int at) {
    for (int k = at - 1; k >= 0; --k)
      if (sequence[k] == node)
        return k;
    return -1;
  }

  const Graph &graph;
  int64_t budget;
  int64_t &work, limit;
};

/// Makes the first exchange that fits `budget`; returns whether it made
/// one. `work` counts the sequence elements the checks and scans went
/// through, and the search stops when it passes `limit`.
bool exchangeOnce(const Graph &graph, int64_t budget,
                  std::vector<int> &computes, int64_t &work, int64_t limit) {
  int m = int(computes.size());
  std::vector<int> latest(graph.size(), -1), recomputes;
  for (int j = 0; j < m; ++j) {
    if (latest[computes[j]] >= 0)
      recomputes.push_back(j);
    latest[computes[j]] = j;
  }
  auto cost = [&](int j) { return graph.nodes[computes[j]].cost; };
  std::stable_sort(recomputes.begin(), recomputes.end(),
                   [&](int a, int b) { return cost(a) > cost(b); });
  double total = costOf(graph, computes);
  ExchangeSearch search(graph, budget, work, limit);
  for (int depth = 1; depth <= kMaxExchanges; ++depth) {
    for (int j : recomputes) {
      if (work > limit)
        return false;
      // Without recomputation j, its readers read v's previous instance,
      // which stays resident until then; the inputs j read may die
      // earlier, and recomputations only j read go too.
      std::vector<int> merged = computes;
      merged.erase(merged.begin() + j);
      dropUnread(graph, merged);
      work += m;
      double saving = total - costOf(graph, merged);
      if (search.fit(merged, saving, depth)) {
        computes.swap(merged);
        return true;
      }
    }
  }
  return false;
}

} // namespace

void tad::remat::exchangeSchedule(const Graph &graph, int64_t budget,
                                  std::vector<Event> &schedule,
                                  int64_t workLimit) {
  tightenSchedule(graph, budget, schedule);
  budget = std::max(budget, simulate(graph, schedule).peak);
  std::vector<int> computes = computesOf(schedule);
  int64_t work = 0;
  while (work <= workLimit &&
         exchangeOnce(graph, budget, computes, work, workLimit)) {
    dropUnread(graph, computes);
    std::vector<Event> tightened = scheduleOf(graph, computes);
    tightenSchedule(graph, budget, tightened);
    computes = computesOf(tightened);
  }
  schedule = scheduleOf(graph, computes);
}
