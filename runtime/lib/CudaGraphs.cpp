//===- CudaGraphs.cpp - a call's launches replayed as CUDA graphs ---------===//
//
// A training loop calls one compiled function again and again, and each call
// launches the same kernels and GEMMs on the same buffers: the runtime's
// pool hands the same blocks back to the same sequence of allocations, and
// a runner or a loop over batches keeps its inputs where they are. Where
// the environment sets TAD_CUDA_GRAPHS (to anything but 0: docs/gpu.md has
// it as TAD_CUDA_GRAPHS=1), the runtime records the work issued
// between two waits of the host (a segment: a whole call, where the host
// reads nothing before its end) instead of issuing it, and issues it at the
// next wait:
//
//   - as the graph of an equal segment, captured before (equal: the same
//     kernels with the same grid, block and parameter bytes, and the same
//     GEMMs with the same arguments, in the same order), with one
//     cuGraphLaunch, which spares the driver one launch per kernel;
//   - else op by op, as without graphs; the second time a segment is seen
//     it is captured (cuStreamBeginCapture on the work stream, its ops
//     issued there, cuStreamEndCapture), instantiated and launched, and
//     kept for the next time.
//
// Deferring work to the next wait changes nothing the program can see: the
// work was asynchronous already, and the host waits (synchronize()) before
// it touches memory that work may use, copies, or frees memory to the
// driver. What a segment computes is fixed by its recorded bytes: a graph
// runs only for a segment equal to the one it was captured from.
//
// A graph cannot be captured from the legacy default stream, so with
// graphs every launch and GEMM goes to a stream of the runtime's own,
// created blocking (the copies and frees on the legacy stream wait for it).
// Kernels' parameters are copied by size, which the driver tells
// (cuFuncGetParamInfo, CUDA 12.4); with an older driver, graphs stay off,
// with a warning. A capture that fails turns graphs off for the process,
// with a warning, and the segment is issued op by op.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using CUresult = int;
constexpr int kCaptureModeRelaxed = 2; // CU_STREAM_CAPTURE_MODE_RELAXED
constexpr unsigned kStreamDefault = 0; // CU_STREAM_DEFAULT: blocking
/// At most this many graphs are kept; a segment seen once is remembered by
/// its hash, among at most kMaxSeen.
constexpr size_t kMaxGraphs = 32, kMaxSeen = 4096;

struct GraphDriver {
  CUresult (*streamCreate)(void **, unsigned);
  CUresult (*funcGetParamInfo)(void *, size_t, size_t *, size_t *);
  CUresult (*beginCapture)(void *, int);
  CUresult (*endCapture)(void *, void **);
  CUresult (*instantiate)(void **, void *, unsigned long long);
  CUresult (*launch)(void *, void *);
  CUresult (*execDestroy)(void *);
  CUresult (*destroy)(void *);
};

/// One kernel launch or other work (a GEMM) of a segment.
struct Op {
  void *function = nullptr; // the kernel; null for other work
  unsigned dims[6] = {};
  unsigned sharedMemory = 0;
  int (*issue)(const void *) = nullptr; // other work
  std::vector<size_t> offsets; // each kernel parameter's, within `bytes`
  std::vector<char> bytes;     // the parameters' values, or the work's key

  bool operator==(const Op &o) const {
    return function == o.function && issue == o.issue &&
           sharedMemory == o.sharedMemory &&
           std::memcmp(dims, o.dims, sizeof dims) == 0 && bytes == o.bytes;
  }
};

using Segment = std::vector<Op>;

struct Graph {
  Segment segment; // what it was captured from
  void *exec = nullptr;
};

struct Graphs {
  std::once_flag decided;
  bool enabled = false;
  bool failed = false; // a capture failed: off from then on
  GraphDriver driver{};
  void *stream = nullptr;
  // Recursive: a failed launch exits while it is held, and the exit
  // handler that destroys the graphs takes it again.
  std::recursive_mutex mutex;
  Segment recording;
  /// Each kernel's parameters: (offset, size) from the driver.
  std::unordered_map<void *, std::vector<std::pair<size_t, size_t>>> layouts;
  std::unordered_multimap<uint64_t, std::unique_ptr<Graph>> graphs;
  std::unordered_set<uint64_t> seen;
};

Graphs &graphs() {
  static Graphs *g = new Graphs; // used by an atexit handler
  return *g;
}

void warn(const std::string &what) {
  std::fprintf(stderr, "tad runtime: warning: CUDA graphs: %s\n", what.c_str());
}

template <typename F> bool resolve(const char *name, F &fn) {
  fn = reinterpret_cast<F>(tad::rt::cuda::driverSymbol(name));
  return fn != nullptr;
}

void destroyAll() {
  Graphs &g = graphs();
  for (auto &[hash, graph] : g.graphs)
    g.driver.execDestroy(graph->exec);
  g.graphs.clear();
}

void decide() {
  Graphs &g = graphs();
  const char *flag = std::getenv("TAD_CUDA_GRAPHS");
  if (!flag || !*flag || std::strcmp(flag, "0") == 0)
    return;
  GraphDriver &d = g.driver;
  if (!resolve("cuStreamCreate", d.streamCreate) ||
      !resolve("cuFuncGetParamInfo", d.funcGetParamInfo) ||
      !resolve("cuStreamBeginCapture_v2", d.beginCapture) ||
      !resolve("cuStreamEndCapture", d.endCapture) ||
      !resolve("cuGraphInstantiateWithFlags", d.instantiate) ||
      !resolve("cuGraphLaunch", d.launch) ||
      !resolve("cuGraphExecDestroy", d.execDestroy) ||
      !resolve("cuGraphDestroy", d.destroy)) {
    warn("the CUDA driver lacks what graphs need (a driver for CUDA 12.4 or "
         "later); launching kernels one by one");
    return;
  }
  if (d.streamCreate(&g.stream, kStreamDefault) != 0) {
    warn("cannot create a stream; launching kernels one by one");
    return;
  }
  g.enabled = true;
  // Registered after the driver's setup, this runs before anything that
  // setup registered.
  std::atexit([] {
    Graphs &g = graphs();
    std::lock_guard<std::recursive_mutex> lock(g.mutex);
    destroyAll();
  });
}

/// A hash of what makes segments equal, 8 bytes at a time (a GPT's step
/// records some 100 KB of parameters).
uint64_t hashOf(const Segment &segment) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&](const void *data, size_t n) {
    const char *bytes = static_cast<const char *>(data);
    for (size_t i = 0; i < n; i += 8) {
      uint64_t word = 0;
      std::memcpy(&word, bytes + i, std::min<size_t>(8, n - i));
      h = (h ^ word) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
  };
  for (const Op &op : segment) {
    mix(&op.function, sizeof op.function);
    mix(op.dims, sizeof op.dims);
    mix(op.bytes.data(), op.bytes.size());
  }
  return h;
}

/// Issues `op` on `stream`: 0, or the driver's or library's status.
int issue(Op &op, void *stream) {
  if (!op.function)
    return op.issue(op.bytes.data()); // on the work stream, `stream`
  std::vector<void *> params(op.offsets.size());
  for (size_t i = 0; i < params.size(); ++i)
    params[i] = op.bytes.data() + op.offsets[i];
  tad::rt::cuda::launchNow(op.function, op.dims, op.sharedMemory, stream,
                           params.data());
  return 0;
}

[[noreturn]] void failWork(int status) {
  std::fprintf(stderr,
               "tad runtime: error: cuBLAS: gemm failed with status "
               "%d\n",
               status);
  std::exit(4);
}

void issueAll(Segment &segment, void *stream) {
  for (Op &op : segment)
    if (int status = issue(op, stream))
      failWork(status);
}

/// Captures `segment` on the work stream as an instantiated graph, or null
/// with the reason in `why`.
void *capture(Graphs &g, Segment &segment, std::string &why) {
  GraphDriver &d = g.driver;
  if (CUresult r = d.beginCapture(g.stream, kCaptureModeRelaxed)) {
    why = "cannot capture a stream: " + tad::rt::cuda::describe(r);
    return nullptr;
  }
  // Nothing runs while the stream is captured: a GEMM that fails here
  // runs again, op by op, where its failure stops the program.
  int status = 0;
  for (Op &op : segment)
    if (!status)
      status = issue(op, g.stream);
  void *graph = nullptr, *exec = nullptr;
  CUresult r = d.endCapture(g.stream, &graph);
  if (status || r || !graph) {
    why = status ? "a GEMM failed while captured (cuBLAS status " +
                       std::to_string(status) + ")"
                 : "cannot capture a stream: " + tad::rt::cuda::describe(r);
    if (graph)
      d.destroy(graph);
    return nullptr;
  }
  r = d.instantiate(&exec, graph, 0);
  d.destroy(graph); // the instantiated graph keeps what it needs
  if (r) {
    why = "cannot instantiate a graph: " + tad::rt::cuda::describe(r);
    return nullptr;
  }
  return exec;
}

/// The graph captured from a segment equal to `segment`, or null.
Graph *find(Graphs &g, uint64_t hash, const Segment &segment) {
  auto [begin, end] = g.graphs.equal_range(hash);
  for (auto it = begin; it != end; ++it)
    if (it->second->segment == segment)
      return it->second.get();
  return nullptr;
}

void launch(Graphs &g, void *exec) {
  tad::rt::cuda::countGraphLaunch();
  tad::rt::cuda::check(g.driver.launch(exec, g.stream), "launching a graph");
}

/// Issues the recorded segment (g.mutex held).
void flushLocked(Graphs &g) {
  if (g.recording.empty())
    return;
  Segment segment = std::move(g.recording);
  g.recording.clear();
  // One op gains nothing from a graph.
  if (segment.size() < 2) {
    issueAll(segment, g.stream);
    return;
  }
  uint64_t hash = hashOf(segment);
  if (Graph *graph = find(g, hash, segment)) {
    launch(g, graph->exec);
    return;
  }
  if (!g.seen.erase(hash)) {
    if (g.seen.size() >= kMaxSeen)
      g.seen.clear();
    g.seen.insert(hash);
    issueAll(segment, g.stream);
    return;
  }
  std::string why;
  void *exec = capture(g, segment, why);
  if (!exec) {
    warn(why + "; launching kernels one by one from now on");
    g.failed = true;
    destroyAll();
    issueAll(segment, g.stream);
    return;
  }
  if (g.graphs.size() >= kMaxGraphs) {
    auto oldest = g.graphs.begin(); // any: a training loop needs few
    g.driver.execDestroy(oldest->second->exec);
    g.graphs.erase(oldest);
  }
  auto graph = std::make_unique<Graph>();
  graph->segment = std::move(segment);
  graph->exec = exec;
  g.graphs.emplace(hash, std::move(graph));
  launch(g, exec);
}

/// The offsets and sizes of `function`'s parameters, or null if the driver
/// cannot tell them.
const std::vector<std::pair<size_t, size_t>> *
layoutOf(Graphs &g, void *function, size_t count) {
  auto it = g.layouts.find(function);
  if (it == g.layouts.end()) {
    std::vector<std::pair<size_t, size_t>> layout(count);
    for (size_t i = 0; i < count; ++i)
      if (g.driver.funcGetParamInfo(function, i, &layout[i].first,
                                    &layout[i].second) != 0) {
        layout.clear();
        break;
      }
    it = g.layouts.emplace(function, std::move(layout)).first;
  }
  if (it->second.size() != count)
    return nullptr;
  return &it->second;
}

} // namespace

bool tad::rt::cuda::graphs::enabled() {
  Graphs &g = ::graphs();
  std::call_once(g.decided, decide);
  return g.enabled;
}

void *tad::rt::cuda::workStream() {
  return graphs::enabled() ? ::graphs().stream : nullptr;
}

bool tad::rt::cuda::graphs::recordLaunch(void *function, const unsigned dims[6],
                                         unsigned sharedMemory, void **params,
                                         size_t paramCount) {
  if (!enabled())
    return false;
  Graphs &g = ::graphs();
  std::lock_guard<std::recursive_mutex> lock(g.mutex);
  const auto *layout = g.failed ? nullptr : layoutOf(g, function, paramCount);
  if (!layout) {
    flushLocked(g); // what was recorded goes first
    return false;
  }
  Op op;
  op.function = function;
  std::memcpy(op.dims, dims, sizeof op.dims);
  op.sharedMemory = sharedMemory;
  size_t end = 0;
  for (auto [offset, size] : *layout)
    end = std::max(end, offset + size);
  // Zeroed: the padding between parameters is compared too.
  op.bytes.assign(end, 0);
  for (size_t i = 0; i < paramCount; ++i) {
    auto [offset, size] = (*layout)[i];
    std::memcpy(op.bytes.data() + offset, params[i], size);
    op.offsets.push_back(offset);
  }
  g.recording.push_back(std::move(op));
  return true;
}

bool tad::rt::cuda::graphs::recordWork(const void *key, size_t bytes,
                                       int (*issue)(const void *)) {
  if (!enabled())
    return false;
  Graphs &g = ::graphs();
  std::lock_guard<std::recursive_mutex> lock(g.mutex);
  if (g.failed) {
    flushLocked(g);
    return false;
  }
  Op op;
  op.issue = issue;
  op.bytes.assign(static_cast<const char *>(key),
                  static_cast<const char *>(key) + bytes);
  g.recording.push_back(std::move(op));
  return true;
}

void tad::rt::cuda::graphs::flush() {
  if (!enabled())
    return;
  Graphs &g = ::graphs();
  std::lock_guard<std::recursive_mutex> lock(g.mutex);
  flushLocked(g);
}
