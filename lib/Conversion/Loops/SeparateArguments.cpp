//===- SeparateArguments.cpp - a function's arguments in a block of their own //
//
// The conversion to the LLVM dialect replaces each memref argument of a
// function by its descriptor's values, through a cast that it builds when
// it commits the replacement. Before it replaces the argument's uses in the
// cast's block, it asks whether each use comes after the cast; the new cast
// has invalidated the block's operation order, so each such question
// numbers the whole block again. With an argument per field of a record,
// that is quadratic: the identity on a 5,000-field record spent 25.6 s in
// `convert-to-llvm` (`tadc --mlir-timing`), nearly all of it in
// `Block::recomputeOpOrder`.
//
// A function of many arguments gets an entry block that only branches to
// its body: the arguments' uses are then in another block than the casts,
// which the conversion replaces without asking. LLVM merges the two blocks
// again.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tad {
#define GEN_PASS_DEF_SEPARATEARGUMENTS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

/// Arguments from which a function's entry block is split: below, renumbering
/// the block costs less than the branch.
static constexpr unsigned kManyArguments = 64;

namespace {
struct SeparateArguments : tad::impl::SeparateArgumentsBase<SeparateArguments> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || function.getNumArguments() < kManyArguments)
      return;
    Block &entry = function.front();
    Block *body = entry.splitBlock(entry.begin());
    OpBuilder b = OpBuilder::atBlockEnd(&entry);
    cf::BranchOp::create(b, function.getLoc(), body);
  }
};
} // namespace
