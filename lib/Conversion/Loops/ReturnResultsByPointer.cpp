//===- ReturnResultsByPointer.cpp - wide results written through a pointer ===//
//
// The conversion to the LLVM dialect returns a function's results as one
// struct of their descriptors, built by a chain of `llvm.insertvalue`s, one
// per result. Each link of that chain is, to LLVM, a whole new aggregate:
// instruction selection splits every link into all of the struct's scalars
// (five per rank-1 descriptor), and IPSCCP keeps a lattice value for each
// scalar of each link. For a record of N fields that is N links of 5N
// scalars: the identity on a 2,000-field record took 3.2 s and 0.87 GB to
// compile, on 5,000 fields 38 s and 3.2 GB (bench/compile/scale.py).
//
// A function with more than kMaxReturnedMembers results instead takes a
// pointer to a struct of that type as its first argument, stores each
// result's descriptor into its member, and returns nothing: the C ABI's
// `sret`, made before LLVM sees the aggregate. A caller that only stores
// the result (the C interface `_mlir_ciface_f`, through its own result
// pointer) passes its destination along; any other caller passes a stack
// slot and loads each member it extracts.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tad {
#define GEN_PASS_DEF_RETURNRESULTSBYPOINTER
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

/// Results above which a function returns them through a pointer. Few
/// results are faster in registers, and every program but a wide record's
/// has few.
static constexpr unsigned kMaxReturnedMembers = 16;

/// The struct a function of `type` returns, when it is wide.
static LLVM::LLVMStructType getWideResult(LLVM::LLVMFunctionType type) {
  auto result = dyn_cast<LLVM::LLVMStructType>(type.getReturnType());
  if (!result || result.isOpaque() ||
      result.getBody().size() <= kMaxReturnedMembers)
    return nullptr;
  return result;
}

/// A constant-index GEP into `base`, an object of `type`.
static Value createMemberAddress(OpBuilder &b, Location loc, Type type,
                                 Value base, ArrayRef<int64_t> position) {
  SmallVector<LLVM::GEPArg> indices = {0};
  for (int64_t index : position)
    indices.push_back(static_cast<int32_t>(index));
  return LLVM::GEPOp::create(b, loc, base.getType(), type, base, indices,
                             LLVM::GEPNoWrapFlags::inbounds);
}

/// Replaces `ret` by stores of its value's members through `out`, reading
/// them off the chain of insertvalues that built it, and erases the chain.
static void storeReturnedMembers(LLVM::ReturnOp ret, Value out,
                                 LLVM::LLVMStructType type) {
  OpBuilder b(ret);
  Location loc = ret.getLoc();
  SmallVector<Value> members(type.getBody().size());
  Value base = ret.getArg();
  while (auto insert = base.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition().size() != 1)
      break;
    Value &member = members[insert.getPosition()[0]];
    // The last insert of a member is the one the chain ends with.
    if (!member)
      member = insert.getValue();
    base = insert.getContainer();
  }
  bool baseUndefined =
      isa_and_nonnull<LLVM::PoisonOp, LLVM::UndefOp>(base.getDefiningOp());
  for (auto [index, member] : llvm::enumerate(members)) {
    if (!member && baseUndefined)
      continue;
    if (!member)
      member = LLVM::ExtractValueOp::create(
          b, loc, base, ArrayRef<int64_t>{static_cast<int64_t>(index)});
    Value address =
        createMemberAddress(b, loc, type, out, {static_cast<int64_t>(index)});
    LLVM::StoreOp::create(b, loc, member, address);
  }
  Value chain = ret.getArg();
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  ret.erase();
  while (auto insert = chain.getDefiningOp<LLVM::InsertValueOp>()) {
    if (!insert->use_empty())
      break;
    chain = insert.getContainer();
    insert.erase();
  }
  if (Operation *undefined = chain.getDefiningOp())
    if (isa<LLVM::PoisonOp, LLVM::UndefOp>(undefined) && undefined->use_empty())
      undefined->erase();
}

/// Gives `function` an out pointer for its wide `result` in place of
/// returning it.
static void returnThroughPointer(LLVM::LLVMFuncOp function,
                                 LLVM::LLVMStructType result) {
  MLIRContext *context = function.getContext();
  auto pointer = LLVM::LLVMPointerType::get(context);
  LLVM::LLVMFunctionType type = function.getFunctionType();
  SmallVector<Type> parameters = {pointer};
  llvm::append_range(parameters, type.getParams());
  function.setFunctionType(LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), parameters, type.isVarArg()));
  // The result memory is the caller's, written only here: noalias, as
  // `sret` is.
  SmallVector<Attribute> argAttrs = {DictionaryAttr::get(
      context, {NamedAttribute(LLVM::LLVMDialect::getNoAliasAttrName(),
                               UnitAttr::get(context))})};
  for (unsigned i = 0; i < type.getNumParams(); ++i)
    argAttrs.push_back(function.getArgAttrDict(i)
                           ? function.getArgAttrDict(i)
                           : DictionaryAttr::get(context));
  function.setAllArgAttrs(argAttrs);
  function.removeResAttrsAttr();
  Value out =
      function.getBody().front().insertArgument(0u, pointer, function.getLoc());
  SmallVector<LLVM::ReturnOp> returns;
  function.walk([&](LLVM::ReturnOp ret) { returns.push_back(ret); });
  for (LLVM::ReturnOp ret : returns)
    storeReturnedMembers(ret, out, result);
}

/// Where `call`'s result goes when all it does is get stored through a
/// `noalias` argument of the caller's (the C interface's result pointer):
/// that pointer, which the callee can then write itself.
static Value getStoredDestination(LLVM::CallOp call) {
  if (!call.getResult().hasOneUse())
    return nullptr;
  auto store = dyn_cast<LLVM::StoreOp>(*call.getResult().user_begin());
  if (!store || store.getValue() != call.getResult() || store.getVolatile_() ||
      store->getBlock() != call->getBlock())
    return nullptr;
  auto argument = dyn_cast<BlockArgument>(store.getAddr());
  auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
  if (!argument || argument.getOwner() != &caller.getBody().front() ||
      !caller.getArgAttr(argument.getArgNumber(),
                         LLVM::LLVMDialect::getNoAliasAttrName()))
    return nullptr;
  // Nothing between the call and the store may read that memory.
  for (Operation *op = call->getNextNode(); op != store; op = op->getNextNode())
    if (!isa<LLVM::ExtractValueOp, LLVM::ConstantOp>(op))
      return nullptr;
  return argument;
}

/// Rewrites `call` of a function that now writes its wide `result` through
/// its first argument.
static void rewriteCall(LLVM::CallOp call, LLVM::LLVMFuncOp callee,
                        LLVM::LLVMStructType result) {
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value out = getStoredDestination(call);
  Operation *storeToErase = out ? *call.getResult().user_begin() : nullptr;
  if (!out) {
    auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
    OpBuilder entry = OpBuilder::atBlockBegin(&caller.getBody().front());
    Value one = LLVM::ConstantOp::create(entry, loc, entry.getI64Type(), 1);
    out = LLVM::AllocaOp::create(
        entry, loc, LLVM::LLVMPointerType::get(call.getContext()), result, one);
  }
  SmallVector<Value> operands = {out};
  llvm::append_range(operands, call.getArgOperands());
  LLVM::CallOp::create(b, loc, callee, operands);
  if (storeToErase)
    storeToErase->erase();
  // Each member read is a load of that member.
  for (Operation *user :
       llvm::make_early_inc_range(call.getResult().getUsers())) {
    auto extract = dyn_cast<LLVM::ExtractValueOp>(user);
    if (!extract)
      continue;
    OpBuilder at(extract);
    Value address = createMemberAddress(at, extract.getLoc(), result, out,
                                        extract.getPosition());
    extract.replaceAllUsesWith(
        LLVM::LoadOp::create(at, extract.getLoc(), extract.getType(), address)
            .getResult());
    extract.erase();
  }
  if (!call.getResult().use_empty())
    call.getResult().replaceAllUsesWith(
        LLVM::LoadOp::create(b, loc, result, out).getResult());
  call.erase();
}

namespace {
struct ReturnResultsByPointer
    : tad::impl::ReturnResultsByPointerBase<ReturnResultsByPointer> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only an internal function whose every use is a direct call can
    // change its signature (tad-annotate-llvm-functions makes those with a
    // C interface internal).
    DenseSet<StringAttr> addressTaken;
    DenseMap<StringAttr, SmallVector<LLVM::CallOp>> calls;
    module.walk([&](Operation *op) {
      if (auto call = dyn_cast<LLVM::CallOp>(op)) {
        if (FlatSymbolRefAttr callee = call.getCalleeAttr())
          calls[callee.getAttr()].push_back(call);
      } else if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
        addressTaken.insert(address.getGlobalNameAttr().getAttr());
      }
    });
    for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
      LLVM::LLVMStructType result = getWideResult(function.getFunctionType());
      if (!result || function.isExternal() ||
          addressTaken.contains(function.getSymNameAttr()) ||
          function.getLinkage() != LLVM::Linkage::Internal)
        continue;
      returnThroughPointer(function, result);
      for (LLVM::CallOp call : calls.lookup(function.getSymNameAttr()))
        rewriteCall(call, function, result);
    }
  }
};
} // namespace
