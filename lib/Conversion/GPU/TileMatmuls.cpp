//===- TileMatmuls.cpp - matmuls as tiled shared-memory GPU kernels -------===//
//
// tad-loops-to-gpu would run a matmul as one thread per output element,
// each reading a row of A and a column of B from global memory: every
// element of A and B is read N and M times from global memory. Here each
// float matmul (linalg.matmul or batch_matmul, transposed operands
// included) becomes a kernel of 16x16-thread blocks, one block per 64x64
// tile of the output: for each 16-wide step of k, the block copies a 64x16
// tile of A and a 16x64 tile of B into shared memory, waits at a barrier,
// and each thread adds the products of its 4 rows and 4 columns of the
// tiles into its 16 output elements (rows ty + 16r, columns tx + 16c); so
// each element of A and B is read from global memory N/64 and M/64 times,
// and each thread does 16 multiply-adds for 8 loads from shared memory.
//
// Each thread adds its products in the order of k, from the output's
// value, exactly as the untiled loop does, so the results are bit for bit
// those of the kernel it replaces (and of the emulator's CPU run of it).
// Products past the end of k are never added: the last tile's loop stops
// at K, so no padding value enters a sum (not even a 0, which would turn
// a -0.0 into +0.0). The tiles hold 0 past the operands' ends; the sums
// of elements outside the output are computed from them and never stored,
// and every thread reaches every barrier.
//
// The kernel also takes in what would be launches of their own around the
// matmul: the fill of its output just before (the sums' start) and an
// elementwise op just after that reads the output element by element (a
// bias, an activation: fusableEpilogue).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tad {
#define GEN_PASS_DEF_TILEGPUMATMULS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;
using tad::ContractionLayout;

namespace {

/// A block is kThreads x kThreads threads; each computes kPerThread x
/// kPerThread elements of the output's kBlockTile x kBlockTile tile; the
/// tiles of A and B in shared memory are kDepth deep along k.
constexpr int64_t kThreads = 16, kPerThread = 4,
                  kBlockTile = kThreads * kPerThread, kDepth = 16;

/// The indices of operand `o` of `layout` at canonical indices (b, row,
/// col): the operand's own order (ContractionLayout::permutations).
SmallVector<Value> operandIndices(const ContractionLayout &layout, int o,
                                  Value batch, Value row, Value col) {
  SmallVector<Value> canonical;
  if (layout.batch)
    canonical.push_back(batch);
  canonical.append({row, col});
  SmallVector<Value> indices(canonical.size());
  for (auto [i, dim] : llvm::enumerate(layout.permutations[o]))
    indices[dim] = canonical[i];
  return indices;
}

/// The size of canonical dimension `i` of operand `o`.
Value canonicalSize(OpBuilder &b, Location loc, const ContractionLayout &layout,
                    Value operand, int o, int64_t i) {
  return b.createOrFold<memref::DimOp>(loc, operand, layout.permutations[o][i]);
}

/// `op`'s multiply-add (its payload) of `lhs` and `rhs` into `acc`.
Value multiplyAdd(OpBuilder &b, linalg::LinalgOp op, Value lhs, Value rhs,
                  Value acc) {
  Block &payload = op->getRegion(0).front();
  IRMapping mapping;
  mapping.map(payload.getArgument(0), lhs);
  mapping.map(payload.getArgument(1), rhs);
  mapping.map(payload.getArgument(2), acc);
  for (Operation &inner : payload.without_terminator())
    b.clone(inner, mapping);
  return mapping.lookup(payload.getTerminator()->getOperand(0));
}

/// `cond ? then() : otherwise` as an scf.if with one result.
template <typename Then>
Value select(OpBuilder &b, Location loc, Value cond, Then then,
             Value otherwise) {
  auto branch = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &nested, Location l) {
        scf::YieldOp::create(nested, l, then(nested));
      },
      [&](OpBuilder &nested, Location l) {
        scf::YieldOp::create(nested, l, otherwise);
      });
  return branch.getResult(0);
}

/// The elementwise op after `op` (past frees) that the kernel can compute
/// as each output element is done, saving a launch and a pass over the
/// output (a bias, an activation, a gradient's update): a linalg.generic
/// over parallel dimensions that reads `op`'s output through a permutation
/// of them (and every operand through some of them), so that each of its
/// iterations is one output element's. Each
/// thread then reads only its own element of that output, and writes
/// either that element or buffers that no thread of the kernel reads
/// (neither the matmul's operands nor the generic's other inputs).
linalg::GenericOp fusableEpilogue(linalg::LinalgOp op, AliasAnalysis &aliases) {
  Operation *next = op->getNextNode();
  while (isa_and_nonnull<memref::DeallocOp>(next))
    next = next->getNextNode();
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.hasIndexSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  Value out = op.getDpsInits()[0];
  auto mayAlias = [&](Value a, Value b) { return !aliases.alias(a, b).isNo(); };
  std::optional<AffineMap> outMap;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    // Each operand's indices are the iteration's (applyEpilogue): no
    // constant index (a `[rows, 1]` operand read at 0) or sum of them.
    if (!map.isProjectedPermutation())
      return nullptr;
    if (operand.get() == out) {
      if (!map.isPermutation() || (outMap && *outMap != map))
        return nullptr;
      outMap = map;
    } else if (mayAlias(operand.get(), out)) {
      return nullptr;
    }
  }
  if (!outMap)
    return nullptr;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    if (init.get() == out)
      continue;
    if (!generic.getMatchingIndexingMap(&init).isPermutation())
      return nullptr;
    for (Value read : op.getDpsInputs())
      if (mayAlias(init.get(), read))
        return nullptr;
    for (OpOperand *input : generic.getDpsInputOperands())
      if (mayAlias(init.get(), input->get()))
        return nullptr;
  }
  return generic;
}

/// `epilogue`'s iteration for the output element at `outIndices`, whose
/// value is `value` (stored already), at `b`.
void applyEpilogue(OpBuilder &b, linalg::GenericOp epilogue, Value out,
                   ValueRange outIndices, Value value) {
  Location loc = epilogue.getLoc();
  // The iteration's indices: the inverse of the output's permutation.
  AffineMap outMap;
  for (OpOperand &operand : epilogue->getOpOperands())
    if (operand.get() == out)
      outMap = epilogue.getMatchingIndexingMap(&operand);
  SmallVector<Value> iteration(epilogue.getNumLoops());
  for (auto [position, expr] : llvm::enumerate(outMap.getResults()))
    iteration[cast<AffineDimExpr>(expr).getPosition()] = outIndices[position];
  auto indicesOf = [&](OpOperand &operand) {
    SmallVector<Value> indices;
    for (AffineExpr expr :
         epilogue.getMatchingIndexingMap(&operand).getResults())
      indices.push_back(iteration[cast<AffineDimExpr>(expr).getPosition()]);
    return indices;
  };
  Block &payload = *epilogue.getBlock();
  IRMapping mapping;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    BlockArgument arg = epilogue.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    mapping.map(arg, operand.get() == out
                         ? value
                         : memref::LoadOp::create(b, loc, operand.get(),
                                                  indicesOf(operand))
                               .getResult());
  }
  for (Operation &inner : payload.without_terminator())
    b.clone(inner, mapping);
  for (auto [init, result] : llvm::zip(epilogue.getDpsInitsMutable(),
                                       payload.getTerminator()->getOperands()))
    memref::StoreOp::create(b, loc, mapping.lookupOrDefault(result), init.get(),
                            indicesOf(init));
}

/// What a thread of the kernel copies from an operand into its tile in
/// shared memory, kPerThread elements, 0 past the operand's ends. Along
/// the operand's last dimension a warp's threads (consecutive tx) take
/// neighbouring elements, so that their loads coalesce, transposed or not;
/// along the tile's long dimension (kBlockTile) each thread takes every
/// 16th (`offsets`).
struct TileCopy {
  const ContractionLayout &layout;
  Value batch, tx, ty;
  ArrayRef<Value> offsets;

  /// Copies operand `o` (`source`)'s tile at (row0, col0), of an operand of
  /// `rows` x `cols` (canonical), into `tile`, whose rows are the long side
  /// where `longRows`.
  void copy(OpBuilder &b, Location loc, int o, Value source, Value tile,
            Value row0, Value rows, Value col0, Value cols,
            bool longRows) const {
    int64_t rank = cast<MemRefType>(source.getType()).getRank();
    bool byRows = layout.permutations[o][layout.batch + 1] == rank - 1;
    Type type = getElementTypeOrSelf(source);
    auto add = [&](Value x, Value y) -> Value {
      return arith::AddIOp::create(b, loc, x, y);
    };
    auto below = [&](Value x, Value bound) -> Value {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, bound);
    };
    for (Value offset : offsets) {
      // The tile's row and column of the element this thread copies.
      Value dr = byRows ? ty : tx, dc = byRows ? tx : ty;
      if (longRows)
        dr = add(dr, offset);
      else
        dc = add(dc, offset);
      Value r = add(row0, dr), c = add(col0, dc);
      Value in = arith::AndIOp::create(b, loc, below(r, rows), below(c, cols));
      Value v = select(
          b, loc, in,
          [&](OpBuilder &nested) -> Value {
            return memref::LoadOp::create(
                nested, loc, source, operandIndices(layout, o, batch, r, c));
          },
          arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
      memref::StoreOp::create(b, loc, v, tile, ValueRange{dr, dc});
    }
  }
};

/// The loop over a step of k (`steps` long) that adds the products of a
/// thread's rows `tileRows` of A's tile and columns `tileCols` of B's tile
/// to its sums (`sums`, row by row), each in the order of k.
scf::ForOp addProducts(OpBuilder &b, Location loc, linalg::LinalgOp op,
                       Value lhsTile, Value rhsTile, ArrayRef<Value> tileRows,
                       ArrayRef<Value> tileCols, Value steps, ValueRange sums) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto products = scf::ForOp::create(b, loc, zero, steps, one, sums);
  OpBuilder inner = OpBuilder::atBlockBegin(products.getBody());
  Value kk = products.getInductionVar();
  SmallVector<Value> a, c, next;
  for (Value r : tileRows)
    a.push_back(memref::LoadOp::create(inner, loc, lhsTile, ValueRange{r, kk}));
  for (Value j : tileCols)
    c.push_back(memref::LoadOp::create(inner, loc, rhsTile, ValueRange{kk, j}));
  for (auto [r, x] : llvm::enumerate(a))
    for (auto [q, y] : llvm::enumerate(c))
      next.push_back(multiplyAdd(
          inner, op, x, y, products.getRegionIterArg(r * tileCols.size() + q)));
  scf::YieldOp::create(inner, loc, next);
  return products;
}

/// The starting value of each of a thread's sums: the fill's value, or
/// the output's element (0 outside the output, where it is not stored).
SmallVector<Value> startValues(OpBuilder &b, Location loc, Value filled,
                               Value out, ArrayRef<Value> inside,
                               ArrayRef<SmallVector<Value>> outIndices) {
  Type element = getElementTypeOrSelf(out);
  SmallVector<Value> starts;
  for (auto [in, indices] : llvm::zip(inside, outIndices))
    starts.push_back(
        filled
            ? filled
            : select(
                  b, loc, in,
                  [&](OpBuilder &nested) -> Value {
                    return memref::LoadOp::create(nested, loc, out, indices);
                  },
                  arith::ConstantOp::create(b, loc, b.getZeroAttr(element))));
  return starts;
}

/// Replaces `op` (a matched contraction on buffers) by a tiled kernel that
/// also computes `epilogue` (fusableEpilogue's), if any.
void tile(linalg::LinalgOp op, const ContractionLayout &layout,
          linalg::GenericOp epilogue) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1],
        out = op.getDpsInits()[0];
  Type element = getElementTypeOrSelf(out);
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  Value filled;
  if (fill && fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == out &&
      fill.getDpsInputs()[0].getType() == element)
    filled = fill.getDpsInputs()[0];
  int64_t row = layout.batch, col = layout.batch + 1;
  Value m = canonicalSize(b, loc, layout, out, 2, row);
  Value n = canonicalSize(b, loc, layout, out, 2, col);
  Value k = canonicalSize(b, loc, layout, lhs, 0, col);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(1), threads = index(kThreads), depth = index(kDepth),
        blockTile = index(kBlockTile);
  Value batches = layout.batch ? canonicalSize(b, loc, layout, out, 2, 0) : one;
  // One grid dimension for all tiles: a GPU's grid may have 2^31 - 1
  // blocks in x, but only 65,535 in y and z (a matmul of over a million
  // rows, or batches).
  Value columnTiles = arith::CeilDivUIOp::create(b, loc, n, blockTile);
  Value rowTiles = arith::CeilDivUIOp::create(b, loc, m, blockTile);
  Value grid = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, columnTiles, rowTiles), batches);
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  // A's tile is kBlockTile rows of kDepth, B's kDepth rows of kBlockTile;
  // one more column each: the 16 threads that store a column of a tile (a
  // transposed operand's copy) then write 16 different banks, not one.
  auto tileType = [&](Value operand, int64_t rows, int64_t cols) {
    return MemRefType::get({rows, cols + 1}, getElementTypeOrSelf(operand),
                           MemRefLayoutAttrInterface(), workgroup);
  };
  auto launch = gpu::LaunchOp::create(
      b, loc, grid, one, one, threads, threads, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{},
      /*workgroupAttributions=*/
      TypeRange{tileType(lhs, kBlockTile, kDepth),
                tileType(rhs, kDepth, kBlockTile)});
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  Value lhsTile = launch.getWorkgroupAttributions()[0];
  Value rhsTile = launch.getWorkgroupAttributions()[1];
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  // The block's tile: its batch, row of tiles and column of tiles, the
  // column varying fastest.
  Value blockId = launch.getBlockIds().x;
  Value tileColumn = arith::RemUIOp::create(b, loc, blockId, columnTiles);
  Value rest = arith::DivUIOp::create(b, loc, blockId, columnTiles);
  Value tileRow = arith::RemUIOp::create(b, loc, rest, rowTiles);
  Value batch = arith::DivUIOp::create(b, loc, rest, rowTiles);
  Value zero = index(0);
  auto below = [&](Value x, Value bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, bound);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  // The thread's place in the tile, row ty + 16 r and column tx + 16 c for
  // r, c < kPerThread: neighbouring threads of a warp store neighbouring
  // elements of the output, and read neighbouring elements of B's tile.
  SmallVector<Value> offsets;
  for (int64_t r = 0; r < kPerThread; ++r)
    offsets.push_back(index(r * kThreads));
  Value i0 = arith::MulIOp::create(b, loc, tileRow, blockTile);
  Value j0 = arith::MulIOp::create(b, loc, tileColumn, blockTile);
  SmallVector<Value> tileRows, tileCols, rows, cols;
  for (Value offset : offsets) {
    tileRows.push_back(add(ty, offset));
    tileCols.push_back(add(tx, offset));
    rows.push_back(add(i0, tileRows.back()));
    cols.push_back(add(j0, tileCols.back()));
  }
  // The thread's outputs, row by row: whether each is inside the output,
  // and its indices.
  SmallVector<Value> rowIn, colIn, inside;
  for (auto [i, j] : llvm::zip(rows, cols)) {
    rowIn.push_back(below(i, m));
    colIn.push_back(below(j, n));
  }
  SmallVector<SmallVector<Value>> outIndices;
  for (auto [i, iIn] : llvm::zip(rows, rowIn))
    for (auto [j, jIn] : llvm::zip(cols, colIn)) {
      inside.push_back(arith::AndIOp::create(b, loc, iIn, jIn));
      outIndices.push_back(operandIndices(layout, 2, batch, i, j));
    }
  // A fill of the output just before (a matmul's zeros) is the sums'
  // start: the kernel stores every element of the output, so the fill
  // need not launch and write it first.
  SmallVector<Value> starts =
      startValues(b, loc, filled, out, inside, outIndices);

  auto loop = scf::ForOp::create(b, loc, zero, k, depth, starts);
  b.setInsertionPointToStart(loop.getBody());
  Value k0 = loop.getInductionVar();
  // The threads copy A's tile (rows i0.., columns k0..) and B's (rows
  // k0.., columns j0..) into shared memory.
  TileCopy copy{layout, batch, tx, ty, offsets};
  copy.copy(b, loc, 0, lhs, lhsTile, i0, m, k0, k, /*longRows=*/true);
  copy.copy(b, loc, 1, rhs, rhsTile, k0, k, j0, n, /*longRows=*/false);
  gpu::BarrierOp::create(b, loc);
  Value steps = arith::MinUIOp::create(b, loc, depth,
                                       arith::SubIOp::create(b, loc, k, k0));
  // Each sum adds its products in the order of k, to K at most: no
  // padding enters a sum. Sums of elements outside the output are
  // computed (from the tiles' zeros) and never stored.
  scf::ForOp products = addProducts(b, loc, op, lhsTile, rhsTile, tileRows,
                                    tileCols, steps, loop.getRegionIterArgs());
  // No thread overwrites the tiles before every thread has read them.
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, products.getResults());

  b.setInsertionPointAfter(loop);
  for (auto [in, indices, sum] :
       llvm::zip(inside, outIndices, loop.getResults())) {
    auto store = scf::IfOp::create(b, loc, in, /*withElseRegion=*/false);
    OpBuilder inner = store.getThenBodyBuilder();
    memref::StoreOp::create(inner, loc, sum, out, indices);
    if (epilogue)
      applyEpilogue(inner, epilogue, out, indices, sum);
  }
  if (epilogue)
    epilogue->erase();
  op->erase();
  if (filled)
    fill->erase();
}

struct TileGpuMatmuls : tad::impl::TileGpuMatmulsBase<TileGpuMatmuls> {
  void runOnOperation() override {
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    SmallVector<std::pair<linalg::LinalgOp, ContractionLayout>> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          !op.hasPureBufferSemantics() || op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<ContractionLayout> layout = tad::matchContraction(op))
        matmuls.push_back({op, *layout});
    });
    // Each epilogue is found before any matmul is rewritten (a matmul's
    // epilogue is never another matmul).
    SmallVector<linalg::GenericOp> epilogues;
    for (auto &[op, layout] : matmuls)
      epilogues.push_back(fusableEpilogue(op, aliases));
    for (auto [matmul, epilogue] : llvm::zip(matmuls, epilogues))
      tile(matmul.first, matmul.second, epilogue);
  }
};

} // namespace
