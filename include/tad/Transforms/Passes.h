//===- Passes.h - tad transformation passes ---------------------*- C++ -*-===//

#ifndef TAD_TRANSFORMS_PASSES_H
#define TAD_TRANSFORMS_PASSES_H

#include "dialects/tad/TadDialect.h"
#include "tad/Transforms/Options.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace tad {

#define GEN_PASS_DECL
#include "tad/Transforms/Passes.h.inc"

/// The name that tad-prefix-function-names gives `function`, by which
/// compiled outputs call it (`__tad_f`).
std::string getInternalName(llvm::StringRef function);

#define GEN_PASS_REGISTRATION
#include "tad/Transforms/Passes.h.inc"

} // namespace tad

#endif // TAD_TRANSFORMS_PASSES_H
