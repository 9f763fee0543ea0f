//===- ForgetHostPeaks.cpp - drop the kernel mapping's planned peaks ------===//
//
// The steps of the kernel mapping that join kernels record each host
// block's planned peak on the block's parent op (HostPeak.h), so that a
// later step keeps the plan's peak rather than the lower one an earlier
// step left. Once the mapping is done the records go.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tad {
#define GEN_PASS_DEF_FORGETHOSTPEAKS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct ForgetHostPeaks : tad::impl::ForgetHostPeaksBase<ForgetHostPeaks> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      op->removeAttr(tad::TadDialect::kHostPeaksAttrName);
    });
  }
};

} // namespace
