//===- CNames.h - the C names of a compiled library -------------*- C++ -*-===//
//
// `tadc --emit=lib` exports each function under its .tad name and writes a
// header that names its parameters and their shapes. A .tad name is not
// always a good C name: a keyword does not compile, and a name that the C
// library or tad's runtime defines replaces theirs in every program linked
// with the library.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_CNAMES_H
#define TAD_DRIVER_CNAMES_H

#include "tad/runtime/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace tad::driver {

/// Whether `name` is a keyword of C or C++ (the header is for both).
bool isCKeyword(llvm::StringRef name);

/// The C identifiers of an entry's parameters, then of its results: a
/// record's leaf `p.l1.w` is `p_l1_w`, a keyword gets `_` appended, and a
/// name that an earlier one took that way gets `_` appended.
std::vector<std::string> getCNames(const rt::EntrySpec &entry);

/// Checks that each entry's name can be exported from a C library: not a
/// keyword, not a name reserved for tad's runtime and glue (`tad_...`,
/// `_mlir_...`, `mgpu...`, `memrefCopy`, `__...`, `main`), not a function or
/// variable of the C library or libm, and not a name the header gives
/// another entry's shapes (`f_x_shape`). Each failure is an error at the
/// function's source location (`module` is the tad-level module the
/// entries were read from).
mlir::LogicalResult checkLibraryNames(mlir::ModuleOp module,
                                      llvm::ArrayRef<rt::EntrySpec> entries);

} // namespace tad::driver

#endif // TAD_DRIVER_CNAMES_H
