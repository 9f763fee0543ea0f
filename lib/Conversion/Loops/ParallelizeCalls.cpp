//===- ParallelizeCalls.cpp - loop nests on the runtime's threads ---------===//
//
// tad-outline-loop-nests gives a nest whose outer iterations are
// independent the range of that loop as its last two arguments
// (`tad.parallel_range`). Here, in the LLVM dialect, each call of such a
// function becomes
//
//   tad_rt_parallel_for(NAME_task, context, lo, hi)
//
// where `context` is a struct on the caller's stack holding the call's other
// arguments that NAME reads and NAME_task(context, lo, hi) loads them and
// calls NAME on its part of the range. The runtime (runtime/lib/Parallel.cpp)
// splits the range over its threads, or runs it whole when it has one.
//
// It is done after the conversion to LLVM because only there is a function's
// address a value that can be passed to C, and a memref argument a few
// scalars that a struct can hold.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace tad {
#define GEN_PASS_DEF_PARALLELIZECALLS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kParallelFor = "tad_rt_parallel_for";

struct ParallelizeCalls : tad::impl::ParallelizeCallsBase<ParallelizeCalls> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      FlatSymbolRefAttr callee = call.getCalleeAttr();
      auto function = callee
                          ? symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue())
                          : LLVM::LLVMFuncOp();
      if (function &&
          function->hasAttr(tad::TadDialect::kParallelRangeAttrName))
        calls.push_back(call);
    });
    DenseMap<Operation *, LLVM::LLVMFuncOp> tasks;
    for (LLVM::CallOp call : calls) {
      auto callee = symbols.lookup<LLVM::LLVMFuncOp>(call.getCallee().value());
      LLVM::LLVMFuncOp &task = tasks[callee];
      if (!task)
        task = createTask(callee, symbols);
      rewrite(call, task, symbols);
    }
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      function->removeAttr(tad::TadDialect::kParallelRangeAttrName);
  }

  /// The positions of `callee`'s arguments that the context carries: those
  /// but its range that its body uses. A memref of a static shape is five
  /// or more scalars of which the body reads one pointer (its sizes and
  /// strides are constants there), and storing the others at every call
  /// made a transformer gradient's function six times as long.
  static SmallVector<unsigned> getCarried(LLVM::LLVMFuncOp callee) {
    SmallVector<unsigned> carried;
    for (unsigned i = 0, e = callee.getNumArguments() - 2; i < e; ++i)
      if (!callee.getArgument(i).use_empty())
        carried.push_back(i);
    return carried;
  }

  /// The struct of the carried arguments.
  static LLVM::LLVMStructType getContextType(LLVM::LLVMFuncOp callee) {
    ArrayRef<Type> params = callee.getFunctionType().getParams();
    SmallVector<Type> fields;
    for (unsigned i : getCarried(callee))
      fields.push_back(params[i]);
    return LLVM::LLVMStructType::getLiteral(callee.getContext(), fields);
  }

  /// NAME_task(context, lo, hi): NAME(the context's fields..., lo, hi).
  LLVM::LLVMFuncOp createTask(LLVM::LLVMFuncOp callee, SymbolTable &symbols) {
    MLIRContext *context = callee.getContext();
    Location loc = callee.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                            {pointer, i64, i64});
    OpBuilder b(callee);
    auto task =
        LLVM::LLVMFuncOp::create(b, loc, (callee.getName() + "_task").str(),
                                 type, LLVM::Linkage::Internal);
    symbols.insert(task);
    Block *entry = task.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    LLVM::LLVMStructType fields = getContextType(callee);
    ArrayRef<Type> params = callee.getFunctionType().getParams();
    // The arguments the body does not read are poison.
    SmallVector<Value> arguments;
    for (Type param : params.drop_back(2))
      arguments.push_back(LLVM::PoisonOp::create(b, loc, param));
    for (auto [field, i] : llvm::enumerate(getCarried(callee))) {
      Value address = LLVM::GEPOp::create(
          b, loc, pointer, fields, entry->getArgument(0),
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(field)});
      arguments[i] = LLVM::LoadOp::create(b, loc, params[i], address);
    }
    arguments.append({entry->getArgument(1), entry->getArgument(2)});
    LLVM::CallOp::create(b, loc, callee, arguments);
    LLVM::ReturnOp::create(b, loc, ValueRange());
    return task;
  }

  LLVM::LLVMFuncOp getOrDeclareRuntime(SymbolTable &symbols) {
    if (auto function = symbols.lookup<LLVM::LLVMFuncOp>(kParallelFor))
      return function;
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                            {pointer, pointer, i64, i64});
    OpBuilder b = OpBuilder::atBlockEnd(getOperation().getBody());
    auto function = LLVM::LLVMFuncOp::create(b, getOperation().getLoc(),
                                             kParallelFor, type);
    symbols.insert(function);
    return function;
  }

  void rewrite(LLVM::CallOp call, LLVM::LLVMFuncOp task, SymbolTable &symbols) {
    auto callee = symbols.lookup<LLVM::LLVMFuncOp>(call.getCallee().value());
    MLIRContext *context = &getContext();
    Location loc = call.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(context);
    LLVM::LLVMStructType fields = getContextType(callee);
    // The struct lives in the caller's frame: an alloca at its entry, so
    // that a call in a loop does not grow the stack.
    auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
    OpBuilder b = OpBuilder::atBlockBegin(&caller.getBody().front());
    Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
    Value frame = LLVM::AllocaOp::create(b, loc, pointer, fields, one);
    b.setInsertionPoint(call);
    ValueRange operands = call.getArgOperands();
    for (auto [field, i] : llvm::enumerate(getCarried(callee))) {
      Value address = LLVM::GEPOp::create(
          b, loc, pointer, fields, frame,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(field)});
      LLVM::StoreOp::create(b, loc, operands[i], address);
    }
    Value function = LLVM::AddressOfOp::create(b, loc, task);
    LLVM::CallOp::create(b, loc, getOrDeclareRuntime(symbols),
                         ValueRange{function, frame,
                                    operands[operands.size() - 2],
                                    operands.back()});
    call.erase();
  }
};

} // namespace
