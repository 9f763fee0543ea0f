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

int64_t peakOf(const Graph &graph, const std::vector<int> &computes) {
  Instances inst(graph, computes);
  std::vector<int64_t> profile = profileOf(graph, computes, inst);
  return profile.empty() ? 0
                         : *std::max_element(profile.begin(), profile.end());
}

/// The readers of each compute of a sequence, in order.
std::vector<std::vector<int>> readersOf(const Instances &inst) {
  std::vector<std::vector<int>> readers(inst.reads.size());
  for (size_t j = 0; j < inst.reads.size(); ++j)
    for (int src : inst.reads[j])
      if (src >= 0 && (readers[src].empty() || readers[src].back() != int(j)))
        readers[src].push_back(int(j));
  return readers;
}

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
  std::vector<int> merged, trial;
  for (int j : recomputes) {
    if (work > limit)
      return false;
    // Without recomputation j, its readers read v's previous instance,
    // which stays resident until then; the inputs j read may die earlier.
    const Node &v = graph.nodes[computes[j]];
    merged = computes;
    merged.erase(merged.begin() + j);
    Instances inst(graph, merged);
    std::vector<int64_t> profile = profileOf(graph, merged, inst);
    work += m;
    int lo = -1, hi = -1;
    int64_t need = 0;
    for (int k = 0; k < m - 1; ++k) {
      int64_t over = profile[k] - budget;
      if (over > 0) {
        if (lo < 0)
          lo = k;
        hi = k;
        need = std::max(need, over);
      }
    }
    if (lo < 0) {
      computes.swap(merged);
      return true;
    }
    // Exchanges: a cheaper w resident over [lo, hi] and unread there,
    // recomputed before its next reader.
    std::vector<std::vector<int>> readers = readersOf(inst);
    for (int q = 0; q < lo && work <= limit; ++q) {
      const Node &w = graph.nodes[merged[q]];
      if (w.cost >= v.cost || !w.recomputable || w.bytes < need)
        continue;
      int before = q;
      for (int r : readers[q]) {
        if (before < lo && r > hi) {
          trial = merged;
          trial.insert(trial.begin() + r, merged[q]);
          work += m;
          if (peakOf(graph, trial) <= budget) {
            computes.swap(trial);
            return true;
          }
        }
        before = r;
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
