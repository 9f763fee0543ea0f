//===- TadMemoryModel.cpp - how each tad op's lowering uses memory --------===//
//
// The MemoryModelOpInterface answers of the tad ops whose lowering is not
// the default (one fresh buffer of the results' size). They state what
// lib/Conversion/TadToLinalg emits for the op and what tad-fuse-elementwise
// and bufferization then make of it; test/Remat/op-memory.mlir holds the
// lowering to them, op by op.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tad;

int64_t tad::getByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type element = tensor.getElementType();
  int64_t bits =
      element.isIntOrIndexOrFloat()
          ? (element.isIndex() ? 64 : element.getIntOrFloatBitWidth())
          : 64;
  // i1 is stored in a byte.
  return tensor.getNumElements() * std::max<int64_t>(1, bits / 8);
}

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

double elementsOf(Value v) { return double(typeOf(v).getNumElements()); }

/// The bytes of the element type a sum of `element` accumulates in, or 0
/// when it accumulates in its own type: f32 sums in f64, f16 and bf16 in
/// f32 (docs/memory.md).
int64_t wideBytes(Type element) {
  if (element.isF32())
    return 8;
  if (element.isF16() || element.isBF16())
    return 4;
  return 0;
}

int64_t elementBytes(RankedTensorType type) {
  return getByteSize(RankedTensorType::get({}, type.getElementType()));
}

/// The bytes of a sum's wide accumulator, 0 when it sums in place.
int64_t accumulatorBytes(Value result) {
  RankedTensorType type = typeOf(result);
  return type.getNumElements() * wideBytes(type.getElementType());
}

/// The number of rows along `axis` (the elements of the input with that
/// axis reduced).
int64_t rowsAlong(Value input, int64_t axis) {
  RankedTensorType type = typeOf(input);
  return type.getNumElements() / type.getDimSize(axis);
}

/// The bytes of a row sum of exponentials along `axis`: in the wide type
/// when there is one.
int64_t rowSumBytes(Value input, int64_t axis) {
  RankedTensorType type = typeOf(input);
  int64_t wide = wideBytes(type.getElementType());
  return rowsAlong(input, axis) * (wide ? wide : elementBytes(type));
}

/// The bytes of the lanes that a row sum along `axis` first sums into
/// (tad-split-reductions): 8 f64 or 16 f32 lanes per row when the axis is
/// the innermost, a multiple of the lanes and at least twice as long; 0
/// otherwise. They are alive together with the sum's accumulator, and
/// freed once added into it.
int64_t laneBytes(Value input, int64_t axis) {
  RankedTensorType type = typeOf(input);
  // Integer sums are not split (their order does not change the result).
  if (!isa<FloatType>(type.getElementType()))
    return 0;
  int64_t wide = wideBytes(type.getElementType());
  int64_t accumulator = wide ? wide : elementBytes(type);
  int64_t lanes = accumulator == 8 ? 8 : accumulator == 4 ? 16 : 0;
  int64_t length = type.getDimSize(axis);
  if (lanes == 0 || axis != type.getRank() - 1 || length % lanes != 0 ||
      length < 2 * lanes)
    return 0;
  return rowsAlong(input, axis) * lanes * accumulator;
}

/// laneBytes of a reduction over `axes`: only a sum over one axis is split.
int64_t laneBytes(Value input, ArrayRef<int64_t> axes) {
  return axes.size() == 1 ? laneBytes(input, axes.front()) : 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise-like ops whose lowering is one all-parallel generic
//===----------------------------------------------------------------------===//

bool TransposeOp::isFusableLoop() { return true; }
bool BroadcastOp::isFusableLoop() { return true; }
bool CastOp::isFusableLoop() { return true; }
bool StopGradientOp::isFusableLoop() { return true; }
// A transpose or a broadcast reads its operand at other indices.
bool CastOp::readsAtResultIndex() { return true; }
bool StopGradientOp::readsAtResultIndex() { return true; }

//===----------------------------------------------------------------------===//
// Costs
//
// One cost unit is the time of a fused elementwise add on one element. The
// constants are times measured on the CPU, in those units, by
// bench/remat/op_costs.py (docs/results.md shows its table and the
// machine; docs/remat-model.md why): they are what makes the remat report's recompute overhead a
// prediction of time, and the solver trade a GEMM against a tanh at their
// real price. Elementwise loops vectorize, f32 exp, log and tanh included
// (tad-approximate-math); f64 math and pow are scalar libm calls.
//===----------------------------------------------------------------------===//

double DivOp::getElementCost() { return 1; }
double SqrtOp::getElementCost() { return 1; }
double RsqrtOp::getElementCost() { return 2; }
double PowOp::getElementCost() { return 57; }

/// f32 (and f16, bf16, computed in f32) math functions vectorize; f64 ones
/// call libm once per element.
static double mathCost(Type type, double vectorized, double libm) {
  return getElementTypeOrSelf(type).isF64() ? libm : vectorized;
}
double SigmoidOp::getElementCost() { return mathCost(getType(), 3, 42); }
double ExpOp::getElementCost() { return mathCost(getType(), 2, 40); }
double LogOp::getElementCost() { return mathCost(getType(), 4, 70); }
double TanhOp::getElementCost() { return mathCost(getType(), 4, 136); }
// Expanded into exp and log (TadToLinalg.cpp's scalarOf) with a division
// and a few selects.
double Log1pOp::getElementCost() { return mathCost(getType(), 4, 46); }
double Expm1Op::getElementCost() { return mathCost(getType(), 9, 94); }
double SoftplusOp::getElementCost() { return mathCost(getType(), 10, 119); }
double LogSigmoidOp::getElementCost() { return mathCost(getType(), 9, 119); }

/// The cost per input element of a sum over `axes`: one accumulator that
/// takes every element in turn is a chain of dependent adds (6), where a
/// sum over outer dimensions adds whole rows into a row of accumulators,
/// vectorized, and a sum along the innermost dimension split into lanes
/// (tad-split-reductions) runs its lanes as a vector (1). The order of a
/// sum is kept, so that every target rounds alike.
static double sumCost(Value input, ArrayRef<int64_t> axes) {
  int64_t rank = typeOf(input).getRank();
  if (!llvm::is_contained(axes, rank - 1) || laneBytes(input, axes) > 0)
    return 1;
  return 6;
}

// Per input element. The maximum needs no order and vectorizes either way.
double ReduceSumOp::getElementCost() {
  return sumCost(getOperand(), getAxes());
}
double ReduceMeanOp::getElementCost() {
  return sumCost(getOperand(), getAxes());
}
double ReduceMaxOp::getElementCost() { return 1; }
// The row maxima, the exponentials, their sums and a division.
double SoftmaxOp::getElementCost() {
  return laneBytes(getOperand(), static_cast<int64_t>(getAxis())) > 0 ? 6 : 10;
}
double LogSumExpOp::getElementCost() { return 37; }

// A transpose that keeps the innermost dimension copies rows; one that
// moves it gathers with a stride.
double TransposeOp::getElementCost() {
  ArrayRef<int64_t> perm = getPermutation();
  return perm.empty() || perm.back() == int64_t(perm.size()) - 1 ? 1 : 9;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// linalg.matmul writes a zero-filled buffer; a batched matmul's result is
// a reshape of batch_matmul's.
bool MatmulOp::writesFreshBuffer() { return getType().getRank() == 2; }

// The runtime's BLAS call: 2mnk flops at its rate, in flops per cost unit
// (f64 runs at less than half f32's rate).
double MatmulOp::getComputeCost() {
  double flopsPerUnit = getType().getElementType().isF64() ? 4 : 8;
  return 2 * elementsOf(getResult()) * double(getContractedSize()) /
         flopsPerUnit;
}

// An uninitialized buffer: allocated, never written by the op itself.
double EmptyOp::getComputeCost() { return 0; }

//===----------------------------------------------------------------------===//
// Views and in-place writes
//===----------------------------------------------------------------------===//

std::optional<unsigned> ReshapeOp::getViewedOperand() { return 0; }
std::optional<unsigned> SliceOp::getViewedOperand() { return 0; }
std::optional<unsigned> TakeOp::getViewedOperand() { return 0; }
std::optional<unsigned> DynamicSliceOp::getViewedOperand() { return 0; }
double ReshapeOp::getComputeCost() { return 0; }
double SliceOp::getComputeCost() { return 0; }
double TakeOp::getComputeCost() { return 0; }
double DynamicSliceOp::getComputeCost() { return 0; }

std::optional<unsigned> UpdateOp::getUpdatedOperand() {
  return getOperandMutable().getOperandNumber();
}
std::optional<unsigned> InsertSliceOp::getUpdatedOperand() {
  return getDestMutable().getOperandNumber();
}
std::optional<unsigned> DynamicUpdateSliceOp::getUpdatedOperand() {
  return getOperandMutable().getOperandNumber();
}
// A gather is one all-parallel generic over its result that reads the
// operand at the indices it loads; it costs its result, not the table.
// Only the indices are an operand of that generic: a producer of the
// table is not fused into it.
bool GatherOp::isFusableLoop() { return true; }
bool GatherOp::absorbsProducers() { return false; }
double GatherOp::getComputeCost() { return elementsOf(getResult()); }
// A scatter_add adds its slices into the operand in place, one by one.
std::optional<unsigned> ScatterAddOp::getUpdatedOperand() {
  return getOperandMutable().getOperandNumber();
}
double ScatterAddOp::getComputeCost() { return elementsOf(getUpdates()); }

// An iota is one all-parallel generic without inputs.
bool IotaOp::isFusableLoop() { return true; }
// An argmax reduces into its index result and a buffer of the row maxima
// (the generic's second result), which dies with it; a fusable producer of
// its operand is fused into that generic.
bool ArgMaxOp::absorbsProducers() { return true; }
bool ArgMaxOp::writesFreshBuffer() { return true; }
int64_t ArgMaxOp::getTransientBytes(bool) {
  RankedTensorType type = getType();
  return type.getNumElements() *
         elementBytes(typeOf(getOperand()));
}

// A random tensor is one all-parallel generic without inputs: the key is
// read before it, so the key's producer is not fused into it. Ten Philox
// rounds of 32-bit multiplies per element (about as dear as an f32 exp).
bool RandomOp::isFusableLoop() { return true; }
bool RandomOp::absorbsProducers() { return false; }
double RandomOp::getElementCost() { return 6; }
// One Philox draw into a fresh scalar.
double FoldInOp::getElementCost() { return 6; }

// A tape's row write touches the row, not the stack it updates in place.
double UpdateOp::getComputeCost() { return elementsOf(getValue()); }
double DynamicUpdateSliceOp::getComputeCost() { return elementsOf(getValue()); }

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Whether a reduction's result is the reducing generic's own (a kept
/// dimension of size 1 makes it a reshape).
template <typename OpT> static bool keepsNoDimension(OpT op) {
  return op.getType() == getReducedType(typeOf(op.getOperand()), op.getAxes(),
                                        /*keepdims=*/false);
}

// A reduction's generic reads its input, into which producers fuse; a wide
// sum then rounds its accumulator into the result in a second, all-parallel
// generic, which fuses into the result's readers.
#define TAD_REDUCTION_MEMORY(OP)                                               \
  bool OP::absorbsProducers() { return true; }                                 \
  bool OP::writesFreshBuffer() { return keepsNoDimension(*this); }             \
  int64_t OP::getTransientBytes(bool tailFused) {                              \
    return laneBytes(getOperand(), getAxes()) +                                \
           (tailFused ? 0 : accumulatorBytes(getResult()));                    \
  }                                                                            \
  std::optional<int64_t> OP::getFusableTailBytes() {                           \
    if (int64_t bytes = accumulatorBytes(getResult()))                         \
      return bytes;                                                            \
    return std::nullopt;                                                       \
  }
TAD_REDUCTION_MEMORY(ReduceSumOp)
TAD_REDUCTION_MEMORY(ReduceMeanOp)
#undef TAD_REDUCTION_MEMORY

// The maximum reduces in its own type: no accumulator, no tail.
bool ReduceMaxOp::absorbsProducers() { return true; }
bool ReduceMaxOp::writesFreshBuffer() { return keepsNoDimension(*this); }
int64_t ReduceMaxOp::getTransientBytes(bool) { return 0; }
std::optional<int64_t> ReduceMaxOp::getFusableTailBytes() {
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Softmax and logsumexp
//===----------------------------------------------------------------------===//

// Softmax computes the row maxima, then the exponentials (full size; the
// maxima die), then their row sums (wide), and divides the exponentials by
// the sums: the exponentials and the sums are alive when the result is
// written, or, when the division fuses into the readers, until they run.
bool SoftmaxOp::writesFreshBuffer() { return true; }
int64_t SoftmaxOp::getTransientBytes(bool tailFused) {
  int64_t axis = static_cast<int64_t>(getAxis());
  int64_t lanes = laneBytes(getOperand(), axis);
  if (tailFused)
    return lanes;
  return lanes + getByteSize(getType()) + rowSumBytes(getOperand(), axis);
}
std::optional<int64_t> SoftmaxOp::getFusableTailBytes() {
  return getByteSize(getType()) +
         rowSumBytes(getOperand(), static_cast<int64_t>(getAxis()));
}

// Logsumexp computes the row maxima, then the row sums of exponentials
// (wide; the exponentials fuse into the sum), then adds the maxima to the
// sums' logs. Without a wide type the result is written into the sums'
// buffer (tad-reuse-operand-buffers); when the last step fuses into the
// readers, the maxima and the sums stay alive until they run.
bool LogSumExpOp::writesFreshBuffer() { return !getKeepdims(); }
int64_t LogSumExpOp::getTransientBytes(bool tailFused) {
  int64_t axis = static_cast<int64_t>(getAxis());
  int64_t lanes = laneBytes(getOperand(), axis);
  if (tailFused)
    return lanes;
  RankedTensorType type = typeOf(getOperand());
  int64_t maxima = rowsAlong(getOperand(), axis) * elementBytes(type);
  return lanes + maxima +
         (wideBytes(type.getElementType()) ? rowSumBytes(getOperand(), axis)
                                           : 0);
}
std::optional<int64_t> LogSumExpOp::getFusableTailBytes() {
  int64_t axis = static_cast<int64_t>(getAxis());
  return rowsAlong(getOperand(), axis) * elementBytes(typeOf(getOperand())) +
         rowSumBytes(getOperand(), axis);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Whether a block of `block`'s shape, read with unit steps where it spans
/// more than one index, is one run of `source`'s row-major elements: its
/// inner dimensions whole, then one partial dimension, then dimensions of
/// size 1.
static bool isContiguousBlock(ArrayRef<int64_t> block,
                              ArrayRef<int64_t> source) {
  size_t d = block.size();
  while (d > 0 && block[d - 1] == source[d - 1])
    --d;
  for (size_t i = 0; i + 1 < d; ++i)
    if (block[i] != 1)
      return false;
  return true;
}

bool tad::hasContiguousBuffer(Value value) {
  Operation *producer = value.getDefiningOp();
  if (auto slice = dyn_cast_or_null<SliceOp>(producer)) {
    ArrayRef<int64_t> shape = slice.getType().getShape();
    for (auto [size, step] : llvm::zip(shape, slice.getStep()))
      if (size > 1 && step != 1)
        return false;
    return isContiguousBlock(shape, typeOf(slice.getOperand()).getShape()) &&
           hasContiguousBuffer(slice.getOperand());
  }
  if (auto slice = dyn_cast_or_null<DynamicSliceOp>(producer))
    return isContiguousBlock(slice.getType().getShape(),
                             typeOf(slice.getOperand()).getShape()) &&
           hasContiguousBuffer(slice.getOperand());
  // A row of a stacked tensor, or the same elements in another shape.
  if (isa_and_nonnull<TakeOp, ReshapeOp>(producer))
    return hasContiguousBuffer(producer->getOperand(0));
  return true;
}

// MPI reads a contiguous buffer in place, at any offset: a view that is not
// contiguous (a strided slice, a block of columns) is first copied into one
// of its own, alive while the collective runs.
int64_t AllReduceOp::getTransientBytes(bool) {
  return hasContiguousBuffer(getOperand()) ? 0 : getByteSize(getType());
}
