//===- CheckpointCalls.cpp - checkpoint every call of named functions -----===//
//
// `@checkpoint fn f` in a .tad program makes every call of f a checkpoint
// region (the frontend wraps each call). This pass does the same from the
// command line (`tadc --checkpoint-calls=f,g`), for programs whose source
// should not change, or for .mlir input: each `func.call @f` becomes
//
//   %r = tad.checkpoint(%args) {
//   ^bb0(%a...):
//     %r' = func.call @f(%a...)
//     tad.yield %r'
//   }
//
// so AD keeps only the call's inputs and recomputes its body in the
// backward sweep (docs/autodiff.md, docs/remat.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace tad {
#define GEN_PASS_DEF_CHECKPOINTCALLS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Whether `call` is already the whole body of a checkpoint region (as the
/// frontend makes for a @checkpoint function): wrapping it again would
/// change nothing but the IR's size.
bool isCheckpointed(func::CallOp call) {
  auto region = dyn_cast<tad::CheckpointOp>(call->getParentOp());
  return region && &region.getBody().front().front() == call.getOperation();
}

void wrap(func::CallOp call) {
  OpBuilder b(call);
  Location loc = call.getLoc();
  auto region = tad::CheckpointOp::create(b, loc, call.getResultTypes(),
                                          call.getOperands());
  Block *body = b.createBlock(&region.getBody());
  for (Value arg : call.getOperands())
    body->addArgument(arg.getType(), loc);
  b.setInsertionPointToStart(body);
  auto inner =
      func::CallOp::create(b, loc, call.getCalleeAttr(), call.getResultTypes(),
                           body->getArguments());
  inner->setDiscardableAttrs(call->getDiscardableAttrDictionary());
  tad::YieldOp::create(b, loc, inner.getResults());
  call.replaceAllUsesWith(region.getResults());
  call.erase();
}

struct CheckpointCalls
    : public tad::impl::CheckpointCallsBase<CheckpointCalls> {
  using CheckpointCallsBase::CheckpointCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> names;
    std::string bodies;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isDeclaration())
        bodies += (bodies.empty() ? "" : ", ") + f.getName().str();
    for (const std::string &name : functions) {
      auto fn = module.lookupSymbol<func::FuncOp>(name);
      if (!fn) {
        module.emitError() << "checkpoint-calls: no function '" << name
                           << "'; the functions with bodies are: " << bodies;
        return signalPassFailure();
      }
      if (fn.isDeclaration()) {
        module.emitError() << "checkpoint-calls: '" << name
                           << "' has no body to recompute (a derivative, "
                              "whose body AD writes, or an external "
                              "function); the functions with bodies are: "
                           << bodies;
        return signalPassFailure();
      }
      names.insert(name);
    }
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (names.contains(call.getCallee()) && !isCheckpointed(call))
        calls.push_back(call);
    });
    for (func::CallOp call : calls)
      wrap(call);
    numWrapped += calls.size();
  }
};

} // namespace
