//===- RematGraph.h - the remat problem of a function -----------*- C++ -*-===//
//
// Builds the solver's graph (lib/Remat) from the body of a joint function:
// one node per group of ops that the CPU lowering turns into one buffer.
// Its byte sizes follow docs/memory.md, so that the solver's peak is close
// to (and mostly at least) the peak the runtime's allocator measures. What
// each tad op's lowering does comes from the op's MemoryModelOpInterface
// (test/Remat/op-memory.mlir checks it against the lowering); the rules:
//
//  - an elementwise op (and broadcast, transpose, cast) whose users all
//    belong to one group of elementwise ops or reductions is fused into it
//    by linalg-fuse-elementwise-ops and has no buffer: it joins that group,
//    and is recomputed with it (a broadcast read by several groups has a
//    copy for each already: tad-duplicate-broadcasts);
//  - an elementwise group whose input dies in it writes its result into
//    that input's buffer (tad-reuse-operand-buffers): the input joins the
//    group (in a nested block, which runs as written, an input with other
//    ops between it and the group keeps its node, and the group views it);
//    a value whose only reader is an in-place row update is written into
//    that row (eliminate-empty-tensors) and has no bytes;
//  - reshape, take and slice are views: no bytes of their own, and their
//    source stays alive as long as they are read; so is an update or
//    insert_slice that bufferization does in place (its destination is a
//    loop's carried value or a buffer of the block, read by nothing else);
//  - a sum of f32 (f16, bf16) accumulates into a buffer of f64 (f32) that
//    lives while it is computed: transient bytes;
//  - constants are globals, not buffers, and are not nodes; the function's
//    arguments belong to the caller and are not counted;
//  - an op with regions (a loop, a branch, a checkpoint) or a call is one
//    node, whose transient bytes are the peak of its body or callee; its
//    results are freed together after the last reader of any (the
//    lowering frees each after its own, so the model counts more there),
//    but for a loop's result that nothing reads, freed as the loop ends;
//  - a branch counts the results that some side allocates; a loop's body
//    starts with the previous carried values it replaces, each freed after
//    its last reader there, as tad-plan-buffers frees them; a carried value
//    updated in place is the buffer of its initial value: a value of the
//    block then lives until the loop result's last reader, and the copy of
//    a constant (a tape) is a node of its own, whose group is the
//    constant, computed just before the loop (one node for the loops that
//    fill one tad.empty in turn, which share its buffer);
//  - a yield counts the copies tad-plan-buffers makes of what the block
//    does not own outright.
//
// The model guides the solver; the remat pass checks every schedule it
// accepts against the buffer plan of the lowered function (RematPass.cpp).
//
// The returned values are read by a final sink node, so that they stay
// resident to the end; the sink's own bytes are the copies that returning
// an argument or a constant from a function makes.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_REMATGRAPH_H
#define TAD_LIB_TRANSFORMS_REMAT_REMATGRAPH_H

#include "dialects/tad/TadOps.h"
#include "tad/Remat/Graph.h"
#include "tad/Transforms/OpCosts.h"
#include "tad/Transforms/Remat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace tad {

struct RematProblem {
  remat::Graph graph;
  /// The ops of each node in block order; the last one is the root, whose
  /// results the other nodes read. A group that is one constant is the
  /// copy of it that a loop updates in place: the rewrite leaves the
  /// constant where it is.
  std::vector<llvm::SmallVector<mlir::Operation *>> groups;
  /// For view nodes, the node whose buffer they view; -1 otherwise.
  std::vector<int> viewOf;
  /// The node that reads the returned values (the last node).
  int sink = -1;
  /// The node of each value that other nodes read.
  llvm::DenseMap<mlir::Value, int> nodeOf;
  /// Why a node is not recomputable (empty when it is).
  std::vector<std::string> pinnedBecause;
  /// Constant-like ops, which are not nodes.
  llvm::SmallVector<mlir::Operation *> constants;
  /// Updates in place of a loop body's carried value that overwrite what
  /// other nodes read: the rewrite places them last, before the yield, so
  /// that every instance of those readers runs before them.
  llvm::SmallVector<int> lastUpdates;
  /// What computing each node again costs, by the model: its cost, but for
  /// a group of elementwise ops with one reader outside the forward sweep
  /// whose loop fuses it: computed again, it runs in that loop, and costs
  /// its arithmetic (getFusedComputeCost). The solvers schedule with these
  /// (getSolverGraph); the report prices the rewritten function itself.
  std::vector<double> recomputeCost;
  /// Each op's part of its node's cost: a fused producer's arithmetic,
  /// another op's estimate (the node's cost is their sum).
  llvm::DenseMap<mlir::Operation *, double> opCosts;
  /// For the problem of a schedule's rewrite: what all the instances of
  /// each node of the problem it was rewritten from cost in it, as its
  /// groups fuse them (a recomputed elementwise value may fuse into the
  /// loop that reads it, and so may the value's first instance once the
  /// reader it shared has its own). The report prices each recomputed
  /// value so, and these add up to the rewrite's cost. Empty elsewhere.
  std::vector<double> instanceCosts;
};

/// `problem.graph` with each node's cost its recomputeCost: a node is
/// computed at least once in every schedule, so schedules differ by what
/// they compute again, priced as it will run.
remat::Graph getSolverGraph(const RematProblem &problem);

struct RematGraphOptions {
  /// Matmul results are never recomputed.
  bool saveMatmuls = false;
  /// Where callees are looked up when the function is not in a module (a
  /// detached copy being rewritten).
  mlir::Operation *symbolTable = nullptr;
};

/// The problem of `func`'s body, which must be a single block.
RematProblem buildRematProblem(mlir::func::FuncOp func,
                               const RematGraphOptions &options);

/// The problem of a block; its terminator is the sink. Ops with regions
/// and calls get the peak of their body or callee as transient bytes;
/// `depth` bounds that recursion.
RematProblem buildRematProblem(mlir::Block &block,
                               const RematGraphOptions &options, int depth = 0);

/// The switch directly in `loop`'s body that records how often the loop
/// takes each of its cases (tad.case_counts, which AD puts on a revolve
/// dispatcher and the dialect verifies), with those counts, or null.
mlir::scf::IndexSwitchOp caseCountedSwitch(mlir::scf::ForOp loop,
                                           mlir::DenseI64ArrayAttr &counts);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_REMATGRAPH_H
