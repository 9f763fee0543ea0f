//===- DuplicateBroadcasts.cpp - a broadcast's copy for each reader -------===//
//
// A broadcast read by several elementwise ops would be a buffer of its
// full shape, since a producer fuses into its one reader only
// (RematGraph.h). Cloned before each reader, it fuses into every one: a
// layer norm's gradient reads its rows' reciprocal deviations and its gain
// through broadcasts, which held two buffers of the input's size.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_DUPLICATEBROADCASTS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

/// Whether `user`'s lowering reads the broadcast in the one loop that
/// fuses it (an elementwise op, a reduction), in the broadcast's block.
static bool fusesBroadcast(Operation *user, Block *block) {
  auto model = dyn_cast<MemoryModelOpInterface>(user);
  return user->getBlock() == block && model && model.absorbsProducers();
}

/// Whether `value` views another buffer (a reshape, a slice, a row).
static bool isView(Value value) {
  auto model = dyn_cast_or_null<MemoryModelOpInterface>(value.getDefiningOp());
  return model && model.getViewedOperand().has_value();
}

/// The most ops a broadcast is copied with.
static constexpr unsigned kMaxCopiedOps = 8;

/// `broadcast` and the elementwise ops that compute its input for it alone
/// (a row's reciprocal deviation from its variance), which fuse into it,
/// in block order; empty if they are more than kMaxCopiedOps. Copied with
/// the broadcast, they fuse into each reader: copied alone, its input
/// would be a buffer and a loop of its own.
static SmallVector<Operation *> fusedGroup(BroadcastOp broadcast) {
  SetVector<Operation *> group;
  group.insert(broadcast);
  for (unsigned i = 0; i < group.size(); ++i) {
    for (Value operand : group[i]->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto model = dyn_cast_or_null<MemoryModelOpInterface>(producer);
      if (!producer || group.contains(producer) ||
          producer->getBlock() != broadcast->getBlock() || !model ||
          !model.isFusableLoop() || !isMemoryEffectFree(producer) ||
          !llvm::all_of(producer->getUsers(),
                        [&](Operation *user) { return group.contains(user); }))
        continue;
      group.insert(producer);
    }
  }
  if (group.size() > kMaxCopiedOps)
    return {};
  SmallVector<Operation *> ordered(group.begin(), group.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

unsigned tad::duplicateBroadcasts(Operation *root) {
  SmallVector<BroadcastOp> broadcasts;
  root->walk([&](BroadcastOp op) { broadcasts.push_back(op); });
  OpBuilder builder(root->getContext());
  unsigned copied = 0;
  for (BroadcastOp op : broadcasts) {
    if (op->hasOneUse() || isView(op.getOperand()))
      continue;
    SmallVector<Operation *> group = fusedGroup(op);
    if (group.empty())
      continue;
    // The readers that fuse it, each once (a reader of both operands from
    // one broadcast takes one copy); the first keeps the original when no
    // other reader needs it.
    SetVector<Operation *> readers;
    bool sharedElsewhere = false;
    for (Operation *user : op->getUsers()) {
      if (fusesBroadcast(user, op->getBlock()))
        readers.insert(user);
      else
        sharedElsewhere = true;
    }
    SmallVector<Operation *> ordered = readers.takeVector();
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (auto [i, reader] : llvm::enumerate(ordered)) {
      if (i == 0 && !sharedElsewhere)
        continue;
      builder.setInsertionPoint(reader);
      IRMapping copies;
      for (Operation *member : group)
        builder.clone(*member, copies);
      reader->replaceUsesOfWith(op.getResult(), copies.lookup(op.getResult()));
      ++copied;
    }
  }
  return copied;
}

namespace {

struct DuplicateBroadcasts
    : tad::impl::DuplicateBroadcastsBase<DuplicateBroadcasts> {
  void runOnOperation() override {
    numCopies += duplicateBroadcasts(getOperation());
  }
};

} // namespace
