//===- AllReduceToMpi.cpp - tad.all_reduce to the mpi dialect -------------===//
//
// A collective becomes MLIR's `mpi.allreduce` on buffers, here, before
// bufferization: the operand's buffer is read in place (`to_buffer
// read_only`, at any offset; a view that is not contiguous is first
// copied, which the memory model counts), the result is a fresh allocation that
// bufferization then owns
// (`to_tensor restrict writable`), and a mean divides that buffer by the
// number of processes in place (the runtime's count: MLIR 22 does not lower
// mpi.comm_size).
//
// Upstream's `shard.all_reduce` is not used: it is Pure (so passes may drop
// or merge a collective on their own), it needs a device grid that data
// parallelism has no use for, and ShardToMPI passes one buffer as both the
// send and the receive buffer of MPI_Allreduce, which MPI forbids without
// MPI_IN_PLACE.
//
// The runtime initializes MPI (tad_rt_mpi_init, runtime/lib/Mpi.cpp): the
// call before each collective returns at once after the first, and keeps
// programs without collectives free of MPI.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace tad;

/// Declares a function of the runtime in the module once.
static func::FuncOp getRuntimeFunction(Operation *op, OpBuilder &b,
                                       StringRef name, FunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// MPIToLLVM counts a buffer's elements by its first dimension: the
/// collective sees every buffer as one dimension.
static Value asVector(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  if (type.getRank() == 0) {
    MemRefLayoutAttrInterface layout;
    if (!type.getLayout().isIdentity())
      layout =
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1});
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get({1}, type.getElementType(), layout), buffer,
        ArrayRef<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

namespace {
struct AllReduceLowering : OpConversionPattern<AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
    // The result's buffer first: a copy of a view (below) is then made
    // while the view's source is alive, the order the memory model counts.
    Value receive = memref::AllocOp::create(rewriter, loc, bufferType);
    // A contiguous view (a row of a stacked tensor, a reshape) is read
    // where it is, at any offset; for another, bufferization copies the
    // elements into a buffer of this identity layout.
    MemRefType sendType = bufferType;
    if (hasContiguousBuffer(op.getOperand())) {
      SmallVector<int64_t> strides(type.getRank(), 1);
      for (int64_t d = type.getRank() - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * type.getDimSize(d + 1);
      sendType = MemRefType::get(type.getShape(), type.getElementType(),
                                 StridedLayoutAttr::get(rewriter.getContext(),
                                                        ShapedType::kDynamic,
                                                        strides));
    }
    Value send = bufferization::ToBufferOp::create(
        rewriter, loc, sendType, adaptor.getOperand(), /*read_only=*/true);

    func::CallOp::create(rewriter, loc,
                         getRuntimeFunction(op, rewriter, kMpiInitFunction,
                                            rewriter.getFunctionType({}, {})),
                         ValueRange{});
    auto commType = mpi::CommType::get(rewriter.getContext());
    Value comm = mpi::CommWorldOp::create(rewriter, loc, commType);
    // In this order (not as call arguments, whose order C++ leaves open).
    Value sendVector = asVector(rewriter, loc, send);
    Value receiveVector = asVector(rewriter, loc, receive);
    mpi::AllReduceOp::create(
        rewriter, loc, TypeRange{}, sendVector, receiveVector,
        mpi::MPI_ReductionOpEnumAttr::get(rewriter.getContext(),
                                          mpi::MPI_ReductionOpEnum::MPI_SUM),
        comm);
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, type, receive, /*restrict=*/true, /*writable=*/true);

    if (op.getKind() == ReduceKind::mean) {
      // MPIToLLVM (MLIR 22) has no lowering of mpi.comm_size: the count is
      // the one the runtime recorded when it started MPI.
      Type i32 = rewriter.getI32Type();
      Value count = func::CallOp::create(
                        rewriter, loc,
                        getRuntimeFunction(op, rewriter, "tad_rt_process_count",
                                           rewriter.getFunctionType({}, {i32})),
                        ValueRange{})
                        .getResult(0);
      Type element = type.getElementType();
      Value n = arith::SIToFPOp::create(rewriter, loc, element, count);
      Value one = arith::ConstantOp::create(
          rewriter, loc, rewriter.getFloatAttr(element, 1.0));
      Value scale = arith::DivFOp::create(rewriter, loc, one, n);
      AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
      SmallVector<utils::IteratorType> parallel(type.getRank(),
                                                utils::IteratorType::parallel);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{type}, ValueRange{},
                   ValueRange{result}, ArrayRef<AffineMap>{id}, parallel,
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value scaled = arith::MulFOp::create(b, l, args[0], scale);
                     linalg::YieldOp::create(b, l, scaled);
                   })
                   .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tad::populateCollectivesToMpiPatterns(RewritePatternSet &patterns) {
  patterns.add<AllReduceLowering>(patterns.getContext());
}
