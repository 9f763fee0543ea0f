//===- Mpi.cpp - MPI, once per process, for programs with collectives -----===//
//
// Linked only into programs whose code has collectives (tadc adds it with
// the MPI library when the module declares tad_rt_mpi_init), so that other
// programs need no MPI. The first call initializes MPI unless the host
// program did (then the host finalizes it too), records the rank and the
// number of processes in the core runtime, and finalizes MPI at exit.
//
// Run without a launcher, a program is one process of its own (MPI's
// singleton start); where Open MPI cannot start one (its daemon is not on
// PATH), that is an error that says to use mpirun. A launcher of another
// MPI implementation would start N processes that each believe they are
// alone, and each would train on its own shard in silence: that is
// detected from the launcher's environment and is an error.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace {

/// The process count that the launcher announced, or 0 when none did.
int launcherProcessCount() {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "PMIX_SIZE"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return 0;
}

/// Whether `program` is an executable file in a folder of $PATH.
bool onPath(const char *program) {
  const char *path = std::getenv("PATH");
  std::string folders = path ? path : "";
  size_t begin = 0;
  while (begin <= folders.size()) {
    size_t end = folders.find(':', begin);
    if (end == std::string::npos)
      end = folders.size();
    std::string file = folders.substr(begin, end - begin) + "/" + program;
    if (end > begin && ::access(file.c_str(), X_OK) == 0)
      return true;
    begin = end + 1;
  }
  return false;
}

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

[[noreturn]] void fail(const char *message) {
  std::fprintf(stderr, "tad: %s\n", message);
  std::fflush(stderr);
  std::_Exit(1);
}

} // namespace

extern "C" void tad_rt_mpi_init(void) {
  static bool done = false;
  if (done)
    return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
#ifdef OPEN_MPI
    // Alone, Open MPI starts its daemon (orted) for the process; where it
    // cannot, MPI_Init exits with pages about orte_init. Say what to do.
    if (!launcherProcessCount() && !onPath("orted"))
      fail("this program has collectives and was started without mpirun, "
           "and Open MPI cannot run it alone here (no orted on PATH): start "
           "it with mpirun -np N (docs/distributed.md)");
#endif
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
      fail("MPI failed to start: run the program with mpirun (see "
           "docs/distributed.md)");
    std::atexit(finalize);
  }
  int rank = 0, count = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &count);
  int announced = launcherProcessCount();
  if (announced > 1 && count != announced) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "the launcher started %d processes, but MPI sees %d: it is "
                  "the launcher of another MPI implementation than the one "
                  "this program links (use that MPI's mpirun)",
                  announced, count);
    fail(message);
  }
  tad_rt_set_processes(rank, count);
  done = true;
}

// The name compiled code calls (its declarations get C wrappers).
extern "C" void _mlir_ciface_tad_rt_mpi_init(void) { tad_rt_mpi_init(); }
