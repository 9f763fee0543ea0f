//===- DataParallel.cpp - average the gradients across processes ----------===//
//
// Data parallelism after AD: each process differentiates its shard of the
// batch, and every gradient that a derivative returns is averaged across
// the processes (tad.all_reduce mean), so the program trains on the whole
// batch without a change to its source (docs/distributed.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

namespace tad {
#define GEN_PASS_DEF_DATAPARALLEL
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct DataParallel : tad::impl::DataParallelBase<DataParallel> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp fn) {
      auto request = fn->getAttrOfType<tad::DerivativeAttr>(
          tad::TadDialect::kDerivativeAttrName);
      if (!request || fn.isDeclaration() ||
          request.getKind() == tad::DerivativeKind::vjp)
        return;
      // A grad returns gradients only; a value_and_grad returns the
      // primal's results first, then one gradient per `wrt` parameter.
      unsigned results = fn.getNumResults();
      unsigned first = request.getKind() == tad::DerivativeKind::grad
                           ? 0
                           : results - request.getWrt().size();
      for (unsigned i = first; i < results; ++i) {
        Type element =
            cast<RankedTensorType>(fn.getResultTypes()[i]).getElementType();
        if (!element.isF32() && !element.isF64()) {
          fn.emitError() << "data-parallel training averages f32 and f64 "
                            "gradients only; gradient "
                         << i - first << " of @" << fn.getName() << " is "
                         << element;
          return signalPassFailure();
        }
      }
      fn.walk([&](func::ReturnOp ret) {
        OpBuilder b(ret);
        for (unsigned i = first; i < results; ++i) {
          Value gradient = ret.getOperand(i);
          ret.setOperand(i, tad::AllReduceOp::create(b, ret.getLoc(),
                                                     tad::ReduceKind::mean,
                                                     gradient));
        }
      });
    });
  }
};

} // namespace
