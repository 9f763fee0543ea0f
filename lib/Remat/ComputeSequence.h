//===- ComputeSequence.h - schedules as their compute events ----*- C++ -*-===//
//
// A schedule is determined by its compute events alone: each compute reads
// the most recent compute of each input, and the best place to free a
// value is right after the last compute that reads it. Working on that
// sequence lets the solver change recomputations without tracking frees.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_COMPUTESEQUENCE_H
#define TAD_REMAT_COMPUTESEQUENCE_H

#include "tad/Remat/Graph.h"

namespace tad::remat {

/// The compute events of `schedule`, in order.
std::vector<int> computesOf(const std::vector<Event> &schedule);

/// The compute sequence as a schedule: every value freed right after its
/// last reader (at once when nothing reads it). Valid whenever each compute
/// finds each input computed earlier; the peak is never above that of a
/// schedule with the same computes and later frees.
std::vector<Event> scheduleOf(const Graph &graph,
                              const std::vector<int> &computes);

/// The instances of a compute sequence: which compute each compute reads,
/// how often each is read and where last.
struct Instances {
  std::vector<int> readers;    // per compute: how many reads
  std::vector<int> lastReader; // per compute: -1 when unread

  Instances(const Graph &graph, const std::vector<int> &computes);

  /// The computes that compute `j` reads, one per input (-1 where the input
  /// was not computed before).
  struct Reads {
    const int *first, *last;
    const int *begin() const { return first; }
    const int *end() const { return last; }
  };
  Reads reads(size_t j) const {
    return {readFrom.data() + readStart[j], readFrom.data() + readStart[j + 1]};
  }
  size_t size() const { return readers.size(); }

private:
  // All reads in one array (the solvers build many of these), compute j's
  // at [readStart[j], readStart[j + 1]).
  std::vector<int> readStart, readFrom;
};

/// The bytes each compute needs (the resident ones and its transient ones)
/// when every value is freed after its last reader.
std::vector<int64_t> profileOf(const Graph &graph,
                               const std::vector<int> &computes,
                               const Instances &inst);

/// Drops recomputations that nobody reads, transitively; a node keeps at
/// least one compute.
void dropUnread(const Graph &graph, std::vector<int> &computes);

} // namespace tad::remat

#endif // TAD_REMAT_COMPUTESEQUENCE_H
