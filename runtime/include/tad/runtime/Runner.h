//===- Runner.h - load inputs, call an entry, report ------------*- C++ -*-===//
//
// What `tadc run` and a `tadc --emit=exe` executable share: inputs from
// .npy files (or a seeded initializer), the call through a packed function
// `void(void **args)` with args = {&results, &input0, &input1, ...} (each a
// pointer to a memref descriptor pointer; no &results for a function without
// results), result summaries and .npy files,
// and the allocator's measurements.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_RUNNER_H
#define TAD_RUNTIME_RUNNER_H

#include "tad/runtime/Npy.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tad::rt {

struct TensorSpec {
  std::string name; // the parameter name, or "result<i>"
  DType dtype = DType::f32;
  std::vector<int64_t> shape;

  int64_t getNumElements() const;
  int64_t getByteSize() const;
};

/// The tensors an entry point takes and returns.
struct EntrySpec {
  std::string function;
  std::vector<TensorSpec> params, results;
  /// The peak of the function's planned buffers as the compiler computed
  /// it (tad-buffer-peak), or -1 when unknown; an upper bound rather than
  /// every run's peak when `plannedPeakIsBound`.
  int64_t plannedPeak = -1;
  bool plannedPeakIsBound = false;
};

/// The most threads a run takes: more than any machine tad runs on has
/// cores.
constexpr unsigned kMaxThreads = 4096;

struct RunOptions {
  /// .npy files by parameter name.
  std::map<std::string, std::string> inputFiles;
  /// A folder holding NAME.npy for parameters not given above.
  std::string inputDir;
  /// Seed of the uniform [-0.5, 0.5) initializer of float parameters
  /// without file (integer ones are zeros).
  uint64_t seed = 0;
  /// Where to write result<i>.npy, if anywhere.
  std::string outputDir;
  /// Where to write the measurements as JSON, if anywhere.
  std::string statsJson;
  /// Where to write the last call's allocations and frees as a
  /// chrome://tracing counter of live bytes, if anywhere.
  std::string memoryTrace;
  /// An input file of another float dtype than its float parameter's is
  /// converted (rounded to nearest) instead of rejected, and one of another
  /// integer dtype than its integer parameter's too, when every value fits.
  bool convertInputs = false;
  /// How many calls to time.
  unsigned repeat = 1;
  /// The threads of GEMMs and loop nests (tad_rt_set_num_threads); 0 leaves
  /// the default (TAD_NUM_THREADS, else OpenBLAS's).
  unsigned threads = 0;
  /// The function is GPU code (tadc --target=cuda): the runner starts the
  /// CUDA runtime and copies the inputs to memory the GPU can read.
  bool cuda = false;
};

using PackedFunction = void (*)(void **args);

/// Loads the inputs of `entry`, calls `function` `repeat` times, prints a
/// summary of the results and measurements to `out`, and writes the files
/// that `options` asks for. Returns false with `error` set on failure.
bool runEntry(const EntrySpec &entry, PackedFunction function,
              const RunOptions &options, std::ostream &out,
              std::string &error);

/// Parses the command line of a compiled executable:
///   [--inputs DIR] [--input NAME=FILE.npy]... [--output-dir DIR]
///   [--seed N] [--repeat N] [--threads N] [--stats-json FILE]
///   [--memory-trace FILE]
/// Returns false with `error` set on a malformed command line.
bool parseRunArguments(int argc, char **argv, RunOptions &options,
                       std::string &error);

} // namespace tad::rt

#endif // TAD_RUNTIME_RUNNER_H
