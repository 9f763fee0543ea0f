//===- BufferPeak.cpp - the peak of a function's planned buffers ----------===//
//
// Runs a function's allocations and frees as the compiled code will: loops
// for their trip counts, branches on their conditions when these are known
// at compile time (constants, induction variables, and loads from constant
// tables; a revolve dispatcher computes its actions from carried values,
// so all its cases count), and the
// larger side otherwise. A loop whose body does not depend on its induction
// variable repeats the same pattern, so one iteration stands for all; a
// loop of more than 2^20 iterations is one iteration of any induction value.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/BufferPeak.h"
#include "tad/Conversion/RuntimeFunctions.h"
#include "tad/Transforms/IndexArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace tad;

llvm::SetVector<Value> tad::getBufferAndViews(Value buffer) {
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == aliases[i])
          for (Value result : user->getResults())
            aliases.insert(result);
  return aliases;
}

namespace {

class Simulator {
public:
  explicit Simulator(BufferPeakAnalysis &analysis) : analysis(analysis) {}

  /// Records every allocation and free into `events`, up to `maxEvents`;
  /// loops then run every iteration and calls run their callee's body
  /// (until the trace is full).
  void traceInto(std::vector<BufferEvent> &events, size_t maxEvents) {
    trace = &events;
    traceLimit = maxEvents;
  }
  bool traceTruncated = false;

  LogicalResult runBlock(Block &block) {
    for (Operation &op : block)
      if (failed(runOp(op)))
        return failure();
    return success();
  }

  int64_t live = 0, peak = 0;
  bool exact = true;

private:
  void allocate(int64_t bytes, Location loc) {
    live += bytes;
    peak = std::max(peak, live);
    record(bytes, loc);
  }

  void record(int64_t bytes, Location loc) {
    if (!trace)
      return;
    if (trace->size() >= traceLimit) {
      traceTruncated = true;
      return;
    }
    trace->push_back({bytes, live, loc});
  }

  /// Where the buffer that `buffer` (or the buffer it views) holds was
  /// allocated, as far as the trace followed it through loops, branches
  /// and calls; else the location of its producer, or `otherwise`.
  Location allocationOf(Value buffer, Location otherwise) {
    buffer = tad::getViewedBuffer(buffer);
    if (auto it = allocatedAt.find(buffer); it != allocatedAt.end())
      return it->second;
    Operation *producer = buffer.getDefiningOp();
    return producer ? producer->getLoc() : otherwise;
  }

  /// While tracing: `to` hold the buffers of `from` (a loop's carried
  /// values, a region's results, a callee's arguments).
  void bindAllocations(ValueRange to, ValueRange from) {
    if (!trace)
      return;
    SmallVector<Location> locations;
    for (Value v : from)
      locations.push_back(allocationOf(v, v.getLoc()));
    for (auto [value, loc] : llvm::zip(to, locations))
      allocatedAt.insert_or_assign(value, loc);
  }

  /// Whether events are still being recorded: simulation shortcuts
  /// (repeated iterations, a callee's known peak) would skip them.
  bool tracing() const { return trace && trace->size() < traceLimit; }

  static bool allocatesInside(Operation &op) {
    return op
        .walk([](Operation *inner) {
          if (auto call = dyn_cast<func::CallOp>(inner)) {
            auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr());
            return callee && callee.isDeclaration() ? WalkResult::advance()
                                                    : WalkResult::interrupt();
          }
          return isa<memref::AllocOp, memref::DeallocOp>(inner)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  LogicalResult runOp(Operation &op) {
    // A GPU kernel's scratch (a long reduction's partial results) is not
    // the plan's: the allocator counts it apart and records no event.
    if (tad::isScratchAllocation(&op))
      return success();
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      if (tad::isScratchAllocation(
              tad::getViewedBuffer(dealloc.getMemref()).getDefiningOp()))
        return success();
    // A kernel (a GPU target's loop nest or launch, perhaps behind a test
    // of whether it has threads, or of whether cuBLAS is there) allocates
    // nothing, and nor does any other op whose regions neither allocate,
    // free nor call the program's functions (the runtime's allocate
    // nothing that the plan counts): its sides need not be simulated.
    if (op.getNumRegions() != 0 && !allocatesInside(op))
      return success();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      int64_t bytes = getMemRefByteSize(alloc.getType());
      if (bytes < 0)
        return op.emitOpError("has a dynamic size, which the buffer plan "
                              "cannot count");
      allocate(bytes, alloc.getLoc());
      if (trace)
        allocatedAt.insert_or_assign(alloc.getResult(), alloc.getLoc());
      return success();
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      Value buffer = tad::getViewedBuffer(dealloc.getMemref());
      int64_t bytes = getMemRefByteSize(buffer.getType());
      live -= bytes;
      record(-bytes, allocationOf(buffer, dealloc.getLoc()));
      return success();
    }
    if (auto call = dyn_cast<func::CallOp>(op))
      return runCall(call);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runLoop(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      std::optional<int64_t> cond = evaluate(branch.getCondition());
      SmallVector<Region *> sides;
      if (cond)
        sides.push_back(*cond ? &branch.getThenRegion()
                              : &branch.getElseRegion());
      else
        sides = {&branch.getThenRegion(), &branch.getElseRegion()};
      return runOneOf(&op, sides);
    }
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
      SmallVector<Region *> sides;
      if (std::optional<int64_t> arg = evaluate(sw.getArg())) {
        const auto *it = llvm::find(sw.getCases(), *arg);
        sides.push_back(it == sw.getCases().end()
                            ? &sw.getDefaultRegion()
                            : &sw.getCaseRegions()[it - sw.getCases().begin()]);
      } else {
        for (Region &region : sw->getRegions())
          sides.push_back(&region);
      }
      return runOneOf(&op, sides);
    }
    // Any other region (a linalg body) runs as one.
    for (Region &region : op.getRegions())
      for (Block &block : region)
        if (failed(runBlock(block)))
          return failure();
    return success();
  }

  LogicalResult runCall(func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isDeclaration())
      return success(); // the runtime's own functions allocate nothing
    FailureOr<BufferPeak> inner = analysis.getPeak(callee);
    if (failed(inner))
      return failure();
    // Traced, the callee's own events are the call's (getPeak has ruled
    // out recursion); induction values of the caller do not reach it.
    if (tracing()) {
      DenseMap<Value, int64_t> outerValues, outerUses;
      std::swap(values, outerValues);
      std::swap(useCount, outerUses);
      Block &body = callee.getBody().front();
      bindAllocations(body.getArguments(), call.getOperands());
      LogicalResult result = runBlock(body);
      bindAllocations(call.getResults(), body.getTerminator()->getOperands());
      std::swap(values, outerValues);
      std::swap(useCount, outerUses);
      exact &= inner->exact;
      return result;
    }
    peak = std::max(peak, live + inner->peak);
    live += inner->liveAtReturn;
    exact &= inner->exact;
    return success();
  }

  /// Runs the one of `sides` that runs, or each of them from the same state
  /// when that is not known: then the larger peak and the larger remainder
  /// count.
  LogicalResult runOneOf(Operation *op, ArrayRef<Region *> sides) {
    if (sides.size() > 1)
      exact = false;
    int64_t start = live, after = 0, most = peak;
    // Traced, the events of the side with the largest peak are kept.
    size_t traceStart = trace ? trace->size() : 0;
    std::vector<BufferEvent> largest;
    int64_t largestPeak = -1;
    for (Region *side : sides) {
      live = start;
      int64_t outer = peak;
      peak = live;
      if (!side->empty() && failed(runBlock(side->front())))
        return failure();
      after = std::max(after, live);
      if (trace && peak > largestPeak) {
        largestPeak = peak;
        largest.assign(trace->begin() + traceStart, trace->end());
        if (!side->empty())
          bindAllocations(op->getResults(),
                          side->front().getTerminator()->getOperands());
      }
      if (trace)
        trace->erase(trace->begin() + traceStart, trace->end());
      most = std::max({most, outer, peak});
    }
    if (trace)
      trace->insert(trace->end(), largest.begin(), largest.end());
    live = sides.empty() ? start : after;
    peak = most;
    return success();
  }

  LogicalResult runLoop(scf::ForOp loop) {
    std::optional<int64_t> lower = evaluate(loop.getLowerBound()),
                           upper = evaluate(loop.getUpperBound()),
                           step = evaluate(loop.getStep());
    Block &body = *loop.getBody();
    Value iv = loop.getInductionVar();
    // Beyond this many iterations, simulating each one would take time
    // that grows with the trip count (a time-stepping loop of 10^9 steps):
    // such a loop is run as one iteration of any induction value, both
    // sides of each branch on it, which must leave memory as it found it.
    constexpr int64_t kMaxSimulatedTrips = int64_t(1) << 20;
    bool tooLong = lower && upper && step && *step > 0 &&
                   (*upper - *lower) / *step > kMaxSimulatedTrips;
    if (!lower || !upper || !step || *step <= 0 || tooLong) {
      // One iteration, which must leave memory as it found it.
      exact = false;
      int64_t start = live;
      if (failed(runBlock(body)))
        return failure();
      if (live != start)
        return tooLong ? loop.emitOpError()
                             << "has more iterations than the buffer plan "
                                "simulates one by one ("
                             << kMaxSimulatedTrips
                             << ") and iterations that change the live bytes"
                       : loop.emitOpError(
                             "has a trip count that is not a constant and "
                             "iterations that change the live bytes");
      return success();
    }
    int64_t outerPeak = peak;
    bindAllocations(loop.getRegionIterArgs(), loop.getInitArgs());
    for (int64_t i = *lower; i < *upper; i += *step) {
      if (i != *lower)
        bindAllocations(loop.getRegionIterArgs(),
                        body.getTerminator()->getOperands());
      values[iv] = i;
      int64_t uses = useCount[iv];
      int64_t start = live;
      peak = live;
      if (failed(runBlock(body)))
        return failure();
      outerPeak = std::max(outerPeak, peak);
      int64_t left = (*upper - i - 1) / *step; // iterations after this one
      if (useCount[iv] == uses && left > 0 && !tracing()) {
        // The rest repeat this one, each `delta` higher than the last.
        int64_t delta = live - start;
        outerPeak = std::max(outerPeak, peak + left * delta);
        live += left * delta;
        break;
      }
    }
    bindAllocations(loop.getResults(), *lower < *upper
                                           ? body.getTerminator()->getOperands()
                                           : loop.getInitArgs());
    peak = outerPeak;
    values.erase(iv);
    useCount.erase(iv);
    return success();
  }

  /// The value of an integer or index `v` where it is a constant, an
  /// induction variable, or computed from those (comparisons, sums, loads
  /// from constant tables).
  std::optional<int64_t> evaluate(Value v) {
    if (auto it = values.find(v); it != values.end()) {
      ++useCount[v];
      return it->second;
    }
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return constant.getSExtValue();
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (std::optional<int64_t> folded = evaluateIndexArithmetic(
            op, [&](Value operand) { return evaluate(operand); }))
      return folded;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return evaluateLoad(load);
    return std::nullopt;
  }

  /// An element of a constant global (a table of actions or indices).
  std::optional<int64_t> evaluateLoad(memref::LoadOp load) {
    auto get = load.getMemref().getDefiningOp<memref::GetGlobalOp>();
    if (!get)
      return std::nullopt;
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        load, get.getNameAttr());
    if (!global || !global.getConstant())
      return std::nullopt;
    auto table =
        dyn_cast_or_null<DenseIntElementsAttr>(global.getInitialValueAttr());
    if (!table)
      return std::nullopt;
    SmallVector<uint64_t> index;
    for (Value i : load.getIndices()) {
      std::optional<int64_t> at = evaluate(i);
      if (!at || *at < 0)
        return std::nullopt;
      index.push_back(uint64_t(*at));
    }
    if (!table.isValidIndex(index))
      return std::nullopt;
    return table.getValues<APInt>()[index].getSExtValue();
  }

  BufferPeakAnalysis &analysis;
  /// Where events are recorded (none: not traced), and how many at most.
  std::vector<BufferEvent> *trace = nullptr;
  size_t traceLimit = 0;
  /// While tracing: where the buffer each memref value holds was allocated.
  DenseMap<Value, Location> allocatedAt;
  /// The induction variables of the loops running, and how often each has
  /// been read (an iteration that reads none repeats the previous one).
  DenseMap<Value, int64_t> values, useCount;
};

} // namespace

FailureOr<std::vector<BufferEvent>>
tad::traceBuffers(func::FuncOp func, size_t maxEvents, bool &truncated) {
  BufferPeakAnalysis analysis;
  if (failed(analysis.getPeak(func)))
    return failure();
  std::vector<BufferEvent> events;
  Simulator simulator(analysis);
  simulator.traceInto(events, maxEvents);
  if (!func.isDeclaration() &&
      failed(simulator.runBlock(func.getBody().front())))
    return failure();
  truncated = simulator.traceTruncated;
  return events;
}

FailureOr<BufferPeak> BufferPeakAnalysis::getPeak(func::FuncOp func) {
  if (auto it = known.find(func); it != known.end())
    return it->second;
  if (inProgress.lookup(func))
    return func.emitOpError("calls itself, so its buffer peak is unbounded");
  inProgress[func] = true;
  Simulator simulator(*this);
  LogicalResult result = func.isDeclaration()
                             ? success()
                             : simulator.runBlock(func.getBody().front());
  inProgress.erase(func);
  if (failed(result))
    return failure();
  BufferPeak peak{simulator.peak, simulator.live, simulator.exact};
  known[func] = peak;
  return peak;
}
