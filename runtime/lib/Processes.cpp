//===- Processes.cpp - this process's rank among the run's ----------------===//
//
// The core runtime keeps what the MPI runtime (Mpi.cpp) records, so that
// the runner reports it (--stats-json) without linking MPI itself.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

#include <atomic>

namespace {
std::atomic<int> processRank{0}, processCount{1};
std::atomic<bool> known{false};
} // namespace

extern "C" void tad_rt_set_processes(int rank, int count) {
  processRank = rank;
  processCount = count;
  known = true;
}
extern "C" int tad_rt_process_rank(void) { return processRank; }
extern "C" int tad_rt_process_count(void) { return processCount; }
extern "C" int tad_rt_processes_known(void) { return known; }

// The name compiled code calls (its declarations get C wrappers).
extern "C" int _mlir_ciface_tad_rt_process_count(void) {
  return tad_rt_process_count();
}
