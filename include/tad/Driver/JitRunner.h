//===- JitRunner.h - tadc run: JIT-compile and call an entry ----*- C++ -*-===//

#ifndef TAD_DRIVER_JITRUNNER_H
#define TAD_DRIVER_JITRUNNER_H

#include "tad/Driver/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace tad::driver {

struct RunOptions {
  /// .npy files by parameter name (--input NAME=FILE).
  std::map<std::string, std::string> inputFiles;
  /// A folder holding NAME.npy for parameters not given above (--inputs).
  std::string inputDir;
  /// Seed of the initializer of the parameters that have no file.
  uint64_t seed = 0;
  /// Where to write result<i>.npy (--output-dir), if anywhere.
  std::string outputDir;
  /// Where to write the measurements as JSON (--stats-json), if anywhere.
  std::string statsJson;
  /// How many calls to time (--repeat).
  unsigned repeat = 1;
  /// BLAS threads (--threads); 0 leaves OpenBLAS's default.
  unsigned threads = 0;
};

/// Loads or initializes the inputs of `signature`, JIT-compiles `module`
/// (already lowered to the LLVM dialect), calls the entry `repeat` times,
/// and reports results and measurements to `os`.
llvm::Error runEntry(mlir::ModuleOp module, const Signature &signature,
                     const RunOptions &options, llvm::raw_ostream &os);

} // namespace tad::driver

#endif // TAD_DRIVER_JITRUNNER_H
