//===- Layout.cpp - where tadc finds the runtime and the library ----------===//

#include "tad/Driver/Layout.h"

#include "tad/Driver/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace tad::driver;

static std::string getenvOr(const char *name, std::string fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

/// The installation prefix of the running executable (PREFIX of
/// PREFIX/bin/tadc) when it runs installed: the standard library lies at
/// PREFIX/share/tad/stdlib, which a build tree does not have.
static std::string getInstalledPrefix() {
  // Any address in this binary names it (there is no argv[0] here).
  static int anchor;
  std::string executable =
      llvm::sys::fs::getMainExecutable(nullptr, (void *)&anchor);
  if (executable.empty())
    return "";
  llvm::SmallString<256> prefix(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(executable)));
  llvm::SmallString<256> stdlib(prefix);
  llvm::sys::path::append(stdlib, "share", "tad", "stdlib");
  return llvm::sys::fs::is_directory(stdlib) ? std::string(prefix) : "";
}

static Layout findLayout() {
  Layout layout{TAD_RUNTIME_STATIC_LIBRARY, TAD_RUNTIME_CUDA_STATIC_LIBRARY,
                TAD_RUNTIME_INCLUDE_DIR,    TAD_RUNTIME_MPI_STATIC_LIBRARY,
                TAD_RUNTIME_MPI_SHARED_LIBRARY, TAD_STDLIB_DIR};
  std::string prefix = getInstalledPrefix();
  if (!prefix.empty()) {
    auto at = [&](std::initializer_list<llvm::StringRef> parts) {
      llvm::SmallString<256> path(prefix);
      for (llvm::StringRef part : parts)
        llvm::sys::path::append(path, part);
      return std::string(path);
    };
    // The file names CMake gives the libraries (runtime/CMakeLists.txt).
    layout = {at({"lib", "libtad_runtime_static.a"}),
              at({"lib", "libtad_runtime_cuda_static.a"}),
              at({"include"}),
              at({"lib", "libtad_runtime_mpi_static.a"}),
              at({"lib", "libtad_runtime_mpi.so"}),
              at({"share", "tad", "stdlib"})};
    layout.installed = true;
  }
  layout.runtimeStaticLibrary =
      getenvOr("TAD_RUNTIME_STATIC_LIBRARY", layout.runtimeStaticLibrary);
  layout.runtimeCudaStaticLibrary = getenvOr(
      "TAD_RUNTIME_CUDA_STATIC_LIBRARY", layout.runtimeCudaStaticLibrary);
  layout.runtimeIncludeDir =
      getenvOr("TAD_RUNTIME_INCLUDE_DIR", layout.runtimeIncludeDir);
  layout.runtimeMpiStaticLibrary = getenvOr("TAD_RUNTIME_MPI_STATIC_LIBRARY",
                                            layout.runtimeMpiStaticLibrary);
  layout.runtimeMpiSharedLibrary = getenvOr("TAD_RUNTIME_MPI_SHARED_LIBRARY",
                                            layout.runtimeMpiSharedLibrary);
  layout.stdlibDir = getenvOr("TAD_STDLIB_DIR", layout.stdlibDir);
  return layout;
}

const Layout &tad::driver::getLayout() {
  static const Layout layout = findLayout();
  return layout;
}
