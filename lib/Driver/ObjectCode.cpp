//===- ObjectCode.cpp - the module's machine code, on several threads -----===//
//
// emitObjectFiles: the LLVM-dialect module translated to LLVM IR, optimized
// (-O3) and compiled for the host into one or more object files, which a
// library, an executable or `--emit=obj` links.
//
// Two ways to use the cores:
//   - A module of independent parts (instances of generic functions, the
//     entries of a library that share no code) is split before the
//     optimizer: each part is optimized and compiled on a thread of its
//     own. A part holds everything its functions reference, so the
//     optimizer sees what it saw in the whole module, and each function's
//     code is what it was.
//   - Otherwise the module is optimized whole and only its code generation
//     is split, by functions (partitionForCodegen).
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/Aot.h"

#include "tad/Driver/LaunchParameters.h"
#include "tad/Driver/Optimize.h"
#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/ResultStores.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace tad::driver;

/// A target machine for the host CPU, as the JIT uses: the object runs on
/// machines of the same kind (docs/runtime.md).
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createHostMachine(
    llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(error);
  llvm::SubtargetFeatures features;
  for (auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature, enabled);
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), options,
      llvm::Reloc::PIC_, std::nullopt, level));
}

/// `module` translated to LLVM IR for the host, not yet optimized.
static llvm::Expected<std::unique_ptr<llvm::Module>>
translate(mlir::ModuleOp module, llvm::LLVMContext &context,
          llvm::TargetMachine &machine) {
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return llvm::createStringError("could not translate the module to LLVM IR");
  llvmModule->setDataLayout(machine.createDataLayout());
  llvmModule->setTargetTriple(machine.getTargetTriple());
  hoistLaunchParameters(*llvmModule);
  return std::move(llvmModule);
}

/// Optimizes `module` (-O3) and prepares it for code generation.
static llvm::Error optimize(llvm::Module &module,
                            llvm::TargetMachine &machine) {
  if (llvm::Error e = optimizeModule(module, &machine))
    return e;
  storeResultsEarly(module);
  generateLongEntriesQuickly(module);
  return llvm::Error::success();
}

/// Generates `module`'s machine code into the object file `path`.
static llvm::Error generateCode(llvm::Module &module,
                                llvm::TargetMachine &machine,
                                llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, out, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  pm.run(module);
  return llvm::Error::success();
}

/// Whether `f`'s code is generated at -O0 (generateLongEntriesQuickly).
static bool isQuick(const llvm::Function &f) {
  return f.hasFnAttribute(llvm::Attribute::OptimizeNone);
}

/// Whether every function `module` defines is a long entry: an entry that
/// inlined all it calls, as the identity on a record of 2000 fields, whose
/// 40000 instructions took the greedy register allocator 1.4 s. Such a
/// module is generated whole at -O0.
static bool definesOnlyQuick(const llvm::Module &module) {
  bool any = false;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration()) {
      if (!isQuick(f))
        return false;
      any = true;
    }
  return any;
}

/// Instructions below which a module's code is generated on one thread: a
/// part's bitcode round trip and target machine cost a few milliseconds.
static constexpr unsigned kSplitCodegenInstructions = 4000;

/// The instructions of the functions that `module` defines.
static unsigned countInstructions(const llvm::Module &module) {
  unsigned instructions = 0;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration())
      instructions += f.getInstructionCount();
  return instructions;
}

/// Each function's instructions, counted once: getInstructionCount walks the
/// function, and a sort's comparisons of 12,000 functions took 5% of their
/// compile.
using Sizes = llvm::DenseMap<const llvm::GlobalValue *, unsigned>;

/// `items` (largest first) assigned to `count` bins, each to the bin with
/// the fewest instructions so far; returns each bin's total.
template <typename T>
static std::vector<unsigned> balance(llvm::ArrayRef<T> items,
                                     llvm::function_ref<unsigned(T)> size,
                                     unsigned count,
                                     llvm::function_ref<void(T, unsigned)> put) {
  std::vector<unsigned> load(count, 0);
  for (T item : items) {
    unsigned least = std::min_element(load.begin(), load.end()) - load.begin();
    put(item, least);
    load[least] += size(item);
  }
  return load;
}

/// How `module`'s definitions are split into parts whose code together is
/// its code: the functions that isQuick names, if any, in part 0, and the
/// others in `count` more, balanced by their instructions (the largest
/// first, each to the part with the fewest). Global variables (absent from
/// the map) go to part 0. Internal symbols become hidden global ones, so
/// that parts call and read each other's; the link keeps them out of a
/// library's exports.
using Partition = llvm::DenseMap<const llvm::GlobalValue *, unsigned>;
static Partition partitionForCodegen(llvm::Module &module, unsigned count,
                                     bool quickPart) {
  unsigned unnamed = 0;
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration() || !value.hasLocalLinkage())
      continue;
    if (!value.hasName())
      value.setName("__tad_part_symbol" + llvm::Twine(unnamed++));
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  std::vector<llvm::Function *> functions;
  Partition partOf;
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    if (quickPart && isQuick(f))
      partOf[&f] = 0;
    else
      functions.push_back(&f);
  }
  Sizes size;
  for (llvm::Function *f : functions)
    size[f] = f->getInstructionCount();
  llvm::stable_sort(functions, [&](llvm::Function *a, llvm::Function *b) {
    return size[a] > size[b];
  });
  unsigned first = quickPart ? 1 : 0;
  balance<llvm::Function *>(
      functions, [&](llvm::Function *f) { return size[f]; }, count,
      [&](llvm::Function *f, unsigned bin) { partOf[f] = first + bin; });
  return partOf;
}

/// Part `i` of `partOf`: a copy of `module` (in its context) that defines
/// what the part holds and declares the rest.
static std::unique_ptr<llvm::Module>
clonePart(const llvm::Module &module, const Partition &partOf, unsigned i) {
  llvm::ValueToValueMapTy map;
  return llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
    auto it = partOf.find(value);
    return it == partOf.end() ? i == 0 : it->second == i;
  });
}

/// Bytes up to which a constant that several independent parts read is
/// copied into each (splitIndependent) instead of joining them: One-Shot
/// Bufferize makes one global of each constant tensor and shares it
/// between functions, such as the zero that many gradients start from.
static constexpr uint64_t kCopiedConstantBytes = 4096;

/// Whether `constant` is data alone: no global value's address in it.
static bool isPlainData(const llvm::Constant *constant) {
  if (llvm::isa<llvm::ConstantData>(constant))
    return true;
  if (!llvm::isa<llvm::ConstantAggregate>(constant))
    return false;
  return llvm::all_of(constant->operands(), [](const llvm::Use &operand) {
    return isPlainData(llvm::cast<llvm::Constant>(operand.get()));
  });
}

/// Whether `value` is a constant that each part reading it gets a copy of:
/// small, local, and data alone (a copy needs nothing else).
static bool isCopied(const llvm::GlobalValue &value) {
  auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(&value);
  return variable && variable->isConstant() && variable->hasLocalLinkage() &&
         variable->hasInitializer() &&
         value.getDataLayout().getTypeAllocSize(variable->getValueType()) <=
             kCopiedConstantBytes &&
         isPlainData(variable->getInitializer());
}

/// Calls `visit` with each global value that `root` reaches through its
/// operands, constant expressions included (not through global values).
static void forEachReferenced(
    const llvm::User *root,
    llvm::function_ref<void(const llvm::GlobalValue *)> visit,
    llvm::DenseSet<const llvm::Constant *> &seen) {
  llvm::SmallVector<const llvm::User *> worklist{root};
  while (!worklist.empty()) {
    const llvm::User *user = worklist.pop_back_val();
    for (const llvm::Value *operand : user->operands()) {
      if (auto *global = llvm::dyn_cast<llvm::GlobalValue>(operand))
        visit(global);
      else if (auto *constant = llvm::dyn_cast<llvm::Constant>(operand))
        if (constant->getNumOperands() > 0 && seen.insert(constant).second)
          worklist.push_back(constant);
    }
  }
}

/// The independent parts per thread (splitIndependent): a part's compile
/// time is not in proportion to its instructions (a loop nest that many
/// instances call costs more), so threads take the next part as they
/// finish one, and several small parts even out what one large part's
/// thread would be left doing alone. A part costs a target machine and
/// a bitcode round trip: milliseconds.
static constexpr unsigned kPartsPerThread = 4;

/// `module` as `count` modules (in bitcode) that reference nothing of each
/// other's: its definitions grouped by what references what (a function
/// and what it calls and reads are in one group), the groups balanced by
/// their instructions. A small constant (isCopied) joins no groups: each
/// part that reads it gets a copy, renamed apart. Empty when the module
/// does not split so that each part has at most three quarters of its
/// instructions, or holds what a split cannot copy (aliases, `llvm.`
/// globals such as constructors' lists, which reference every part).
static std::vector<llvm::SmallVector<char, 0>>
splitIndependent(llvm::Module &module, unsigned count) {
  if (!module.alias_empty() || !module.ifunc_empty())
    return {};
  llvm::EquivalenceClasses<const llvm::GlobalValue *> groups;
  llvm::DenseMap<const llvm::GlobalValue *,
                 llvm::SmallVector<const llvm::GlobalValue *>>
      copiedReaders;
  llvm::DenseSet<const llvm::Constant *> seen;
  for (const llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration())
      continue;
    if (value.getName().starts_with("llvm."))
      return {};
    if (isCopied(value))
      continue;
    groups.insert(&value);
    auto join = [&](const llvm::GlobalValue *other) {
      if (other->isDeclaration())
        return;
      if (!isCopied(*other)) {
        groups.unionSets(&value, other);
        return;
      }
      auto &readers = copiedReaders[other];
      if (readers.empty() || readers.back() != &value)
        readers.push_back(&value);
    };
    // Per value: a constant expression that two values use is followed
    // for each.
    seen.clear();
    if (auto *f = llvm::dyn_cast<llvm::Function>(&value)) {
      for (const llvm::BasicBlock &block : *f)
        for (const llvm::Instruction &instruction : block)
          forEachReferenced(&instruction, join, seen);
    } else {
      forEachReferenced(&value, join, seen);
    }
  }
  // The groups, largest first, balanced into the parts.
  llvm::MapVector<const llvm::GlobalValue *, unsigned> groupSize;
  unsigned total = 0;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration()) {
      unsigned n = f.getInstructionCount();
      groupSize[groups.getLeaderValue(&f)] += n;
      total += n;
    }
  if (groupSize.size() < 2)
    return {};
  std::vector<const llvm::GlobalValue *> leaders;
  for (auto &[leader, n] : groupSize)
    leaders.push_back(leader);
  llvm::stable_sort(leaders, [&](auto *a, auto *b) {
    return groupSize[a] > groupSize[b];
  });
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOfLeader;
  std::vector<unsigned> load = balance<const llvm::GlobalValue *>(
      leaders, [&](const llvm::GlobalValue *l) { return groupSize[l]; },
      count, [&](const llvm::GlobalValue *l, unsigned bin) {
        partOfLeader[l] = bin;
      });
  if (*std::max_element(load.begin(), load.end()) * 4 > total * 3)
    return {};
  // A definition that no function reaches (a global variable alone) goes to
  // the first part.
  auto partOf = [&](const llvm::GlobalValue *value) -> unsigned {
    auto it = partOfLeader.find(groups.getLeaderValue(value));
    return it == partOfLeader.end() ? 0 : it->second;
  };
  std::vector<llvm::SmallVector<char, 0>> parts(count);
  for (unsigned i = 0; i < count; ++i) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(
        module, map, [&](const llvm::GlobalValue *value) {
          if (!isCopied(*value))
            return partOf(value) == i;
          auto it = copiedReaders.find(value);
          return it != copiedReaders.end() &&
                 llvm::any_of(it->second, [&](const llvm::GlobalValue *r) {
                   return partOf(r) == i;
                 });
        });
    // What another part defines is declared here and unused: dropped.
    for (llvm::GlobalVariable &variable :
         llvm::make_early_inc_range(part->globals()))
      if (variable.isDeclaration() && variable.use_empty())
        variable.eraseFromParent();
    for (llvm::Function &f : llvm::make_early_inc_range(*part))
      if (f.isDeclaration() && f.use_empty() && !f.isIntrinsic())
        f.eraseFromParent();
    // Copied constants, and unnamed locals, get names of their part: the
    // code generator's split (partitionForCodegen) may make them global,
    // and the parts' objects are linked together.
    unsigned unnamed = 0;
    for (llvm::GlobalValue &value : part->global_values()) {
      if (!value.hasLocalLinkage())
        continue;
      if (!value.hasName())
        value.setName("__tad_part" + llvm::Twine(i) + "_symbol" +
                      llvm::Twine(unnamed++));
      else if (isCopied(value))
        value.setName(value.getName() + ".p" + llvm::Twine(i));
    }
    llvm::raw_svector_ostream os(parts[i]);
    llvm::WriteBitcodeToFile(*part, os);
  }
  return parts;
}

/// Runs `job` on 0 to `count` - 1 on `threads` threads (the calling one
/// among them), each taking the next index when done with one; the jobs'
/// errors joined.
static llvm::Error runOnThreads(size_t count, unsigned threads,
                                llvm::function_ref<llvm::Error(size_t)> job) {
  std::vector<llvm::Error> errors;
  for (size_t i = 0; i < count; ++i)
    errors.push_back(llvm::Error::success());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++)
      errors[i] = job(i);
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < std::min<size_t>(threads, count); ++t)
    workers.emplace_back(work);
  work();
  for (std::thread &worker : workers)
    worker.join();
  llvm::Error all = llvm::Error::success();
  for (llvm::Error &e : errors)
    all = llvm::joinErrors(std::move(all), std::move(e));
  return all;
}

/// `module`'s code (optimized) in object files named `prefix`N.o, generated
/// on `threads` threads, the module split by functions (partitionForCodegen)
/// where that pays. Returns their paths.
static llvm::Expected<std::vector<std::string>>
generateObjects(std::unique_ptr<llvm::Module> module,
                llvm::TargetMachine &machine, llvm::StringRef prefix,
                unsigned threads) {
  unsigned definitions = 0;
  bool quick = false;
  for (llvm::Function &f : *module)
    if (!f.isDeclaration()) {
      ++definitions;
      quick |= isQuick(f);
    }
  // A long entry (generateLongEntriesQuickly) is generated at -O0 in a part
  // of its own: optnone takes its instruction selection to -O0's, but the
  // register allocator is the pipeline's, and the greedy one's time grows
  // faster than the function (0.20 s at 200 MLP layers, 0.68 s at 400).
  bool quickPart = quick && definitions >= 2;
  std::string first = (prefix + "0.o").str();
  if (definesOnlyQuick(*module)) {
    auto quickMachine = createHostMachine(llvm::CodeGenOptLevel::None);
    if (!quickMachine)
      return quickMachine.takeError();
    if (llvm::Error e = generateCode(*module, **quickMachine, first))
      return std::move(e);
    return std::vector<std::string>{first};
  }
  if (!quickPart && (threads < 2 || definitions < 2)) {
    if (llvm::Error e = generateCode(*module, machine, first))
      return std::move(e);
    return std::vector<std::string>{first};
  }
  // Code generation, about a third of a compile, runs on parts of the
  // module at once (partitionForCodegen).
  unsigned rest = std::max(1u, std::min(quickPart ? threads - 1 : threads,
                                        definitions - (quickPart ? 1 : 0)));
  Partition partOf = partitionForCodegen(*module, rest, quickPart);
  size_t count = rest + (quickPart ? 1 : 0);
  std::vector<std::string> paths;
  for (size_t i = 0; i < count; ++i)
    paths.push_back((prefix + llvm::Twine(i) + ".o").str());
  auto partMachine = [&](size_t i) {
    return createHostMachine(quickPart && i == 0
                                 ? llvm::CodeGenOptLevel::None
                                 : llvm::CodeGenOptLevel::Aggressive);
  };
  // One thread (a long entry's own part in a part of independent ones):
  // each part is a copy in the module's context, made when its turn comes.
  // A bitcode round trip would read back every attribute of a function's
  // parameters, in time quadratic in their number (a fifth of the compile
  // of a 5,000-field record's gradient).
  if (std::min<size_t>(threads, count) < 2) {
    for (size_t i = 0; i < count; ++i) {
      std::unique_ptr<llvm::Module> part = clonePart(*module, partOf, i);
      auto target = partMachine(i);
      if (!target)
        return target.takeError();
      if (llvm::Error e = generateCode(*part, **target, paths[i]))
        return std::move(e);
    }
    return paths;
  }
  // A context is not shared between threads: each part goes to its thread
  // as bitcode.
  std::vector<llvm::SmallVector<char, 0>> parts(count);
  for (size_t i = 0; i < count; ++i) {
    llvm::raw_svector_ostream os(parts[i]);
    llvm::WriteBitcodeToFile(*clonePart(*module, partOf, i), os);
  }
  // The parts are bitcode now: the module's memory goes to their code
  // generators (the gradient of a 5,000-field record's sum: 0.3 GB).
  module.reset();
  auto generatePart = [&](size_t i) -> llvm::Error {
    llvm::LLVMContext partContext;
    llvm::MemoryBufferRef buffer(
        llvm::StringRef(parts[i].data(), parts[i].size()), paths[i]);
    auto part = llvm::parseBitcodeFile(buffer, partContext);
    if (!part)
      return part.takeError();
    auto target = partMachine(i);
    if (!target)
      return target.takeError();
    return generateCode(**part, **target, paths[i]);
  };
  if (llvm::Error e = runOnThreads(count, threads, generatePart))
    return std::move(e);
  return paths;
}

/// Optimizes and compiles `parts` (splitIndependent) on `threads` threads,
/// each taking the next part when done with one, into files named
/// `prefix`pK_N.o.
static llvm::Expected<std::vector<std::string>>
generateIndependentParts(llvm::ArrayRef<llvm::SmallVector<char, 0>> parts,
                         llvm::StringRef prefix, unsigned threads) {
  std::vector<std::vector<std::string>> paths(parts.size());
  auto compilePart = [&](size_t i) -> llvm::Error {
    std::string partPrefix = (prefix + "p" + llvm::Twine(i) + "_").str();
    llvm::LLVMContext context;
    llvm::MemoryBufferRef buffer(
        llvm::StringRef(parts[i].data(), parts[i].size()), partPrefix);
    auto part = llvm::parseBitcodeFile(buffer, context);
    if (!part)
      return part.takeError();
    auto machine = createHostMachine();
    if (!machine)
      return machine.takeError();
    if (llvm::Error e = optimize(**part, **machine))
      return e;
    auto objects =
        generateObjects(std::move(*part), **machine, partPrefix, 1);
    if (!objects)
      return objects.takeError();
    paths[i] = std::move(*objects);
    return llvm::Error::success();
  };
  if (llvm::Error e = runOnThreads(parts.size(), threads, compilePart))
    return std::move(e);
  std::vector<std::string> joined;
  for (std::vector<std::string> &p : paths)
    joined.insert(joined.end(), p.begin(), p.end());
  return joined;
}

llvm::Expected<std::vector<std::string>>
tad::driver::emitObjectFiles(mlir::ModuleOp module, llvm::StringRef prefix,
                             unsigned threads) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto machine = createHostMachine();
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  auto llvmModule = translate(module, context, **machine);
  if (!llvmModule)
    return llvmModule.takeError();
  markManyEntries(**llvmModule);
  // By default only a module large enough to gain, on the machine's cores.
  if (threads == 0)
    threads = countInstructions(**llvmModule) < kSplitCodegenInstructions
                  ? 1
                  : std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  if (threads >= 2) {
    std::vector<llvm::SmallVector<char, 0>> parts =
        splitIndependent(**llvmModule, kPartsPerThread * threads);
    if (!parts.empty()) {
      llvmModule->reset();
      return generateIndependentParts(parts, prefix, threads);
    }
  }
  if (llvm::Error e = optimize(**llvmModule, **machine))
    return std::move(e);
  return generateObjects(std::move(*llvmModule), **machine, prefix, threads);
}
