//===- TadAttrs.cpp - derivative requests and custom rules ----------------===//
//
// The attributes that tie functions together, and the verifier that checks
// them where they are attached: a derivative declaration must have exactly
// the type its request implies, and a custom rule's forward and pullback
// must fit its primal.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tad;

#define GET_ATTRDEF_CLASSES
#include "dialects/tad/TadAttrs.cpp.inc"

void TadDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tad/TadAttrs.cpp.inc"
      >();
}

static bool isScalarFloat(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         isa<FloatType>(tensor.getElementType());
}

std::string tad::getResultName(Operation *function, unsigned i) {
  if (auto name =
          cast<FunctionOpInterface>(function).getResultAttrOfType<StringAttr>(
              i, TadDialect::kResultNameAttrName))
    return name.str();
  return "result" + std::to_string(i);
}

std::string tad::getArgName(Operation *function, unsigned i) {
  if (auto name =
          cast<FunctionOpInterface>(function).getArgAttrOfType<StringAttr>(
              i, TadDialect::kArgNameAttrName))
    return name.str();
  return "arg" + std::to_string(i);
}

FailureOr<FunctionType>
tad::getDerivativeType(FunctionType primal, DerivativeKind kind,
                       ArrayRef<int64_t> wrt,
                       function_ref<InFlightDiagnostic()> emitError) {
  int64_t numInputs = primal.getNumInputs();
  llvm::SmallBitVector seen(numInputs);
  SmallVector<Type> cotangents;
  for (int64_t position : wrt) {
    if (position < 0 || position >= numInputs) {
      emitError() << "wrt position " << position
                  << " is not a parameter of a function with " << numInputs
                  << " parameters";
      return failure();
    }
    if (seen.test(position)) {
      emitError() << "wrt position " << position << " appears twice";
      return failure();
    }
    seen.set(position);
    cotangents.push_back(primal.getInput(position));
  }

  MLIRContext *context = primal.getContext();
  switch (kind) {
  case DerivativeKind::grad:
    if (primal.getNumResults() != 1 || !isScalarFloat(primal.getResult(0))) {
      emitError() << "grad needs a function that returns one float scalar; "
                     "use value_and_grad or vjp for several results";
      return failure();
    }
    return FunctionType::get(context, primal.getInputs(), cotangents);
  case DerivativeKind::value_and_grad: {
    if (primal.getNumResults() < 1 || !isScalarFloat(primal.getResult(0))) {
      emitError() << "value_and_grad needs a function whose first result is "
                     "a float scalar";
      return failure();
    }
    SmallVector<Type> results(primal.getResults());
    llvm::append_range(results, cotangents);
    return FunctionType::get(context, primal.getInputs(), results);
  }
  case DerivativeKind::vjp: {
    SmallVector<Type> inputs(primal.getInputs());
    llvm::append_range(inputs, primal.getResults());
    return FunctionType::get(context, inputs, cotangents);
  }
  }
  llvm_unreachable("unknown derivative kind");
}

LogicalResult
tad::verifyCustomRuleTypes(FunctionType primal, FunctionType forward,
                           FunctionType pullback, ArrayRef<int64_t> savedParams,
                           function_ref<InFlightDiagnostic()> emitError) {
  if (forward.getInputs() != primal.getInputs())
    return emitError() << "forward takes " << forward.getInputs()
                       << " but the primal takes " << primal.getInputs();
  unsigned numResults = primal.getNumResults();
  if (forward.getNumResults() < numResults ||
      forward.getResults().take_front(numResults) != primal.getResults())
    return emitError() << "forward must return the primal's results "
                       << primal.getResults()
                       << " before its saved values, but returns "
                       << forward.getResults();
  SmallVector<Type> expectedInputs(forward.getResults().drop_front(numResults));
  for (int64_t param : savedParams) {
    if (param < 0 || param >= int64_t(primal.getNumInputs()))
      return emitError() << "saved_params names parameter " << param
                         << " of a primal with " << primal.getNumInputs();
    expectedInputs.push_back(primal.getInput(param));
  }
  llvm::append_range(expectedInputs, primal.getResults());
  if (pullback.getInputs() != ArrayRef<Type>(expectedInputs))
    return emitError() << "pullback must take the saved values, the saved "
                          "parameters and one cotangent per primal result "
                       << TypeRange(expectedInputs) << ", but takes "
                       << pullback.getInputs();
  if (pullback.getResults() != primal.getInputs())
    return emitError() << "pullback must return one cotangent per primal "
                          "parameter "
                       << primal.getInputs() << ", but returns "
                       << pullback.getResults();
  return success();
}

/// Looks up the function `name` from `op`, reporting when there is none.
static func::FuncOp lookupFunction(Operation *op, FlatSymbolRefAttr name,
                                   StringRef role) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, name);
  if (!fn)
    op->emitOpError() << role << " " << name << " is not a function";
  return fn;
}

// The verifiers of the discardable attributes, one per kind, each given
// the attribute's name (some verify several) and value.

/// `op` is a `T` (`what`, as the error names it).
template <typename T>
static LogicalResult verifyOn(Operation *op, StringRef name, StringRef what) {
  if (isa<T>(op))
    return success();
  return op->emitOpError() << "'" << name << "' belongs on " << what;
}

static LogicalResult verifyUnit(Operation *op, StringRef name,
                                Attribute value) {
  if (isa<UnitAttr>(value))
    return success();
  return op->emitOpError() << "'" << name << "' must be a unit attribute";
}

/// tad.loop_snapshots and tad.reverse_reruns: counts on a loop.
static LogicalResult verifyLoopCount(Operation *op, StringRef name,
                                     Attribute value) {
  if (failed(verifyOn<scf::ForOp>(op, name, "an scf.for")))
    return failure();
  auto count = dyn_cast<IntegerAttr>(value);
  if (!count || count.getValue().isNegative())
    return op->emitOpError()
           << "'" << name << "' must be an integer of 0 or more, got "
           << value;
  return success();
}

static LogicalResult verifyLoopResiduals(Operation *op, StringRef name,
                                         Attribute value) {
  if (failed(verifyOn<scf::ForOp>(op, name, "an scf.for")))
    return failure();
  if (!isa<BoolAttr>(value))
    return op->emitOpError()
           << "'" << name << "' must be a boolean, got " << value;
  return success();
}

static LogicalResult verifyResidualRecompute(Operation *op, StringRef name,
                                             Attribute value) {
  if (failed(verifyOn<scf::ForOp>(op, name, "an scf.for")))
    return failure();
  auto share = dyn_cast<IntegerAttr>(value);
  if (!share || share.getValue().isNegative() || share.getInt() > 100)
    return op->emitOpError()
           << "'" << name
           << "' must be an integer percentage (0 to 100), got " << value;
  return success();
}

static LogicalResult verifyCaseCounts(Operation *op, StringRef name,
                                      Attribute value) {
  auto sw = dyn_cast<scf::IndexSwitchOp>(op);
  if (!sw)
    return op->emitOpError()
           << "'" << name << "' belongs on an scf.index_switch";
  auto counts = dyn_cast<DenseI64ArrayAttr>(value);
  if (!counts || counts.size() != int64_t(sw.getNumCases()) + 1 ||
      llvm::any_of(counts.asArrayRef(), [](int64_t n) { return n < 0; }))
    return op->emitOpError()
           << "'" << name << "' must be an array of " << sw.getNumCases() + 1
           << " counts of 0 or more (one per case, the default last), got "
           << value;
  // Directly in a loop of known trip count, the cases run that often.
  auto loop = dyn_cast<scf::ForOp>(sw->getParentOp());
  std::optional<APInt> trips = loop ? loop.getStaticTripCount() : std::nullopt;
  if (!trips)
    return success();
  int64_t sum = 0;
  bool overflow = false;
  for (int64_t n : counts.asArrayRef())
    overflow |= __builtin_add_overflow(sum, n, &sum);
  if (overflow || sum != trips->getSExtValue())
    return op->emitOpError()
           << "'" << name << "' must sum to the trip count of the loop "
           << "around it, " << trips->getSExtValue();
  return success();
}

/// tad.parallel, tad.scatter_loop and tad.scatter_loop_unique: marks on an
/// scf.for.
static LogicalResult verifyLoopMark(Operation *op, StringRef name,
                                    Attribute value) {
  if (failed(verifyOn<scf::ForOp>(op, name, "an scf.for")))
    return failure();
  return verifyUnit(op, name, value);
}

/// tad.parallel_range, tad.outlined and tad.buffer_peak_bound: marks on a
/// function.
static LogicalResult verifyFunctionMark(Operation *op, StringRef name,
                                        Attribute value) {
  if (failed(verifyOn<FunctionOpInterface>(op, name, "a function")))
    return failure();
  return verifyUnit(op, name, value);
}

static LogicalResult verifyNoaliasPointers(Operation *op, StringRef name,
                                           Attribute value) {
  if (failed(verifyOn<FunctionOpInterface>(op, name, "a function")))
    return failure();
  auto positions = dyn_cast<DenseI64ArrayAttr>(value);
  if (!positions || llvm::any_of(positions.asArrayRef(),
                                 [](int64_t i) { return i < 0; }))
    return op->emitOpError()
           << "'" << name << "' must be an array of argument positions";
  return success();
}

static LogicalResult verifyLoopChoiceMinimum(Operation *op, StringRef name,
                                             Attribute value) {
  if (failed(verifyOn<ModuleOp>(op, name, "a module")))
    return failure();
  auto bytes = dyn_cast<IntegerAttr>(value);
  if (!bytes || bytes.getInt() <= 0)
    return op->emitOpError()
           << "'" << name << "' must be a positive integer (bytes)";
  return success();
}

static LogicalResult verifyLoopSnapshotChoice(Operation *op, StringRef name,
                                              Attribute value) {
  if (failed(verifyOn<ModuleOp>(op, name, "a module")))
    return failure();
  auto loops = dyn_cast<ArrayAttr>(value);
  auto isLoop = [](Attribute a) {
    auto loop = dyn_cast<DictionaryAttr>(a);
    return loop && loop.getAs<StringAttr>("location") &&
           loop.getAs<IntegerAttr>("trips") &&
           loop.getAs<IntegerAttr>("snapshots") &&
           (!loop.get("residuals") || loop.getAs<BoolAttr>("residuals")) &&
           (!loop.get("residual_recompute") ||
            loop.getAs<IntegerAttr>("residual_recompute"));
  };
  if (!loops || !llvm::all_of(loops, isLoop))
    return op->emitOpError()
           << "'" << name
           << "' must be an array of {location, trips, snapshots} (and "
              "optionally a boolean residuals and an integer "
              "residual_recompute)";
  return success();
}

/// tad.buffer_peak and tad.budget: bytes on a function. The peak of a
/// function's planned buffers stays on it as it is lowered
/// (tad-buffer-peak), so that a driver can read it from the LLVM dialect;
/// so does the budget that tad-remat chose for it.
static LogicalResult verifyFunctionBytes(Operation *op, StringRef name,
                                         Attribute value) {
  if (failed(verifyOn<FunctionOpInterface>(op, name, "a function")))
    return failure();
  auto bytes = dyn_cast<IntegerAttr>(value);
  if (!bytes || bytes.getValue().isNegative())
    return op->emitOpError()
           << "'" << name << "' must be an integer of 0 or more";
  return success();
}

static LogicalResult verifyDerivative(Operation *op, StringRef name,
                                      Attribute value) {
  if (failed(verifyOn<func::FuncOp>(op, name, "a func.func")))
    return failure();
  auto fn = cast<func::FuncOp>(op);
  auto request = dyn_cast<DerivativeAttr>(value);
  if (!request)
    return op->emitOpError()
           << "'" << name << "' must be a #tad.derivative attribute";
  // A written derivative (one with a body) may outlive its primal: --entry
  // keeps only what the entry calls, and the derivative does not call its
  // primal.
  if (!fn.isDeclaration() && !SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                                 op, request.getPrimal()))
    return success();
  func::FuncOp primal = lookupFunction(op, request.getPrimal(), "primal");
  if (!primal)
    return failure();
  if (primal == fn)
    return op->emitOpError("is the derivative of itself");
  auto emitError = [&] { return op->emitOpError(); };
  FailureOr<FunctionType> expected =
      getDerivativeType(primal.getFunctionType(), request.getKind(),
                        request.getWrt(), emitError);
  if (failed(expected))
    return failure();
  if (*expected != fn.getFunctionType())
    return op->emitOpError("has type ")
           << fn.getFunctionType() << " but the requested derivative has type "
           << *expected;
  return success();
}

static LogicalResult verifyCustomRule(Operation *op, StringRef name,
                                      Attribute value) {
  if (failed(verifyOn<func::FuncOp>(op, name, "a func.func")))
    return failure();
  auto rule = dyn_cast<CustomRuleAttr>(value);
  if (!rule)
    return op->emitOpError()
           << "'" << name << "' must be a #tad.custom_rule attribute";
  func::FuncOp forward = lookupFunction(op, rule.getForward(), "forward");
  func::FuncOp pullback = lookupFunction(op, rule.getPullback(), "pullback");
  if (!forward || !pullback)
    return failure();
  auto emitError = [&] { return op->emitOpError(); };
  return verifyCustomRuleTypes(
      cast<func::FuncOp>(op).getFunctionType(), forward.getFunctionType(),
      pullback.getFunctionType(), rule.getSavedParams(), emitError);
}

static LogicalResult verifyCheckpointed(Operation *op, StringRef name,
                                        Attribute value) {
  if (failed(verifyOn<func::FuncOp>(op, name, "a func.func")))
    return failure();
  return verifyUnit(op, name, value);
}

static LogicalResult verifyHostPeaks(Operation *op, StringRef name,
                                     Attribute value) {
  auto peaks = dyn_cast<DenseI64ArrayAttr>(value);
  if (!peaks || peaks.size() != int64_t(op->getNumRegions()) ||
      op->getNumRegions() == 0)
    return op->emitOpError()
           << "'" << name << "' must be an array of i64, one per region";
  return success();
}

LogicalResult TadDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  using Verifier = LogicalResult (*)(Operation *, StringRef, Attribute);
  static constexpr std::pair<StringLiteral, Verifier> verifiers[] = {
      {kLoopSnapshotsAttrName, verifyLoopCount},
      {kReverseRerunsAttrName, verifyLoopCount},
      {kLoopResidualsAttrName, verifyLoopResiduals},
      {kLoopResidualRecomputeAttrName, verifyResidualRecompute},
      {kCaseCountsAttrName, verifyCaseCounts},
      {kParallelLoopAttrName, verifyLoopMark},
      {kScatterLoopAttrName, verifyLoopMark},
      {kScatterLoopUniqueAttrName, verifyLoopMark},
      {kParallelRangeAttrName, verifyFunctionMark},
      {kForwardAttrName, verifyUnit},
      {kTapeAttrName, verifyUnit},
      {kRecomputedAttrName, verifyUnit},
      {kOutlinedAttrName, verifyFunctionMark},
      {kNoaliasPointersAttrName, verifyNoaliasPointers},
      {kLoopChoiceMinimumAttrName, verifyLoopChoiceMinimum},
      {kLoopSnapshotChoiceAttrName, verifyLoopSnapshotChoice},
      {kBufferPeakAttrName, verifyFunctionBytes},
      {kBufferPeakBoundAttrName, verifyFunctionMark},
      {kBudgetAttrName, verifyFunctionBytes},
      {kDerivativeAttrName, verifyDerivative},
      {kCustomRuleAttrName, verifyCustomRule},
      {kCheckpointedAttrName, verifyCheckpointed},
      {kHostPeaksAttrName, verifyHostPeaks},
  };
  StringRef name = attr.getName().getValue();
  for (const auto &[known, verify] : verifiers)
    if (name == known)
      return verify(op, name, attr.getValue());
  return op->emitOpError() << "unknown tad attribute '" << name << "'";
}
