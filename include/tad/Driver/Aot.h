//===- Aot.h - objects, shared libraries and executables --------*- C++ -*-===//

#ifndef TAD_DRIVER_AOT_H
#define TAD_DRIVER_AOT_H

#include "tad/runtime/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tad::driver {

/// What --emit=lib and --emit=exe outputs are built from besides the
/// module: the static runtime libraries (of the CPU and of --target=cuda)
/// and the folder of the runtime's headers, which the generated glue
/// includes. Set by CMake (Config.h); $TAD_RUNTIME_STATIC_LIBRARY,
/// $TAD_RUNTIME_CUDA_STATIC_LIBRARY and $TAD_RUNTIME_INCLUDE_DIR override
/// each. `tadc --version` prints them.
struct RuntimeFiles {
  std::string staticLibrary, cudaStaticLibrary, includeDir;
};
RuntimeFiles getRuntimeFiles();

/// Whether `module` (after lowering) has collectives: it calls the MPI
/// runtime's initializer, and links the MPI runtime and library.
bool usesCollectives(mlir::ModuleOp module);

/// Success where this build has MPI; else the error that a program with
/// collectives gets.
llvm::Error checkMpiBuild();

/// Compiles `module` (LLVM dialect) for the host CPU into an object file:
/// emitObjectFiles' parts, linked into one object whose symbols are those
/// of the module (what the parts share is local).
llvm::Error emitObjectFile(mlir::ModuleOp module, llvm::StringRef path,
                           unsigned threads);

/// The same code in one or more object files named `prefix`N.o, generated
/// on `threads` threads, one part of the module each (its functions
/// balanced by their instructions; internal symbols become hidden ones):
/// for a library or an executable, which links them all. `threads` 0 is
/// the machine's cores (at most 8) for a module of 4000 instructions or
/// more, else one. Returns the files' paths.
llvm::Expected<std::vector<std::string>>
emitObjectFiles(mlir::ModuleOp module, llvm::StringRef prefix,
                unsigned threads);

/// The C header of a shared library exporting `entries`. With `cuda`, the
/// functions are GPU code: they return 1 when no GPU can run them. With
/// `collectives`, the library runs as one of the processes of an MPI run,
/// and the header declares what tells which.
std::string generateHeader(llvm::ArrayRef<rt::EntrySpec> entries,
                           llvm::StringRef guard, llvm::StringRef source,
                           bool cuda = false, bool collectives = false);
/// The C wrappers behind that header (with `cuda`, they start the CUDA
/// runtime and copy inputs to memory the GPU reads).
std::string generateLibraryWrappers(llvm::ArrayRef<rt::EntrySpec> entries,
                                    llvm::StringRef header, bool cuda = false);
/// The main() of an executable running `entry` on .npy files.
/// With `collectives`, main initializes MPI first (tad_rt_mpi_init).
std::string generateMain(const rt::EntrySpec &entry, bool cuda = false,
                         bool collectives = false);

/// Writes `output` (a shared library) and its header (`output` with the
/// extension .h), exporting `entries` with a plain C ABI. Its code is
/// generated on `threads` threads (emitObjectFiles; 0: by its size).
llvm::Error linkSharedLibrary(mlir::ModuleOp module,
                              llvm::ArrayRef<rt::EntrySpec> entries,
                              llvm::StringRef output, llvm::StringRef source,
                              bool cuda = false, unsigned threads = 0);

/// Writes `output`, an executable that runs `entry` on .npy files (its
/// code generated as linkSharedLibrary's).
llvm::Error linkExecutable(mlir::ModuleOp module, const rt::EntrySpec &entry,
                           llvm::StringRef output, bool cuda = false,
                           unsigned threads = 0);

} // namespace tad::driver

#endif // TAD_DRIVER_AOT_H
