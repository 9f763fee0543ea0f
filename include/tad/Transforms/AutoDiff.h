//===- AutoDiff.h - reverse-mode AD of a module -----------------*- C++ -*-===//
//
// The tad-autodiff and tad-inline-rules passes as functions, for planners
// that differentiate copies of a module outside a pass pipeline
// (tad-choose-loop-snapshots).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_AUTODIFF_H
#define TAD_TRANSFORMS_AUTODIFF_H

#include "tad/Transforms/Passes.h"

namespace tad {

/// Gives every derivative declaration of `module` (tad.derivative) its
/// body, as tad-autodiff does (Passes.td), and returns how many it wrote;
/// failure after an error has been reported.
mlir::FailureOr<unsigned> differentiateModule(mlir::ModuleOp module,
                                              const AutoDiffOptions &options);

/// Inlines every call of a custom rule's forward or pullback, and the
/// calls of plain functions in what it inlines, as tad-inline-rules does
/// (Passes.td).
void inlineRuleCalls(mlir::ModuleOp module);

} // namespace tad

#endif // TAD_TRANSFORMS_AUTODIFF_H
