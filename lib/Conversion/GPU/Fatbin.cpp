//===- Fatbin.cpp - one fatbin for every GPU architecture -----------------===//
//
// gpu-module-to-binary compiles a GPU module for one target. A tad binary
// must run on several GPU generations (machine code of one major
// architecture does not run on another), so this pass takes the PTX that
// gpu-module-to-binary emitted (format=isa), assembles it with the
// toolkit's ptxas for each requested architecture, and packs the cubins and
// the PTX itself (which the driver compiles for GPUs newer than all of
// them) into one fatbin with the toolkit's fatbinary.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace tad {
#define GEN_PASS_DEF_GPUFATBIN
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Files that are removed when the guard goes.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &p : paths)
      llvm::sys::fs::remove(p);
  }
  FailureOr<std::string> create(StringRef suffix, Operation *op) {
    SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "tad-gpu", suffix, path)) {
      op->emitError() << "cannot create a temporary file: " << ec.message();
      return failure();
    }
    paths.push_back(std::string(path));
    return paths.back();
  }
};

/// Runs `tool` from `toolkit`/bin with `args`; its output goes to `log`.
LogicalResult runTool(StringRef toolkit, StringRef tool,
                      ArrayRef<std::string> args, StringRef log,
                      Operation *op) {
  SmallString<128> program(toolkit);
  llvm::sys::path::append(program, "bin", tool);
  if (!llvm::sys::fs::can_execute(program))
    return op->emitError()
           << "cannot run " << program
           << ": the CUDA toolkit is needed to compile for the cuda target "
              "(option 'cuda-path', or CUDA_ROOT)";
  SmallVector<StringRef> argv = {program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(program, argv, std::nullopt,
                                         redirects, 0, 0, &message);
  if (status == 0)
    return success();
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  return op->emitError() << tool << " failed"
                         << (message.empty() ? "" : ": " + message) << "\n"
                         << output;
}

struct GpuFatbin : public tad::impl::GpuFatbinBase<GpuFatbin> {
  using GpuFatbinBase::GpuFatbinBase;

  void runOnOperation() override {
    SmallVector<std::string> archs;
    for (StringRef a : llvm::split(architectures, ','))
      if (!a.trim().empty())
        archs.push_back(a.trim().str());
    if (archs.empty()) {
      getOperation().emitError("no GPU architecture to compile for");
      return signalPassFailure();
    }
    for (StringRef a : archs)
      if (!a.starts_with("sm_") || a.size() < 5 || a.size() > 7 ||
          !llvm::all_of(a.drop_front(3), llvm::isDigit)) {
        getOperation().emitError()
            << "'" << a << "' is not a GPU architecture (sm_80, sm_90, ...)";
        return signalPassFailure();
      }
    // The lowest first: the PTX is written for it (the pipeline attaches
    // that chip to the GPU modules).
    llvm::sort(archs, [](const std::string &a, const std::string &b) {
      return std::stoi(a.substr(3)) < std::stoi(b.substr(3));
    });
    auto result = getOperation().walk([&](gpu::BinaryOp binary) {
      return succeeded(packBinary(binary, archs)) ? WalkResult::advance()
                                                  : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult packBinary(gpu::BinaryOp binary, ArrayRef<std::string> archs) {
    if (binary.getObjects().size() != 1)
      return binary.emitError("expected one PTX object per GPU module");
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (object.getFormat() != gpu::CompilationTarget::Assembly)
      return binary.emitError(
          "expected PTX (gpu-module-to-binary{format=isa}) to pack");
    TempFiles files;
    auto ptx = files.create("ptx", binary);
    auto log = files.create("log", binary);
    auto fatbin = files.create("fatbin", binary);
    if (failed(ptx) || failed(log) || failed(fatbin))
      return failure();
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(*ptx, ec);
      if (ec)
        return binary.emitError() << *ptx << ": " << ec.message();
      out << object.getObject().getValue();
    }
    SmallVector<std::string> fatbinArgs = {"-64", "--create=" + *fatbin};
    for (const std::string &arch : archs) {
      auto cubin = files.create("cubin", binary);
      if (failed(cubin))
        return failure();
      if (failed(runTool(toolkit, "ptxas",
                         {"-arch=" + arch, "-O3", *ptx, "-o", *cubin}, *log,
                         binary)))
        return failure();
      fatbinArgs.push_back("--image3=kind=elf,sm=" + arch.substr(3) +
                           ",file=" + *cubin);
    }
    // The PTX (written for the first, lowest architecture), for the driver
    // to compile on GPUs newer than every cubin.
    fatbinArgs.push_back("--image3=kind=ptx,sm=" + archs.front().substr(3) +
                         ",file=" + *ptx);
    if (failed(runTool(toolkit, "fatbinary", fatbinArgs, *log, binary)))
      return failure();
    auto bytes = llvm::MemoryBuffer::getFile(*fatbin, /*IsText=*/false);
    if (!bytes)
      return binary.emitError() << "cannot read " << *fatbin;
    auto packed = gpu::ObjectAttr::get(
        binary.getContext(), object.getTarget(), gpu::CompilationTarget::Fatbin,
        StringAttr::get(binary.getContext(), (*bytes)->getBuffer()),
        object.getProperties(), object.getKernels());
    binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), {packed}));
    return success();
  }
};

} // namespace
