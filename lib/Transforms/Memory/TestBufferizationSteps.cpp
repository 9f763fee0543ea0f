//===- TestBufferizationSteps.cpp - the remat scheduler's lowering --------===//
//
// Runs tad::BufferizationSteps on the module, so that a test can compare
// its output with the tad-bufferize pipeline's.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/BufferizationSteps.h"
#include "tad/Transforms/Passes.h"

namespace tad {
#define GEN_PASS_DEF_TESTBUFFERIZATIONSTEPS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct TestBufferizationSteps
    : tad::impl::TestBufferizationStepsBase<TestBufferizationSteps> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    tad::BufferizationSteps::getDependentDialects(registry);
  }

  // Built once the dialects are loaded: the canonicalizer's patterns are
  // those of the loaded dialects.
  LogicalResult initialize(MLIRContext *context) override {
    steps = std::make_shared<tad::BufferizationSteps>(context, collectives);
    return success();
  }

  void runOnOperation() override {
    if (failed(steps->run(getOperation())))
      signalPassFailure();
  }

  std::shared_ptr<const tad::BufferizationSteps> steps;
};

} // namespace
