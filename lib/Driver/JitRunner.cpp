//===- JitRunner.cpp - tadc run: JIT-compile and call an entry ------------===//
//
// Calls `_mlir_ciface_<entry>(results*, inputs*...)` through the execution
// engine's packed wrapper. Inputs live in memory the caller owns, so the
// runtime allocator sees only what the compiled code allocates: the peak it
// measures during a call is the call's peak under tad's memory model, and
// what is still live afterwards is the call's results.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/JitRunner.h"

#include "tad/runtime/Memref.h"
#include "tad/runtime/Runtime.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

using namespace tad::driver;
namespace rt = tad::rt;

namespace {

/// Reads, or initializes with seeded uniform values in [-0.5, 0.5), each
/// parameter's input.
llvm::Error loadInputs(const Signature &signature, const RunOptions &options,
                       std::vector<rt::NpyArray> &inputs,
                       llvm::raw_ostream &os) {
  for (auto [i, param] : llvm::enumerate(signature.params)) {
    std::string path;
    auto it = options.inputFiles.find(param.name);
    if (it != options.inputFiles.end()) {
      path = it->second;
    } else if (!options.inputDir.empty()) {
      llvm::SmallString<256> candidate(options.inputDir);
      llvm::sys::path::append(candidate, param.name + ".npy");
      if (llvm::sys::fs::exists(candidate))
        path = std::string(candidate);
    }
    rt::NpyArray array;
    if (!path.empty()) {
      std::string error;
      if (!rt::readNpy(path, array, error))
        return llvm::createStringError(error);
      if (array.dtype != param.dtype || array.shape != param.shape)
        return llvm::createStringError(
            "parameter '" + param.name + "' of '" + signature.function +
            "' is " + rt::describeArray(param.dtype, param.shape) + " but " +
            path + " holds " + rt::describeArray(array.dtype, array.shape));
      os << "input " << param.name << ": " << path << "\n";
    } else {
      array.dtype = param.dtype;
      array.shape = param.shape;
      array.data.resize(size_t(param.getByteSize()));
      std::mt19937_64 generator(options.seed * 1000003 + i);
      std::uniform_real_distribution<double> uniform(-0.5, 0.5);
      size_t size = rt::getDTypeSize(param.dtype);
      for (int64_t e = 0; e < param.getNumElements(); ++e)
        rt::storeFromDouble(array.data.data() + e * size, param.dtype,
                            uniform(generator));
      os << "input " << param.name << ": random "
         << rt::describeArray(param.dtype, param.shape) << " (seed "
         << options.seed << ")\n";
    }
    inputs.push_back(std::move(array));
  }
  for (const auto &[name, path] : options.inputFiles)
    if (llvm::none_of(signature.params,
                      [&](const TensorSpec &p) { return p.name == name; }))
      return llvm::createStringError("--input " + name + "=" + path +
                                     ": '" + signature.function +
                                     "' has no parameter '" + name + "'");
  return llvm::Error::success();
}

void summarize(const std::string &name, const rt::NpyArray &array,
               llvm::raw_ostream &os) {
  size_t size = rt::getDTypeSize(array.dtype);
  int64_t count = array.getNumElements();
  auto at = [&](int64_t i) {
    return rt::loadAsDouble(array.data.data() + i * size, array.dtype);
  };
  os << name << ": " << rt::describeArray(array.dtype, array.shape);
  if (array.shape.empty()) {
    os << " = " << llvm::format("%.9g", at(0)) << "\n";
    return;
  }
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < count; ++i) {
    double v = at(i);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  os << " mean=" << llvm::format("%.6g", sum / double(count))
     << " min=" << llvm::format("%.6g", lo) << " max=" << llvm::format("%.6g", hi)
     << " first=[";
  for (int64_t i = 0; i < std::min<int64_t>(count, 4); ++i)
    os << (i ? ", " : "") << llvm::format("%.6g", at(i));
  os << (count > 4 ? ", ...]\n" : "]\n");
}

} // namespace

llvm::Error tad::driver::runEntry(mlir::ModuleOp module,
                                  const Signature &signature,
                                  const RunOptions &options,
                                  llvm::raw_ostream &os) {
  std::vector<rt::NpyArray> inputs;
  if (llvm::Error error = loadInputs(signature, options, inputs, os))
    return error;
  if (options.threads)
    tad_rt_set_num_threads(int(options.threads));

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  mlir::ExecutionEngineOptions engineOptions;
  auto transformer = mlir::makeOptimizingTransformer(3, 0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = mlir::ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return engine.takeError();
  std::string wrapper = "_mlir_ciface_" + signature.function;
  auto packed = (*engine)->lookupPacked(wrapper);
  if (!packed)
    return packed.takeError();

  // Descriptors: one buffer holding every result descriptor back to back
  // (the C interface's result struct), and one per input.
  size_t resultWords = 0;
  for (const TensorSpec &r : signature.results)
    resultWords += rt::getDescriptorWords(r.shape.size());
  std::vector<int64_t> results(resultWords);
  std::vector<std::vector<int64_t>> descriptors;
  for (rt::NpyArray &input : inputs)
    descriptors.push_back(rt::makeDescriptor(input.data.data(), input.shape));

  std::vector<double> seconds;
  tad_rt_stats before{}, after{};
  for (unsigned call = 0; call < std::max(1u, options.repeat); ++call) {
    // Each call gets fresh descriptors: compiled code may not write them,
    // but the inputs stay the caller's either way.
    void *resultPtr = results.data();
    std::vector<void *> pointers, args;
    for (auto &d : descriptors)
      pointers.push_back(d.data());
    args.push_back(&resultPtr);
    for (void *&p : pointers)
      args.push_back(&p);

    tad_rt_reset_peak();
    before = tad_rt_get_stats();
    double start = tad_rt_now_seconds();
    (*packed)(args.data());
    seconds.push_back(tad_rt_now_seconds() - start);
    after = tad_rt_get_stats();

    bool last = call + 1 >= std::max(1u, options.repeat);
    std::set<void *> freed;
    size_t offset = 0;
    for (auto [i, spec] : llvm::enumerate(signature.results)) {
      const int64_t *words = results.data() + offset;
      offset += rt::getDescriptorWords(spec.shape.size());
      if (last) {
        rt::NpyArray array =
            rt::copyFromDescriptor(words, spec.dtype, spec.shape);
        summarize(spec.name, array, os);
        if (!options.outputDir.empty()) {
          llvm::SmallString<256> path(options.outputDir);
          llvm::sys::path::append(path, spec.name + ".npy");
          std::string error;
          if (!rt::writeNpy(std::string(path), array, error))
            return llvm::createStringError(error);
        }
      }
      // Results that alias each other are freed once; a result that is an
      // input (not allocated by the runtime) is not freed at all.
      void *allocated = rt::getAllocatedPointer(words);
      if (tad_rt_owns(allocated) && freed.insert(allocated).second)
        tad_rt_free(allocated);
    }
  }

  int64_t peak = after.peak_bytes - before.current_bytes;
  int64_t live = after.current_bytes - before.current_bytes;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  os << "time: " << llvm::format("%.6f", median) << " s median of "
     << seconds.size() << " call(s), min " << llvm::format("%.6f", sorted[0])
     << " s\n";
  os << "memory: peak " << peak << " bytes, live after the call " << live
     << " bytes, " << after.allocations << " allocations\n";

  if (!options.statsJson.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream json(options.statsJson, ec);
    if (ec)
      return llvm::createStringError(options.statsJson + ": " + ec.message());
    json << "{\n  \"entry\": \"" << signature.function << "\",\n"
         << "  \"calls\": " << seconds.size() << ",\n  \"wall_seconds\": [";
    for (auto [i, s] : llvm::enumerate(seconds))
      json << (i ? ", " : "") << llvm::format("%.9f", s);
    json << "],\n  \"median_seconds\": " << llvm::format("%.9f", median)
         << ",\n  \"peak_bytes\": " << peak
         << ",\n  \"live_bytes_after\": " << live
         << ",\n  \"allocations\": " << after.allocations << "\n}\n";
  }
  return llvm::Error::success();
}
