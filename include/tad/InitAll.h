//===- InitAll.h - everything tad's tools register --------------*- C++ -*-===//
//
// The one registration point shared by tad-opt and tadc, so that both tools
// accept the same dialects and passes.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_INITALL_H
#define TAD_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tad {

/// Adds the tad dialect and the upstream dialects (with their interface
/// extensions) that tad's pipeline produces or consumes.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers tad's passes and the upstream passes its pipeline uses, so that
/// they are available to `-pass-pipeline` and on the command line.
void registerAllPasses();

} // namespace tad

#endif // TAD_INITALL_H
