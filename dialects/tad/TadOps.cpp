//===- TadOps.cpp - tad op verifiers and builders -------------------------===//
//
// The shape rules of the tad ops. Each rule reports the dimensions it
// compared, so that a frontend bug shows up as a precise message rather than
// a wrong lowering. Folds and canonicalizations live in TadFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tad;

#include "dialects/tad/TadEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

Type tad::getBoolTensorLike(Type type) {
  auto shaped = cast<ShapedType>(type);
  return RankedTensorType::get(shaped.getShape(),
                               IntegerType::get(type.getContext(), 1));
}

RankedTensorType tad::getReducedType(RankedTensorType type,
                                     ArrayRef<int64_t> axes, bool keepdims) {
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      shape.push_back(size);
    else if (keepdims)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, type.getElementType());
}

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Reports that `actual` is not the `expected` result type.
static LogicalResult checkResultType(Operation *op, Type actual,
                                     Type expected) {
  if (actual == expected)
    return success();
  return op->emitOpError("result type ")
         << actual << " does not match the expected " << expected;
}

/// Checks that `axis` is a dimension of a tensor of rank `rank`.
static LogicalResult checkAxis(Operation *op, StringRef what, int64_t axis,
                               int64_t rank) {
  if (axis >= 0 && axis < rank)
    return success();
  return op->emitOpError() << what << " " << axis
                           << " is out of range for rank " << rank;
}

/// Checks that `values` are distinct dimensions of a tensor of rank `rank`.
static LogicalResult checkAxes(Operation *op, StringRef what,
                               ArrayRef<int64_t> values, int64_t rank) {
  llvm::SmallBitVector seen(std::max<int64_t>(rank, 0));
  for (int64_t axis : values) {
    if (failed(checkAxis(op, what, axis, rank)))
      return failure();
    if (seen.test(axis))
      return op->emitOpError() << what << " " << axis << " appears twice";
    seen.set(axis);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// `type` with its last two dimensions swapped when `transposed`.
static RankedTensorType swapLastTwoIf(RankedTensorType type, bool transposed) {
  if (!transposed || type.getRank() < 2)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The shape of `op(lhs) @ op(rhs)`, assuming the operands are valid.
static RankedTensorType inferMatmulType(RankedTensorType lhs,
                                        RankedTensorType rhs) {
  SmallVector<int64_t> shape(lhs.getShape().drop_back());
  shape.push_back(rhs.getShape().back());
  return RankedTensorType::get(shape, lhs.getElementType());
}

void MatmulOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                     Value rhs, bool transposeLhs, bool transposeRhs) {
  build(builder, state,
        inferMatmulType(swapLastTwoIf(tensorType(lhs), transposeLhs),
                        swapLastTwoIf(tensorType(rhs), transposeRhs)),
        lhs, rhs, transposeLhs, transposeRhs);
}

int64_t MatmulOp::getContractedSize() {
  RankedTensorType lhs = tensorType(getLhs());
  return lhs.getDimSize(lhs.getRank() - (getTransposeLhs() ? 2 : 1));
}

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("operand element types differ: ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  int64_t rank = lhs.getRank();
  if (rank < 2)
    return emitOpError("operands must have rank >= 2, lhs has rank ") << rank;
  if (rhs.getRank() != rank)
    return emitOpError("lhs has rank ")
           << rank << " but rhs has rank " << rhs.getRank()
           << "; batch dimensions are not broadcast";
  for (int64_t d = 0; d < rank - 2; ++d)
    if (lhs.getDimSize(d) != rhs.getDimSize(d))
      return emitOpError("batch dimension ")
             << d << " differs: lhs has " << lhs.getDimSize(d) << ", rhs has "
             << rhs.getDimSize(d);
  // Name the operands' own dimensions, which is what the user can look up.
  int64_t lhsK = getTransposeLhs() ? rank - 2 : rank - 1;
  int64_t rhsK = getTransposeRhs() ? rank - 1 : rank - 2;
  if (lhs.getDimSize(lhsK) != rhs.getDimSize(rhsK))
    return emitOpError("contracted dimensions differ: lhs dimension ")
           << lhsK << " is " << lhs.getDimSize(lhsK) << ", rhs dimension "
           << rhsK << " is " << rhs.getDimSize(rhsK);
  return checkResultType(
      *this, getType(),
      inferMatmulType(swapLastTwoIf(lhs, getTransposeLhs()),
                      swapLastTwoIf(rhs, getTransposeRhs())));
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

static RankedTensorType inferTransposeType(RankedTensorType type,
                                           ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  return RankedTensorType::get(shape, type.getElementType());
}

void TransposeOp::build(OpBuilder &builder, OperationState &state,
                        Value operand, ArrayRef<int64_t> permutation) {
  build(builder, state, inferTransposeType(tensorType(operand), permutation),
        operand, permutation);
}

LogicalResult TransposeOp::verify() {
  RankedTensorType type = tensorType(getOperand());
  ArrayRef<int64_t> permutation = getPermutation();
  if (static_cast<int64_t>(permutation.size()) != type.getRank())
    return emitOpError("permutation has ")
           << permutation.size() << " entries but the operand has rank "
           << type.getRank();
  if (failed(checkAxes(*this, "permutation entry", permutation,
                       type.getRank())))
    return failure();
  return checkResultType(*this, getType(),
                         inferTransposeType(type, permutation));
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType from = tensorType(getOperand()), to = getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError("element type changes from ")
           << from.getElementType() << " to " << to.getElementType()
           << "; use tad.cast";
  if (from.getNumElements() != to.getNumElements())
    return emitOpError("operand has ")
           << from.getNumElements() << " elements but the result has "
           << to.getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  RankedTensorType from = tensorType(getOperand()), to = getType();
  ArrayRef<int64_t> dims = getDimensions();
  if (from.getElementType() != to.getElementType())
    return emitOpError("element type changes from ")
           << from.getElementType() << " to " << to.getElementType();
  if (static_cast<int64_t>(dims.size()) != from.getRank())
    return emitOpError("has ") << dims.size()
                               << " dimensions but the operand has rank "
                               << from.getRank();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (failed(checkAxis(*this, "dimension", dim, to.getRank())))
      return failure();
    if (i > 0 && dim <= dims[i - 1])
      return emitOpError("dimensions must be strictly increasing, but ")
             << dim << " follows " << dims[i - 1];
    int64_t size = from.getDimSize(i), target = to.getDimSize(dim);
    if (size != 1 && size != target)
      return emitOpError("operand dimension ")
             << i << " has size " << size << " but result dimension " << dim
             << " has size " << target << "; only size 1 broadcasts";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  RankedTensorType type = tensorType(getOperand());
  ArrayRef<int64_t> start = getStart(), limit = getLimit(), step = getStep();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return emitOpError("start, limit and step need ")
           << rank << " entries each (the operand rank), got " << start.size()
           << ", " << limit.size() << " and " << step.size();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > size)
      return emitOpError("dimension ")
             << d << ": need 0 <= start <= limit <= " << size << ", got start "
             << start[d] << " and limit " << limit[d];
    if (step[d] < 1)
      return emitOpError("dimension ")
             << d << ": step must be >= 1, got " << step[d];
    shape.push_back(llvm::divideCeil(limit[d] - start[d], step[d]));
  }
  return checkResultType(
      *this, getType(), RankedTensorType::get(shape, type.getElementType()));
}

//===----------------------------------------------------------------------===//
// TakeOp and UpdateOp
//===----------------------------------------------------------------------===//

/// Checks that `row` is `stacked` without its leading dimension.
static LogicalResult checkRowType(Operation *op, RankedTensorType stacked,
                                  RankedTensorType row, StringRef what) {
  if (stacked.getRank() < 1)
    return op->emitOpError("needs a stacked operand of rank >= 1, got ")
           << stacked;
  auto expected = RankedTensorType::get(stacked.getShape().drop_front(),
                                        stacked.getElementType());
  if (row == expected)
    return success();
  return op->emitOpError() << what << " type " << row
                           << " does not match the expected " << expected;
}

LogicalResult TakeOp::verify() {
  return checkRowType(*this, tensorType(getOperand()), getType(), "result");
}

LogicalResult UpdateOp::verify() {
  return checkRowType(*this, tensorType(getOperand()), tensorType(getValue()),
                      "value");
}

//===----------------------------------------------------------------------===//
// GatherOp and ScatterAddOp
//===----------------------------------------------------------------------===//

RankedTensorType ScatterAddOp::getGatheredType(RankedTensorType operand,
                                               RankedTensorType indices,
                                               int64_t axis) {
  SmallVector<int64_t> shape(operand.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, operand.getShape().drop_front(axis + 1));
  return RankedTensorType::get(shape, operand.getElementType());
}

/// The axis of a gather or scatter_add against its operand, and `gathered`
/// against the gather's type.
static LogicalResult checkGather(Operation *op, RankedTensorType operand,
                                 RankedTensorType indices, int64_t axis,
                                 RankedTensorType gathered, StringRef what) {
  if (axis < 0 || axis >= operand.getRank())
    return op->emitOpError("axis ")
           << axis << " is out of range for an operand of rank "
           << operand.getRank();
  RankedTensorType expected =
      ScatterAddOp::getGatheredType(operand, indices, axis);
  if (gathered != expected)
    return op->emitOpError() << what << " type " << gathered
                             << " does not match the expected " << expected;
  return success();
}

LogicalResult GatherOp::verify() {
  return checkGather(*this, tensorType(getOperand()),
                     tensorType(getIndices()), getAxis(), getType(),
                     "result");
}

LogicalResult ScatterAddOp::verify() {
  return checkGather(*this, tensorType(getOperand()),
                     tensorType(getIndices()), getAxis(),
                     tensorType(getUpdates()), "updates");
}

LogicalResult IotaOp::verify() {
  int64_t axis = getAxis();
  if (axis < 0 || axis >= getType().getRank())
    return emitOpError("axis ") << getAxis()
                                << " is out of range for a result of rank "
                                << getType().getRank();
  unsigned bits = getType().getElementTypeBitWidth();
  if (bits < 64 && getType().getDimSize(getAxis()) > (int64_t(1) << (bits - 1)))
    return emitOpError("the indices along axis ")
           << getAxis() << " do not fit in " << getType().getElementType();
  return success();
}

LogicalResult ArgMaxOp::verify() {
  RankedTensorType operand = tensorType(getOperand());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= operand.getRank())
    return emitOpError("axis ") << axis
                                << " is out of range for an operand of rank "
                                << operand.getRank();
  RankedTensorType expected = getReducedType(
      RankedTensorType::get(operand.getShape(), getType().getElementType()),
      {axis}, getKeepdims());
  if (getType() != expected)
    return emitOpError("result type ")
           << getType() << " does not match the expected " << expected;
  return success();
}

LogicalResult RandomOp::verify() {
  if (cast<RankedTensorType>(getKey().getType()).getRank() != 0)
    return emitOpError("needs a key of rank 0, got ") << getKey().getType();
  Type element = getType().getElementType();
  bool keys = getDistribution() == Distribution::keys;
  if (keys != element.isInteger(64) || (!keys && !isa<FloatType>(element)))
    return emitOpError(keys ? "draws keys of type i64, not "
                            : "draws floats, not ")
           << element;
  return success();
}

LogicalResult FoldInOp::verify() {
  for (Type type : {Type(getKey().getType()), getData().getType(),
                    Type(getType())})
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        tensor && tensor.getRank() != 0)
      return emitOpError("takes and returns scalars, got ") << type;
  return success();
}

/// A dynamic slice's block type against its operand's: the same rank and
/// element type, one offset per dimension, no dimension larger.
static LogicalResult checkBlockType(Operation *op, RankedTensorType operand,
                                    RankedTensorType block, size_t offsets,
                                    StringRef what) {
  if (block.getElementType() != operand.getElementType())
    return op->emitOpError()
           << what << " element type " << block.getElementType()
           << " differs from the operand's " << operand.getElementType();
  if (block.getRank() != operand.getRank())
    return op->emitOpError()
           << what << " rank " << block.getRank()
           << " differs from the operand's " << operand.getRank();
  if (offsets != size_t(operand.getRank()))
    return op->emitOpError() << "takes one offset per dimension ("
                             << operand.getRank() << "), not " << offsets;
  for (auto [d, sizes] :
       llvm::enumerate(llvm::zip(block.getShape(), operand.getShape())))
    if (std::get<0>(sizes) > std::get<1>(sizes))
      return op->emitOpError()
             << what << " dimension " << d << " (" << std::get<0>(sizes)
             << ") is larger than the operand's (" << std::get<1>(sizes) << ")";
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  return checkBlockType(*this, tensorType(getOperand()), getType(),
                        getOffsets().size(), "result");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  return checkBlockType(*this, tensorType(getOperand()), tensorType(getValue()),
                        getOffsets().size(), "value");
}

LogicalResult InsertSliceOp::verify() {
  RankedTensorType source = tensorType(getSource()), dest = getType();
  ArrayRef<int64_t> start = getStart(), step = getStep();
  if (source.getElementType() != dest.getElementType())
    return emitOpError("source element type ")
           << source.getElementType() << " differs from the destination's "
           << dest.getElementType();
  int64_t rank = dest.getRank();
  if (source.getRank() != rank || int64_t(start.size()) != rank ||
      int64_t(step.size()) != rank)
    return emitOpError("source, start and step need the destination rank ")
           << rank << ", got " << source.getRank() << ", " << start.size()
           << " and " << step.size();
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 1)
      return emitOpError("dimension ") << d << ": step must be >= 1, got "
                                       << step[d];
    int64_t last = start[d] + (source.getDimSize(d) - 1) * step[d];
    if (start[d] < 0 || last >= dest.getDimSize(d))
      return emitOpError("dimension ")
             << d << ": the source covers indices " << start[d] << " to "
             << last << ", outside [0, " << dest.getDimSize(d) << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  RankedTensorType first = tensorType(getInputs().front());
  int64_t rank = first.getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(checkAxis(*this, "axis", axis, rank)))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(getInputs().drop_front())) {
    RankedTensorType type = tensorType(input);
    if (type.getElementType() != first.getElementType())
      return emitOpError("input ")
             << i + 1 << " has element type " << type.getElementType()
             << " but input 0 has " << first.getElementType();
    if (type.getRank() != rank)
      return emitOpError("input ") << i + 1 << " has rank " << type.getRank()
                                   << " but input 0 has rank " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && type.getDimSize(d) != first.getDimSize(d))
        return emitOpError("input ")
               << i + 1 << " has size " << type.getDimSize(d)
               << " in dimension " << d << " but input 0 has "
               << first.getDimSize(d);
    shape[axis] += type.getDimSize(axis);
  }
  return checkResultType(
      *this, getType(), RankedTensorType::get(shape, first.getElementType()));
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  RankedTensorType from = tensorType(getOperand()), to = getType();
  if (from.getShape() != to.getShape())
    return emitOpError("changes the shape from ")
           << from << " to " << to << "; only the element type may change";
  return success();
}

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

// MPI has no standard datatype for the 16-bit floats: a collective of them
// would have to widen, and tad does not yet.
LogicalResult AllReduceOp::verify() {
  Type element = getType().getElementType();
  if (!element.isF32() && !element.isF64())
    return emitOpError("reduces f32 and f64 tensors only, not ")
           << element << "; cast to f32 first";
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReduceOpT>
static LogicalResult verifyReduction(ReduceOpT op) {
  RankedTensorType type = tensorType(op.getOperand());
  if (failed(checkAxes(op, "axis", op.getAxes(), type.getRank())))
    return failure();
  return checkResultType(op, op.getType(),
                         getReducedType(type, op.getAxes(), op.getKeepdims()));
}

template <typename ReduceOpT>
static int64_t reductionSize(ReduceOpT op) {
  int64_t size = 1;
  for (int64_t axis : op.getAxes())
    size *= tensorType(op.getOperand()).getDimSize(axis);
  return size;
}

#define TAD_DEFINE_REDUCTION(OP)                                               \
  void OP::build(OpBuilder &builder, OperationState &state, Value operand,    \
                 ArrayRef<int64_t> axes, bool keepdims) {                      \
    build(builder, state, getReducedType(tensorType(operand), axes, keepdims), \
          operand, axes, keepdims);                                            \
  }                                                                            \
  LogicalResult OP::verify() { return verifyReduction(*this); }                \
  int64_t OP::getReductionSize() { return reductionSize(*this); }

TAD_DEFINE_REDUCTION(ReduceSumOp)
TAD_DEFINE_REDUCTION(ReduceMeanOp)
TAD_DEFINE_REDUCTION(ReduceMaxOp)
#undef TAD_DEFINE_REDUCTION

LogicalResult SoftmaxOp::verify() {
  return checkAxis(*this, "axis", getAxis(), getType().getRank());
}

LogicalResult LogSumExpOp::verify() {
  RankedTensorType type = tensorType(getOperand());
  if (failed(checkAxis(*this, "axis", getAxis(), type.getRank())))
    return failure();
  return checkResultType(*this, getType(),
                         getReducedType(type, {static_cast<int64_t>(getAxis())}, getKeepdims()));
}

//===----------------------------------------------------------------------===//
// CheckpointOp
//===----------------------------------------------------------------------===//

YieldOp CheckpointOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult CheckpointOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the op has "
           << getInputs().size() << " inputs";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs().getTypes(), body.getArgumentTypes()))
    if (input != arg)
      return emitOpError("body argument ")
             << i << " has type " << arg << " but input " << i << " has type "
             << input;
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with tad.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values but the op has "
           << getNumResults() << " results";
  for (auto [i, result, yielded] :
       llvm::enumerate(getResultTypes(), yield.getValues().getTypes()))
    if (result != yielded)
      return emitOpError("body yields ")
             << yielded << " as value " << i << " but result " << i
             << " has type " << result;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/tad/TadOps.cpp.inc"
