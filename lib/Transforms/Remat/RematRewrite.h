//===- RematRewrite.h - a function's body in schedule order -----*- C++ -*-===//
//
// The rewrite of the remat pass: a schedule of the remat graph (RematGraph.h)
// becomes the order of the body's ops. The first compute of a node moves its
// ops to the end of the body, in schedule order; a later compute clones
// them there, reading the latest instance of each input. Frees need no IR:
// tad-plan-buffers frees each buffer after its last use.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_REMATREWRITE_H
#define TAD_LIB_TRANSFORMS_REMAT_REMATREWRITE_H

#include "RematGraph.h"
#include "tad/Remat/Graph.h"

#include <vector>

namespace tad {

/// Moves or clones the ops of each compute event to the end of `body` (a
/// function's or a loop's), before its terminator.
void applySchedule(mlir::Block &body, const RematProblem &problem,
                   const std::vector<remat::Event> &schedule);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_REMATREWRITE_H
