//===- Optimize.cpp - LLVM's -O3 pipeline, sized for tad's modules --------===//
//
// LLVM's -O3 pipeline, as mlir::makeOptimizingTransformer builds it, with
// three passes left out where their time grows faster than the program and
// they find nothing to do:
//
// - CalledValuePropagation, which annotates indirect calls with their
//   possible callees. tad's code makes none that it could resolve (the
//   runtime's thread pool calls the outlined nests' tasks, in another
//   library), and the pass's lattice over every argument of the program's
//   function (five values per memref descriptor: 2400 for the gradient of
//   a 200-layer MLP) took 0.45 of the 1.15 s that -O3 spent on that module.
// - Dead store elimination in a function of thousands of instructions: the
//   program's function after tad-outline-loop-nests, a sequence of calls
//   with the memref descriptors between them. On that module it took 0.37 s
//   (`opt -O3 -time-passes`), walking MemorySSA over stores that are all
//   read by the calls that follow them. The outlined loop nests, the code
//   that runs long, are small functions and keep it.
// - SLP vectorization and GVN in such a function: on the gradient of the
//   sum of a 5,000-field record (two entries of 45,000 and 70,000
//   instructions), 0.69 and 0.65 s (`opt -O3 -time-passes`), and 1.6 s of
//   its 11.3 s compile. The entry's code is generated at -O0 afterwards
//   (QuickCodegen.cpp), its time is in the calls it makes, and the
//   outlined loop nests, short, keep both.
// - Interprocedural constant propagation (IPSCCP) in a module with such a
//   function: 0.09 s at 200 layers, 0.33 s at 400. Skipped in every
//   module, it left the machine code of bench/memory's transformer and of
//   every example byte for byte the same.
//
// A function of many pointer parameters that it only reads through (a
// record's entry point, a descriptor per field) has them marked readonly
// and captures(none) before the pipeline, in one attribute list:
// PostOrderFunctionAttrs infers the same, but adds each to the list in
// turn, copying it: time quadratic in the parameters (1.1 s of the 12 s
// compile of a 5,000-field record's gradient).
//
// Without the first two, -O3 took 0.75 s instead of 1.90 s on that module
// (`opt -passes` with the same pipeline, docs/compile-time.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/Optimize.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

/// Whether `module` defines a function of kLongFunctionInstructions or more.
static bool hasLongFunction(const llvm::Module &module) {
  return llvm::any_of(module, [](const llvm::Function &f) {
    return f.getInstructionCount() >= tad::driver::kLongFunctionInstructions;
  });
}

void tad::driver::markReadOnlyParameters(llvm::Function &f) {
  if (f.isDeclaration() || f.arg_size() < kWideParameters)
    return;
  llvm::LLVMContext &context = f.getContext();
  llvm::AttributeList attrs = f.getAttributes();
  llvm::SmallVector<llvm::AttributeSet> params;
  bool changed = false;
  for (llvm::Argument &arg : f.args()) {
    llvm::AttributeSet set = attrs.getParamAttrs(arg.getArgNo());
    bool onlyLoaded =
        arg.getType()->isPointerTy() && !arg.use_empty() &&
        llvm::all_of(arg.uses(), [](const llvm::Use &use) {
          auto *load = llvm::dyn_cast<llvm::LoadInst>(use.getUser());
          return load && !load->isVolatile();
        });
    // (writeonly with loads is wrong IR: the verifier's to report.)
    if (onlyLoaded && !(arg.onlyReadsMemory() && arg.hasNoCaptureAttr()) &&
        !set.hasAttribute(llvm::Attribute::WriteOnly)) {
      llvm::AttrBuilder builder(context, set);
      builder.addAttribute(llvm::Attribute::ReadOnly);
      builder.addCapturesAttr(llvm::CaptureInfo::none());
      set = llvm::AttributeSet::get(context, builder);
      changed = true;
    }
    params.push_back(set);
  }
  if (changed)
    f.setAttributes(llvm::AttributeList::get(context, attrs.getFnAttrs(),
                                             attrs.getRetAttrs(), params));
}

llvm::Error tad::driver::optimizeModule(llvm::Module &module,
                                        llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks callbacks;
  callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass,
                                                     llvm::Any ir) {
    if (pass == "CalledValuePropagationPass")
      return false;
    if (pass == "IPSCCPPass")
      if (const auto *const *m = llvm::any_cast<const llvm::Module *>(&ir))
        return !hasLongFunction(**m);
    if (pass == "DSEPass" || pass == "SLPVectorizerPass" || pass == "GVNPass")
      if (const auto *const *f = llvm::any_cast<const llvm::Function *>(&ir))
        return (*f)->getInstructionCount() < kLongFunctionInstructions;
    return true;
  });
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  for (llvm::Function &f : module)
    markReadOnlyParameters(f);
  passes.run(module, mam);
  return llvm::Error::success();
}
