//===- Cuda.cpp - the GPU entry points of compiled code -------------------===//
//
// MLIR's gpu-to-llvm lowers kernel launches to calls of `mgpu*` functions;
// these are tad's, written on the CUDA driver API. Modules are loaded by
// constructors of the compiled code (one per GPU module), before main, so a
// failure there is recorded and reported by tad_rt_cuda_begin(), which every
// entry point of a compiled library or executable calls first.
//
// Launches run on one stream (the default stream, or the runtime's own where
// CUDA graphs are enabled: CudaGraphs.cpp) without waiting for them
// (tad-gpu-host-waits makes them asynchronous): the host waits
// (tad_rt_cuda_wait, mgpuStreamSynchronize) where compiled code touches
// memory itself and before an entry point returns, and the runtime waits
// before it writes an input into device memory or hands memory back to the
// driver. A wait with no kernel or GEMM issued since the last is free and
// not counted. Errors of a launch or a kernel stop the program with a
// message, as an allocation failure does: compiled code cannot handle them.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include "tad/runtime/Runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// The driver API's types and constants (cuda.h), declared here so that the
// runtime builds without the CUDA toolkit.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUdeviceptr = unsigned long long;
constexpr unsigned kMemAttachGlobal = 0x1; // CU_MEM_ATTACH_GLOBAL
constexpr int kAttributeMajor = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeMinor = 76; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetAttribute)(int *, int, CUdevice);
  CUresult (*devicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*memAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*getErrorString)(CUresult, const char **);
};

struct State {
  std::once_flag loaded;
  bool ready = false;        // driver loaded, context current
  bool active = false;       // tad_rt_cuda_begin() succeeded
  std::string error;         // why not ready, or why a module failed
  void *library = nullptr;   // libcuda.so.1
  int major = 0, minor = 0;  // the device's compute capability
  CUcontext context = nullptr;
  Driver driver{};
};

State &state() {
  static State *s = new State; // never destroyed: used by module destructors
  return *s;
}

/// Whether a kernel or GEMM was issued since the host last waited.
std::atomic<bool> pending{false};

using tad::rt::cuda::describe;

/// Stops the program: compiled code has no way to handle a failed launch.
[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "tad runtime: error: CUDA: %s\n", what.c_str());
  std::exit(4);
}

using tad::rt::cuda::check;

template <typename F> bool resolve(void *library, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(library, name));
  return fn != nullptr;
}

/// Loads libcuda.so.1 and makes device 0's primary context current; on
/// failure, state().error says why.
void load() {
  State &s = state();
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    s.error = "no CUDA driver: cannot load libcuda.so.1 (" +
              std::string(dlerror()) +
              "); GPU code needs an NVIDIA GPU and its driver";
    return;
  }
  s.library = library;
  Driver &d = s.driver;
  // The _v2 names are those that cuda.h maps the plain names to.
  const char *missing = nullptr;
  auto need = [&](const char *name, auto &fn) {
    if (!missing && !resolve(library, name, fn))
      missing = name;
  };
  need("cuInit", d.init);
  need("cuDeviceGetCount", d.deviceGetCount);
  need("cuDeviceGet", d.deviceGet);
  need("cuDeviceGetAttribute", d.deviceGetAttribute);
  need("cuDevicePrimaryCtxRetain", d.devicePrimaryCtxRetain);
  need("cuCtxSetCurrent", d.ctxSetCurrent);
  need("cuModuleLoadData", d.moduleLoadData);
  need("cuModuleUnload", d.moduleUnload);
  need("cuModuleGetFunction", d.moduleGetFunction);
  need("cuLaunchKernel", d.launchKernel);
  need("cuStreamSynchronize", d.streamSynchronize);
  need("cuMemAllocManaged", d.memAllocManaged);
  need("cuMemAlloc_v2", d.memAlloc);
  need("cuMemcpyDtoH_v2", d.memcpyDtoH);
  need("cuMemcpyHtoD_v2", d.memcpyHtoD);
  need("cuMemFree_v2", d.memFree);
  need("cuGetErrorString", d.getErrorString);
  if (missing) {
    s.error = std::string("the CUDA driver lacks ") + missing +
              " (a driver for CUDA 12 or later is needed)";
    return;
  }
  CUresult r = d.init(0);
  int count = 0;
  if (r == 0)
    r = d.deviceGetCount(&count);
  if (r != 0 || count == 0) {
    s.error = "no CUDA device" +
              (r != 0 ? " (cuInit: " + describe(r) + ")" : std::string());
    return;
  }
  CUdevice device = 0;
  if ((r = d.deviceGet(&device, 0)) != 0 ||
      (r = d.devicePrimaryCtxRetain(&s.context, device)) != 0 ||
      (r = d.ctxSetCurrent(s.context)) != 0) {
    s.error = "cannot use CUDA device 0: " + describe(r);
    return;
  }
  d.deviceGetAttribute(&s.major, kAttributeMajor, device);
  d.deviceGetAttribute(&s.minor, kAttributeMinor, device);
  s.ready = true;
}

bool ensureLoaded() {
  State &s = state();
  std::call_once(s.loaded, load);
  if (s.ready)
    s.driver.ctxSetCurrent(s.context); // the calling thread's context
  return s.ready;
}

} // namespace

bool tad::rt::cuda::isActive() { return state().active; }

void tad::rt::cuda::check(int result, const char *what) {
  if (result != 0)
    fail(std::string(what) + ": " + describe(result));
}

std::string tad::rt::cuda::describe(int result) {
  const char *text = nullptr;
  if (state().driver.getErrorString &&
      state().driver.getErrorString(result, &text) == 0 && text)
    return text;
  return "CUDA error " + std::to_string(result);
}

void *tad::rt::cuda::driverSymbol(const char *name) {
  return ensureLoaded() ? dlsym(state().library, name) : nullptr;
}

void tad::rt::cuda::launchNow(void *function, const unsigned dims[6],
                              unsigned sharedMemory, void *stream,
                              void **params) {
  check(state().driver.launchKernel(function, dims[0], dims[1], dims[2],
                                    dims[3], dims[4], dims[5], sharedMemory,
                                    stream, params, nullptr),
        "launching a kernel");
}

void *tad::rt::cuda::allocateManaged(size_t size) {
  CUdeviceptr ptr = 0;
  if (!ensureLoaded() ||
      state().driver.memAllocManaged(&ptr, size, kMemAttachGlobal) != 0)
    return nullptr;
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

void tad::rt::cuda::freeManaged(void *ptr) {
  // A kernel still running may use the block.
  synchronize();
  if (ptr && state().ready)
    check(state().driver.memFree(
              static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr))),
          "freeing device memory");
}

bool tad::rt::cuda::deviceBuffersEnabled() {
  static const bool enabled = [] {
    const char *managedOnly = std::getenv("TAD_CUDA_MANAGED_ONLY");
    return !(managedOnly && *managedOnly);
  }();
  return enabled;
}

namespace {
/// `size` bytes of device memory, or null.
void *allocateDevice(size_t size) {
  CUdeviceptr ptr = 0;
  if (!ensureLoaded() || state().driver.memAlloc(&ptr, size) != 0)
    return nullptr;
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

CUdeviceptr devicePointer(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

/// Blocks kept by size, each size's lowest address first.
using KeptBlocks = std::unordered_map<size_t, std::set<void *>>;

/// The lowest kept block of `size` bytes, taken out of `kept`; null if
/// there is none (the pool's mutex held).
void *takeLowest(KeptBlocks &kept, size_t size) {
  auto it = kept.find(size);
  if (it == kept.end() || it->second.empty())
    return nullptr;
  void *ptr = *it->second.begin();
  it->second.erase(it->second.begin());
  return ptr;
}

/// `allocate(size)`, again after the kept blocks went back to the driver
/// where it failed (they may be what it lacks).
void *allocateOrRelease(void *(*allocate)(size_t), size_t size) {
  void *ptr = allocate(size);
  if (!ptr && tad::rt::cuda::releasePool())
    ptr = allocate(size);
  return ptr;
}

/// Freed blocks by kind (managed, device) and size, for allocatePooled(),
/// which takes the lowest address of a size: calls that allocate and free
/// the same sizes in the same order then get the same blocks each time
/// (with the last freed, a call's blocks could be another permutation of
/// the same blocks each time), so a CUDA graph of one call's launches
/// (CudaGraphs.cpp) matches the next call's.
///
/// Staged inputs' blocks (tad_rt_stage_input) are kept apart, by size, for
/// the next call's inputs: a library's entry points stage every input at
/// every call, which would otherwise be a driver's allocation and free per
/// input per call, at new addresses each time. They are not counted in
/// heldBytes, whose bound is the allocator's (its buffers' peak).
struct Pool {
  std::mutex mutex;
  KeptBlocks free[2];
  size_t heldBytes = 0;
  KeptBlocks staged;
  std::unordered_map<void *, size_t> stagedLive;
  size_t stagedHeld = 0;
  bool releaseRegistered = false;
};

Pool &pool() {
  static Pool *p = new Pool; // outlives the atexit handlers that use it
  return *p;
}

/// Has the kept blocks go back when the process ends (p.mutex held).
/// Registered after the driver's setup, this runs before anything that
/// setup registered: compute-sanitizer's leak check sees none.
void releaseAtExit(Pool &p) {
  if (!p.releaseRegistered) {
    p.releaseRegistered = true;
    std::atexit([] { tad::rt::cuda::releasePool(); });
  }
}
} // namespace

void *tad::rt::cuda::allocatePooled(size_t size, bool deviceOnly) {
  {
    Pool &p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (void *ptr = takeLowest(p.free[deviceOnly], size)) {
      p.heldBytes -= size;
      return ptr;
    }
  }
  return allocateOrRelease(deviceOnly ? allocateDevice : allocateManaged, size);
}

void tad::rt::cuda::freePooled(void *ptr, size_t size, size_t keep,
                               bool deviceOnly) {
  Pool &p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.heldBytes + size <= keep) {
      p.free[deviceOnly][size].insert(ptr);
      p.heldBytes += size;
      releaseAtExit(p);
      return;
    }
  }
  freeManaged(ptr); // cuMemFree frees either kind
}

void *tad::rt::cuda::allocateStaged(size_t size) {
  Pool &p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (void *ptr = takeLowest(p.staged, size)) {
      p.stagedHeld -= size;
      p.stagedLive[ptr] = size;
      return ptr;
    }
  }
  void *ptr = allocateOrRelease(allocateManaged, size);
  if (ptr) {
    std::lock_guard<std::mutex> lock(p.mutex);
    p.stagedLive[ptr] = size;
  }
  return ptr;
}

void tad::rt::cuda::freeStaged(void *ptr) {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.stagedLive.find(ptr);
  if (it == p.stagedLive.end())
    return;
  p.staged[it->second].insert(ptr);
  p.stagedHeld += it->second;
  p.stagedLive.erase(it);
  releaseAtExit(p);
}

size_t tad::rt::cuda::releasePool() {
  Pool &p = pool();
  std::vector<void *> blocks;
  size_t bytes;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    for (auto *kind : {&p.free[0], &p.free[1], &p.staged}) {
      for (auto &[size, list] : *kind)
        blocks.insert(blocks.end(), list.begin(), list.end());
      kind->clear();
    }
    bytes = p.heldBytes + p.stagedHeld;
    p.heldBytes = p.stagedHeld = 0;
  }
  for (void *ptr : blocks)
    freeManaged(ptr);
  return bytes;
}

void tad::rt::cuda::copyToHost(void *host, const void *device, size_t bytes) {
  synchronize();
  countCopied(bytes);
  check(state().driver.memcpyDtoH(host, devicePointer(device), bytes),
        "copying device memory to the host");
}

void tad::rt::cuda::copyToDevice(void *device, const void *host, size_t bytes) {
  synchronize();
  countCopied(bytes);
  check(state().driver.memcpyHtoD(devicePointer(device), host, bytes),
        "copying host memory to the device");
}

void tad::rt::cuda::issued() { pending = true; }

void tad::rt::cuda::synchronize() {
  if (!pending.exchange(false))
    return;
  graphs::flush();
  countSynchronization();
  check(state().driver.streamSynchronize(workStream()), "running a kernel");
}

extern "C" {

int tad_rt_cuda_begin(void) {
  State &s = state();
  if (!ensureLoaded() || !s.error.empty())
    return -1;
  s.active = true;
  return 0;
}

const char *tad_rt_cuda_error(void) { return state().error.c_str(); }

void *tad_rt_stage_input(const void *data, size_t bytes) {
  if (!state().active)
    return const_cast<void *>(data);
  void *copy = tad::rt::cuda::allocateStaged(bytes ? bytes : 1);
  // The host writes it, and a kernel of the call before may still run.
  tad::rt::cuda::synchronize();
  if (!copy)
    fail("cannot allocate " + std::to_string(bytes) +
         " bytes of device memory for an input");
  std::memcpy(copy, data, bytes);
  tad::rt::cuda::countStaged(bytes);
  return copy;
}

void tad_rt_unstage_input(void *staged) {
  if (state().active)
    tad::rt::cuda::freeStaged(staged);
}

//===----------------------------------------------------------------------===//
// The functions that gpu-to-llvm emits calls of
//===----------------------------------------------------------------------===//

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size; // a fatbin carries its own size
  State &s = state();
  if (!ensureLoaded())
    return nullptr; // tad_rt_cuda_begin() reports why
  CUmodule module = nullptr;
  if (CUresult r = s.driver.moduleLoadData(&module, data)) {
    // Recorded, not fatal: this runs before main, and the program may not
    // call GPU code at all (--help).
    if (s.error.empty())
      s.error = "cannot load the GPU code on this device (compute "
                "capability " +
                std::to_string(s.major) + "." + std::to_string(s.minor) +
                "): " + describe(r) +
                "; compile for its architecture with tadc --cuda-arch";
    return nullptr;
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module && state().ready)
    state().driver.moduleUnload(module); // at exit: nothing to report to
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    fail(state().error.empty() ? "the GPU code is not loaded"
                               : state().error);
  CUfunction function = nullptr;
  check(state().driver.moduleGetFunction(&function, module, name),
        (std::string("finding kernel ") + name).c_str());
  return function;
}

// Compiled code's streams are all the work stream (workStream()).
void *mgpuStreamCreate(void) { return nullptr; }

void mgpuStreamDestroy(void *stream) { (void)stream; }

void mgpuStreamSynchronize(void *stream) {
  (void)stream;
  tad::rt::cuda::synchronize();
}

void tad_rt_cuda_wait(void) { tad::rt::cuda::synchronize(); }
// The name compiled code calls (its declarations get C interfaces).
void _mlir_ciface_tad_rt_cuda_wait(void) { tad::rt::cuda::synchronize(); }

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemory, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)stream;
  (void)extra; // gpu-to-llvm passes the parameters in `params`
  tad::rt::cuda::countLaunch();
  tad::rt::cuda::issued();
  const unsigned dims[6] = {unsigned(gridX),  unsigned(gridY),
                            unsigned(gridZ),  unsigned(blockX),
                            unsigned(blockY), unsigned(blockZ)};
  if (!tad::rt::cuda::graphs::recordLaunch(
          function, dims, unsigned(sharedMemory), params, paramsCount))
    tad::rt::cuda::launchNow(function, dims, unsigned(sharedMemory),
                             tad::rt::cuda::workStream(), params);
}

} // extern "C"
