//===- MatmulToRuntime.cpp - linalg matmuls on buffers to runtime calls ---===//
//
// GEMM runs in the runtime's BLAS call rather than in generated loops: on
// this machine that reaches OpenBLAS speed, where naive generated loops are
// an order of magnitude slower (docs/performance.md has the measurement).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_CONVERTMATMULTORUNTIME
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// A memref type of `rank` with dynamic sizes, strides and offset: every
/// operand converts to it with memref.cast, so one runtime function serves
/// every shape.
MemRefType getFullyDynamic(MLIRContext *context, int64_t rank,
                           Type elementType) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(context, ShapedType::kDynamic, strides);
  return MemRefType::get(shape, elementType, layout);
}

/// Declares (once) `name` taking three memrefs of `type`, with a C
/// interface: the runtime defines `_mlir_ciface_<name>`.
func::FuncOp getOrDeclare(ModuleOp module, StringRef name, MemRefType type) {
  func::FuncOp fn = tad::getOrDeclareRuntimeFunction(
      module, name,
      FunctionType::get(module.getContext(), {type, type, type}, {}));
  fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
              UnitAttr::get(module.getContext()));
  return fn;
}

/// The `linalg.fill` of zeros that last wrote `op`'s output before it, if
/// nothing with a memory effect comes between them: bufferization gives
/// each matmul its own zero-filled output (linalg's C += A B from
/// `tensor.empty` filled with 0), and a GEMM with beta = 0 writes C without
/// reading it. On the CPU this only moves the zeroing: OpenBLAS memsets C
/// itself for beta = 0 (perf, docs/performance.md). With cuBLAS it saves the
/// fill's kernel launch.
linalg::FillOp getZeroFillBefore(linalg::LinalgOp op) {
  Value out = op.getDpsInits()[0];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() && fill.getOutputs()[0] == out &&
          matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return fill;
      return {};
    }
    // A view, a constant or index arithmetic between them is fine; anything
    // that may read or write memory could see the zeros.
    if (!isMemoryEffectFree(prev))
      return {};
  }
  return {};
}

struct ConvertMatmulToRuntimePass
    : tad::impl::ConvertMatmulToRuntimeBase<ConvertMatmulToRuntimePass> {
  using ConvertMatmulToRuntimeBase::ConvertMatmulToRuntimeBase;

  /// Declares (once) PREFIXblas_available() -> i32: nonzero where the
  /// runtime found the library its GEMMs call.
  func::FuncOp getOrDeclareAvailable(ModuleOp module) {
    MLIRContext *context = module.getContext();
    return tad::getOrDeclareRuntimeFunction(
        module, prefix + "blas_available",
        FunctionType::get(context, {}, {IntegerType::get(context, 32)}));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Contractions of any operand layout: linalg.matmul and batch_matmul,
    // and the generics that tad-fold-transposes-into-matmuls makes.
    SmallVector<std::pair<linalg::LinalgOp, tad::ContractionLayout>> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (std::optional<tad::ContractionLayout> layout =
              tad::matchContraction(op))
        matmuls.push_back({op, *layout});
    });
    for (auto &[op, layout] : matmuls) {
      auto outType = cast<MemRefType>(op.getDpsInits()[0].getType());
      Type element = outType.getElementType();
      if (!(element.isF32() || element.isF64()))
        continue;
      int64_t rank = outType.getRank();
      // `..._assign_...` computes C = A B (beta = 0) in place of the fill.
      linalg::FillOp fill = getZeroFillBefore(op);
      std::string name = prefix + (rank == 2 ? "matmul_" : "batch_matmul_") +
                         (fill ? "assign_" : "") +
                         std::string(element.isF32() ? "f32" : "f64");
      MemRefType dynamic = getFullyDynamic(&getContext(), rank, element);
      func::FuncOp callee = getOrDeclare(module, name, dynamic);
      OpBuilder b(op);
      if (kernelFallback) {
        // if (PREFIXblas_available()) call; else the matmul (and its fill)
        // as they were, which the rest of the pipeline lowers as ever.
        Location loc = op.getLoc();
        Value available =
            func::CallOp::create(b, loc, getOrDeclareAvailable(module),
                                 ValueRange())
                .getResult(0);
        Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
        Value found = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            available, zero);
        auto branch = scf::IfOp::create(b, loc, found, /*withElseRegion=*/true);
        Operation *elseEnd = branch.elseBlock()->getTerminator();
        if (fill)
          fill->moveBefore(elseEnd);
        op->moveBefore(elseEnd);
        b.setInsertionPoint(branch.thenBlock()->getTerminator());
        fill = {}; // kept on the fallback's side
      }
      // Each operand as a view in the order [b,] rows, columns: the runtime
      // hands a view with a unit stride in either of the last two to BLAS
      // (transposed where it is the rows'), and runs any other in a loop.
      auto view = [&](Value operand, ArrayRef<int64_t> permutation) -> Value {
        if (!llvm::equal(permutation, llvm::seq<int64_t>(0, rank)))
          operand = memref::TransposeOp::create(
              b, op.getLoc(), operand,
              AffineMapAttr::get(
                  AffineMap::getPermutationMap(permutation, &getContext())));
        return memref::CastOp::create(b, op.getLoc(), dynamic, operand);
      };
      SmallVector<Value> args{
          view(op.getDpsInputs()[0], layout.permutations[0]),
          view(op.getDpsInputs()[1], layout.permutations[1]),
          view(op.getDpsInits()[0], layout.permutations[2])};
      func::CallOp::create(b, op.getLoc(), callee, args);
      if (kernelFallback)
        continue;
      op->erase();
      if (fill)
        fill->erase();
    }
  }
};

} // namespace
