//===- ExpandBf16.cpp - bf16 conversions as integer arithmetic ------------===//
//
// The C runtime of Debian 12 has no __truncsfbf2, which LLVM would call for
// an f32 to bf16 truncation on CPUs without AVX-512 BF16. Upstream's
// arith-expand{include-bf16} rewrites these conversions, but also every
// maximumf and minimumf into compares and selects, which LLVM's loop
// vectorizer does not recognize as a max reduction (as `llvm.maximum` it
// does): a row max ran at 2.2 ns an element, 35 times an add.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tad {
#define GEN_PASS_DEF_EXPANDBF16
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct ExpandBf16 : tad::impl::ExpandBf16Base<ExpandBf16> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
