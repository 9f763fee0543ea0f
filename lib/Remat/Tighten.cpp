//===- Tighten.cpp - improve a schedule within its budget -----------------===//
//
// Greedy schedules free too late (an evicted value may have been dead long
// before) and recompute too much (a value evicted under pressure at one
// moment may have fit later). Tightening works on the compute sequence:
//
//  1. every value is freed right after its last reader;
//  2. a recomputation that nobody reads is dropped, and with it the reads
//     of its inputs (which may make their recomputations unread in turn);
//  3. a recomputation of v is merged into v's previous instance (v stays
//     resident from that instance's last reader to the recomputation's)
//     where the resident bytes in between leave room for v under the
//     budget; the most expensive recomputations are tried first.
//
// Each step keeps the schedule valid, lowers no cost and raises no peak
// above the budget; they repeat until nothing changes.
//
//===----------------------------------------------------------------------===//

#include "ComputeSequence.h"
#include "tad/Remat/Solver.h"

#include <algorithm>
#include <numeric>

using namespace tad::remat;

std::vector<int> tad::remat::computesOf(const std::vector<Event> &schedule) {
  std::vector<int> computes;
  for (const Event &e : schedule)
    if (e.kind == Event::compute)
      computes.push_back(e.node);
  return computes;
}

tad::remat::Instances::Instances(const Graph &graph,
                                 const std::vector<int> &computes) {
  size_t m = computes.size();
  readers.assign(m, 0);
  lastReader.assign(m, -1);
  readStart.reserve(m + 1);
  readStart.push_back(0);
  std::vector<int> latest(graph.size(), -1);
  for (size_t j = 0; j < m; ++j) {
    for (int i : graph.nodes[computes[j]].inputs) {
      int src = latest[i];
      readFrom.push_back(src);
      if (src >= 0) {
        ++readers[src];
        lastReader[src] = int(j);
      }
    }
    readStart.push_back(int(readFrom.size()));
    latest[computes[j]] = int(j);
  }
}

/// Drops recomputations that nobody reads, transitively; a node keeps at
/// least one compute.
void tad::remat::dropUnread(const Graph &graph, std::vector<int> &computes) {
  Instances inst(graph, computes);
  size_t m = computes.size();
  std::vector<int> count(graph.size(), 0);
  for (int v : computes)
    ++count[v];
  std::vector<char> dropped(m, 0);
  std::vector<int> work;
  for (size_t j = 0; j < m; ++j)
    if (inst.readers[j] == 0 && !graph.nodes[computes[j]].users.empty())
      work.push_back(int(j));
  while (!work.empty()) {
    int j = work.back();
    work.pop_back();
    if (dropped[j] || inst.readers[j] != 0 || count[computes[j]] < 2)
      continue;
    dropped[j] = 1;
    --count[computes[j]];
    for (int src : inst.reads(j))
      if (src >= 0 && --inst.readers[src] == 0)
        work.push_back(src);
  }
  std::vector<int> kept;
  for (size_t j = 0; j < m; ++j)
    if (!dropped[j])
      kept.push_back(computes[j]);
  computes = std::move(kept);
}

/// The bytes each compute needs (the resident ones and its transient ones)
/// when every value is freed after its last reader.
std::vector<int64_t> tad::remat::profileOf(const Graph &graph,
                                           const std::vector<int> &computes,
                                           const Instances &inst) {
  size_t m = computes.size();
  std::vector<int64_t> freedAfter(m, 0); // bytes freed after each compute
  for (size_t j = 0; j < m; ++j)
    freedAfter[inst.lastReader[j] < 0 ? j : inst.lastReader[j]] +=
        graph.nodes[computes[j]].bytes;
  std::vector<int64_t> profile(m);
  int64_t bytes = 0;
  for (size_t j = 0; j < m; ++j) {
    bytes += graph.nodes[computes[j]].bytes;
    profile[j] = bytes + graph.nodes[computes[j]].transient;
    bytes -= freedAfter[j];
  }
  return profile;
}

namespace {

/// One round of merges; returns whether any was made.
bool mergeRound(const Graph &graph, int64_t budget,
                std::vector<int> &computes) {
  Instances inst(graph, computes);
  std::vector<int64_t> profile = profileOf(graph, computes, inst);
  size_t m = computes.size();
  // Recomputations, most expensive first.
  std::vector<int> previous(m, -1), latest(graph.size(), -1), order;
  for (size_t j = 0; j < m; ++j) {
    previous[j] = latest[computes[j]];
    latest[computes[j]] = int(j);
    if (previous[j] >= 0)
      order.push_back(int(j));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return graph.nodes[computes[a]].cost > graph.nodes[computes[b]].cost;
  });
  std::vector<char> drop(m, 0);
  bool merged = false;
  for (int j : order) {
    int p = previous[j];
    if (drop[p])
      continue; // its previous instance was merged away this round
    int from = inst.lastReader[p] < 0 ? p : inst.lastReader[p];
    int64_t v = graph.nodes[computes[j]].bytes;
    bool fits = true;
    for (int k = from + 1; k < j && fits; ++k)
      fits = profile[k] + v <= budget;
    if (!fits)
      continue;
    // v now stays resident over (from, j): account for it, so that later
    // merges this round see the bytes.
    for (int k = from + 1; k < j; ++k)
      profile[k] += v;
    drop[j] = 1;
    merged = true;
    // Readers of j now read p: p's instance lives to j's last reader.
    if (inst.lastReader[j] > inst.lastReader[p])
      inst.lastReader[p] = inst.lastReader[j];
  }
  if (!merged)
    return false;
  std::vector<int> kept;
  for (size_t j = 0; j < m; ++j)
    if (!drop[j])
      kept.push_back(computes[j]);
  computes = std::move(kept);
  return true;
}

} // namespace

std::vector<Event> tad::remat::scheduleOf(const Graph &graph,
                                          const std::vector<int> &computes) {
  Instances inst(graph, computes);
  size_t m = computes.size();
  std::vector<std::vector<int>> freedAfter(m);
  for (size_t j = 0; j < m; ++j)
    freedAfter[inst.lastReader[j] < 0 ? j : inst.lastReader[j]].push_back(
        int(j));
  std::vector<Event> events;
  for (size_t j = 0; j < m; ++j) {
    events.push_back({Event::compute, computes[j]});
    for (int k : freedAfter[j])
      events.push_back({Event::free, computes[k]});
  }
  return events;
}

void tad::remat::tightenSchedule(const Graph &graph, int64_t budget,
                                 std::vector<Event> &schedule) {
  std::vector<int> computes = computesOf(schedule);
  budget = std::max(budget, simulate(graph, schedule).peak);
  dropUnread(graph, computes);
  for (int round = 0; round < 8; ++round) {
    if (!mergeRound(graph, budget, computes))
      break;
    dropUnread(graph, computes);
  }
  schedule = scheduleOf(graph, computes);
}
