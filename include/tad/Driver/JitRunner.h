//===- JitRunner.h - tadc run: JIT-compile and call an entry ----*- C++ -*-===//

#ifndef TAD_DRIVER_JITRUNNER_H
#define TAD_DRIVER_JITRUNNER_H

#include "tad/runtime/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace tad::driver {

/// JIT-compiles `module` (lowered to the LLVM dialect) and runs `entry`
/// through tad::rt::runEntry, printing to standard output. With
/// `optimizedIR`, writes the LLVM IR it compiles, once optimized, there.
llvm::Error runEntry(mlir::ModuleOp module, const rt::EntrySpec &entry,
                     const rt::RunOptions &options,
                     llvm::StringRef optimizedIR = "");

} // namespace tad::driver

#endif // TAD_DRIVER_JITRUNNER_H
