//===- EmulateShuffles.cpp - warp shuffles as exchanges between barriers --===//
//
// The emulator runs a kernel's threads one at a time, or in phases between
// barriers (EmulatePhases.h). A warp shuffle needs the values of the other
// lanes at the same point, which a thread run alone does not have. So each
// shuffle becomes an exchange through workgroup memory between two
// barriers: every thread stores its value in its slot, waits, reads its
// partner lane's slot, and waits again before the next exchange writes the
// slots. The phases then run it as they run any barrier, forwards and
// reversed, and the results are the shuffle's by its definition
// (`gpu.shuffle`: the lanes are the block's threads by linear id, 32 to a
// warp). A block-wide barrier where a GPU synchronizes a warp orders more:
// a kernel that counted on a shuffle to order other warps' memory accesses
// would pass here and race on a GPU. tad's shuffles exchange registers
// only, the values of one warp's tree.
//
//===----------------------------------------------------------------------===//

#include "EmulatePhases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32;

/// The lane whose value `shuffle` reads in a thread of lane `lane`, and
/// whether there is one (the `valid` result).
std::pair<Value, Value> partnerOf(OpBuilder &b, gpu::ShuffleOp shuffle,
                                  Value lane) {
  Location loc = shuffle.getLoc();
  auto index = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  };
  Value offset = index(shuffle.getOffset());
  Value width = index(shuffle.getWidth());
  Value partner;
  Value valid;
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    partner = arith::XOrIOp::create(b, loc, lane, offset);
    break;
  case gpu::ShuffleMode::DOWN:
    partner = arith::AddIOp::create(b, loc, lane, offset);
    break;
  case gpu::ShuffleMode::IDX:
    partner = offset;
    break;
  case gpu::ShuffleMode::UP:
    valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, offset);
    partner = arith::SelectOp::create(
        b, loc, valid, arith::SubIOp::create(b, loc, lane, offset), lane);
    break;
  }
  Value inWidth =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, partner, width);
  valid = valid ? arith::AndIOp::create(b, loc, valid, inWidth) : inWidth;
  return {partner, valid};
}

} // namespace

LogicalResult tad::exchangeShuffles(gpu::LaunchOp launch) {
  SmallVector<gpu::ShuffleOp> shuffles;
  launch.getBody().walk([&](gpu::ShuffleOp s) { shuffles.push_back(s); });
  if (shuffles.empty())
    return success();
  gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
  std::optional<int64_t> x = getConstantIntValue(sizes.x);
  std::optional<int64_t> y = getConstantIntValue(sizes.y);
  std::optional<int64_t> z = getConstantIntValue(sizes.z);
  if (!x || !y || !z)
    return launch.emitOpError("shuffles in blocks of a size that is not a "
                              "constant, which emulation does not model");
  for (gpu::ShuffleOp shuffle : shuffles) {
    for (Operation *p = shuffle->getParentOp(); p != launch;
         p = p->getParentOp())
      if (!isa<scf::ForOp>(p))
        return launch.emitOpError(
            "shuffles inside a branch, which emulation does not model");
    if (!shuffle.getValue().getType().isIntOrFloat())
      return launch.emitOpError("shuffles a value of type ")
             << shuffle.getValue().getType()
             << ", which emulation does not model";
  }
  // A slot per thread for each type shuffled.
  int64_t threads = *x * *y * *z;
  auto workgroup = gpu::AddressSpaceAttr::get(
      launch.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  llvm::DenseMap<Type, Value> slots;
  for (gpu::ShuffleOp shuffle : shuffles) {
    Type type = shuffle.getValue().getType();
    if (!slots.count(type))
      slots[type] = launch.addWorkgroupAttribution(
          MemRefType::get({threads}, type, MemRefLayoutAttrInterface(),
                          workgroup),
          launch.getLoc());
  }
  gpu::KernelDim3 ids = launch.getThreadIds();
  for (gpu::ShuffleOp shuffle : shuffles) {
    OpBuilder b(shuffle);
    Location loc = shuffle.getLoc();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value thread = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, ids.z, constant(*y)),
                ids.y),
            constant(*x)),
        ids.x);
    Value lane = arith::RemUIOp::create(b, loc, thread, constant(kWarpSize));
    auto [partner, valid] = partnerOf(b, shuffle, lane);
    Value source = arith::SelectOp::create(
        b, loc, valid,
        arith::AddIOp::create(
            b, loc, arith::SubIOp::create(b, loc, thread, lane), partner),
        thread);
    Value slot = slots.lookup(shuffle.getValue().getType());
    memref::StoreOp::create(b, loc, shuffle.getValue(), slot, thread);
    gpu::BarrierOp::create(b, loc);
    Value value = memref::LoadOp::create(b, loc, slot, source);
    // The next exchange writes the slots only after every thread read.
    gpu::BarrierOp::create(b, loc);
    shuffle.getShuffleResult().replaceAllUsesWith(value);
    shuffle.getValid().replaceAllUsesWith(valid);
    shuffle.erase();
  }
  return success();
}
