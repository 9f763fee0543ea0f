//===- Layout.h - where tadc finds the runtime and the library --*- C++ -*-===//
//
// tadc links the runtime into the libraries and executables it writes,
// loads the MPI runtime into its JIT, and imports tad's standard library.
// Built, it finds them in the build tree and the sources (Config.h); run
// from an installation (`make install`), it finds them beside itself:
// PREFIX/bin/tadc, PREFIX/lib/libtad_runtime*.{a,so}, PREFIX/include/tad/
// runtime/*.h and PREFIX/share/tad/stdlib, so that the build tree can go.
// The environment variable of each field's name overrides it.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_LAYOUT_H
#define TAD_DRIVER_LAYOUT_H

#include <string>

namespace tad::driver {

struct Layout {
  std::string runtimeStaticLibrary;     // $TAD_RUNTIME_STATIC_LIBRARY
  std::string runtimeCudaStaticLibrary; // $TAD_RUNTIME_CUDA_STATIC_LIBRARY
  std::string runtimeIncludeDir;        // $TAD_RUNTIME_INCLUDE_DIR
  std::string runtimeMpiStaticLibrary;  // $TAD_RUNTIME_MPI_STATIC_LIBRARY
  std::string runtimeMpiSharedLibrary;  // $TAD_RUNTIME_MPI_SHARED_LIBRARY
  std::string stdlibDir;                // $TAD_STDLIB_DIR
  /// Whether tadc runs from an installation, not from its build tree.
  bool installed = false;
};

/// This process's layout, found once.
const Layout &getLayout();

} // namespace tad::driver

#endif // TAD_DRIVER_LAYOUT_H
