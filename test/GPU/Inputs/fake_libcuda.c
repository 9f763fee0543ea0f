/* A stand-in for the CUDA driver (libcuda.so.1) that runs no kernel: it
 * checks the calls tad's runtime makes (a fatbin per module load, a
 * launch only with a loaded kernel and within a GPU's grid and block
 * limits, managed memory freed once and never while kernels may run) and
 * prints what it saw at exit. It lets the tests exercise
 * runtime/lib/Cuda.cpp on machines without a GPU.
 *
 * Launches are asynchronous on a GPU: from a launch until the next
 * cuStreamSynchronize, a kernel may still use the buffers it was given.
 * In that time those buffers are protected from the host (mprotect), so a
 * host access that compiled code makes without waiting first (a missing
 * wait of tad-gpu-host-waits) stops the program with a message and exit
 * status 70 instead of racing with a kernel. A kernel's buffers are found
 * among its parameters: the fatbin's cubin lists how many a kernel has
 * (the KPARAM_INFO attributes of its .nv.info section), and each that
 * holds the address of a block of managed memory is a buffer the kernel
 * uses. Where the count cannot be read, every block is protected.
 *
 * Device memory (cuMemAlloc, not managed) is protected from the host
 * always: a host access to it stops the program with a message and exit
 * status 71, as on a GPU it would read what is not host memory. Only the
 * copies (cuMemcpyDtoH, cuMemcpyHtoD) and fake_libcublas.c's GEMMs, work
 * of the stand-in device, touch it.
 *
 * Graphs (the runtime's TAD_CUDA_GRAPHS) are captured from a stream of the
 * runtime's own, never the default stream: a launch on a capturing stream
 * is recorded with its parameters' values (their sizes from the cubin, as
 * cuFuncGetParamInfo tells them), as is a GEMM of fake_libcublas.c on it
 * (fake_cuda_capture_host), and cuGraphLaunch runs them as launches and
 * GEMMs then. A wait, copy, allocation or free while a stream is captured
 * is a misuse, as is a graph left at exit. FAKE_CUDA_CAPTURE_FAILS=1 makes
 * every capture fail at its end, as a capture that an operation the stream
 * cannot capture invalidated; compiled with -DFAKE_CUDA_NO_GRAPHS, the
 * stand-in lacks cuFuncGetParamInfo, as a driver older than CUDA 12.4 does.
 *
 * FAKE_CUDA_DEVICES=0 reports no device; FAKE_CUDA_NO_BINARY=1 makes
 * module loads fail as on a GPU that the fatbin has no code for;
 * FAKE_CUDA_FAIL_LAUNCH=N makes the N-th launch fail, as a kernel that
 * faults does;
 * FAKE_CUDA_KERNELS=1 prints each kernel's parameter count when it is
 * first looked up; FAKE_CUDA_TRACE=1 prints at exit a hash of the work run
 * (each launch's kernel, grid, block and parameters, and each GEMM's
 * operands, in order; an address as its block's allocation number and the
 * offset in it), which is the same for two runs that did the same work on
 * the same buffers, whether launched one by one or as graphs. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;

static int modules, launches, syncs, pending, allocs, deviceAllocs, frees,
    errors, graphsCaptured, graphsLaunched, graphsLive;
/* FAKE_CUDA_TRACE's hash (FNV-1a) of the work run. */
static unsigned long long traceHash = 1469598103934665603ull;
static void trace(const void *data, size_t n) {
  for (size_t i = 0; i < n; ++i)
    traceHash =
        (traceHash ^ ((const unsigned char *)data)[i]) * 1099511628211ull;
}
static long long liveBytes, peakBytes;

/* The live blocks of managed memory: a header page (the block's sizes, its
 * place in `blocks`, whether issued work uses it) before the pages the
 * runtime gets. */
struct Header {
  size_t bytes, mapped, index;
  int busy;
  int deviceOnly; /* cuMemAlloc's: never the host's */
  long serial;    /* the allocation's number, from 0 */
};
static struct Header **blocks;
static size_t blockCount, blockCapacity;
static size_t pageSize;

static char *dataOf(struct Header *h) { return (char *)h + pageSize; }

static void protect(struct Header *h, int prot) {
  if (h->mapped > pageSize)
    mprotect(dataOf(h), h->mapped - pageSize, prot);
}

/* The block that `address` points into, if any. */
static struct Header *blockOf(const void *address) {
  const char *at = address;
  for (size_t i = 0; i < blockCount; ++i)
    if (at >= dataOf(blocks[i]) && at < (char *)blocks[i] + blocks[i]->mapped)
      return blocks[i];
  return NULL;
}

/* Issued work uses `h`: the host may not touch it until the next wait. */
static void useBlock(struct Header *h) {
  if (h && !h->busy) {
    h->busy = 1;
    protect(h, PROT_NONE);
  }
}

static void releaseAll(void) {
  for (size_t i = 0; i < blockCount; ++i)
    if (blocks[i]->busy) {
      blocks[i]->busy = 0;
      if (!blocks[i]->deviceOnly)
        protect(blocks[i], PROT_READ | PROT_WRITE);
    }
}

static void onFault(int sig, siginfo_t *info, void *context) {
  (void)context;
  struct Header *h = blockOf(info->si_addr);
  if (h && h->deviceOnly) {
    static const char text[] =
        "fake libcuda: the host touched device memory (cuMemAlloc), which "
        "only the device and copies may\n";
    ssize_t written = write(2, text, sizeof text - 1);
    (void)written;
    _exit(71);
  }
  if (h && h->busy) {
    static const char text[] =
        "fake libcuda: the host touched device memory that a kernel could "
        "still be using (no wait since its launch)\n";
    ssize_t written = write(2, text, sizeof text - 1);
    (void)written;
    _exit(70);
  }
  /* Not ours: fault again without this handler. */
  signal(sig, SIG_DFL);
}

static void misuse(const char *what) {
  fprintf(stderr, "fake libcuda: misuse: %s\n", what);
  ++errors;
}

static void report(void) {
  if (graphsLive)
    misuse("graphs left at exit");
  fprintf(stderr,
          "fake libcuda: %d modules, %d launches, %d synchronizations, %d "
          "allocations, %d frees, peak %lld bytes, %d errors; %d of the "
          "allocations device memory\n",
          modules, launches, syncs, allocs, frees, peakBytes, errors,
          deviceAllocs);
  if (graphsCaptured)
    fprintf(stderr, "fake libcuda: %d graphs captured, %d launched\n",
            graphsCaptured, graphsLaunched);
  const char *t = getenv("FAKE_CUDA_TRACE");
  if (t && *t)
    fprintf(stderr, "fake libcuda: work hash %016llx\n", traceHash);
}

/* Adds an address or value of `size` bytes to the trace: an address in a
 * block as the block's number and the offset. */
static void traceValue(const void *value, size_t size) {
  void *address = NULL;
  if (size == sizeof address)
    memcpy(&address, value, sizeof address);
  struct Header *h = address ? blockOf(address) : NULL;
  if (h) {
    long at[2] = {h->serial, (long)((char *)address - dataOf(h))};
    trace(at, sizeof at);
  } else {
    trace(value, size);
  }
}

/* For fake_libcublas.c, whose GEMMs run on the host: `begin` 1 before one
 * reads and writes the blocks of `a`, `b` and `c` (which the GEMM may, in
 * stream order), 0 after it, which leaves them in use by issued work, as
 * a GPU's GEMM would until the host waits. */
void fake_cuda_device_work(int begin, const void *a, const void *b,
                           const void *c) {
  const void *operands[] = {a, b, c};
  if (begin)
    for (int i = 0; i < 3; ++i)
      traceValue(&operands[i], sizeof operands[i]);
  for (int i = 0; i < 3; ++i) {
    struct Header *h = blockOf(operands[i]);
    if (!h)
      continue;
    if (begin && (h->busy || h->deviceOnly))
      protect(h, PROT_READ | PROT_WRITE);
    if (begin) {
      h->busy = 0;
    } else {
      useBlock(h);
      if (h->deviceOnly) /* used already, from an earlier operand */
        protect(h, PROT_NONE);
    }
  }
  if (!begin)
    pending = 1;
}

/* The number of parameters of kernel `name` in `fatbin`'s first cubin (the
 * KPARAM_INFO attributes of section .nv.info.<name>), or -1; each one's
 * offset and size into `offsets` and `sizes` (by ordinal, `capacity` at
 * most). */
static int parameterLayout(const unsigned char *fatbin, const char *name,
                           size_t *offsets, size_t *sizes, int capacity) {
  uint16_t headerSize;
  uint64_t fatSize;
  memcpy(&headerSize, fatbin + 6, 2);
  memcpy(&fatSize, fatbin + 8, 8);
  const unsigned char *entry = fatbin + headerSize;
  const unsigned char *end = entry + fatSize;
  while (entry < end) {
    uint32_t entryHeader;
    uint64_t size;
    memcpy(&entryHeader, entry + 4, 4);
    memcpy(&size, entry + 8, 8);
    const unsigned char *elf = entry + entryHeader;
    entry = elf + size;
    if (memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2) /* ELF64 only */
      continue;
    uint64_t sections;
    uint16_t sectionSize, sectionCount, namesIndex;
    memcpy(&sections, elf + 0x28, 8);
    memcpy(&sectionSize, elf + 0x3a, 2);
    memcpy(&sectionCount, elf + 0x3c, 2);
    memcpy(&namesIndex, elf + 0x3e, 2);
    uint64_t namesOffset;
    memcpy(&namesOffset, elf + sections + namesIndex * sectionSize + 0x18, 8);
    char wanted[512];
    snprintf(wanted, sizeof wanted, ".nv.info.%s", name);
    for (uint16_t i = 0; i < sectionCount; ++i) {
      const unsigned char *section = elf + sections + i * sectionSize;
      uint32_t nameOffset;
      uint64_t offset, bytes;
      memcpy(&nameOffset, section, 4);
      memcpy(&offset, section + 0x18, 8);
      memcpy(&bytes, section + 0x20, 8);
      if (strcmp((const char *)elf + namesOffset + nameOffset, wanted) != 0)
        continue;
      /* Attributes: a format byte, an attribute byte, then 2 bytes of
       * value (formats 1-3) or a 2-byte size and that many bytes (4). */
      int count = 0;
      const unsigned char *at = elf + offset, *stop = at + bytes;
      while (at + 4 <= stop) {
        uint16_t valueSize = 0;
        if (at[0] == 4)
          memcpy(&valueSize, at + 2, 2);
        else if (at[0] < 1 || at[0] > 3)
          return -1;
        if (at[0] == 4 && at[1] == 0x17 && valueSize >= 12) {
          /* EIATTR_KPARAM_INFO: index (4 bytes), ordinal and offset (2
           * each), then flags with the size in bits 18-31. */
          uint16_t ordinal, offset;
          uint32_t flags;
          memcpy(&ordinal, at + 8, 2);
          memcpy(&offset, at + 10, 2);
          memcpy(&flags, at + 12, 4);
          if (ordinal < capacity) {
            offsets[ordinal] = offset;
            sizes[ordinal] = (flags >> 18) & 0x3fff;
          }
          ++count;
        }
        at += 4 + valueSize;
      }
      return count;
    }
    return -1;
  }
  return -1;
}

/* A kernel, as cuModuleGetFunction returns it; each is looked up once (the
 * runtime looks a kernel up before every launch). */
enum { kMaxParameters = 1024 };
struct Function {
  const void *module;
  const char *name; /* compiled code's constant */
  int parameters;   /* -1: unknown */
  size_t *offsets, *sizes; /* each parameter's, where known */
};
static struct Function *functions;
static size_t functionCount, functionCapacity;

CUresult cuInit(unsigned flags) {
  (void)flags;
  pageSize = (size_t)sysconf(_SC_PAGESIZE);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, NULL);
  atexit(report);
  return 0;
}
CUresult cuDeviceGetCount(int *count) {
  const char *n = getenv("FAKE_CUDA_DEVICES");
  *count = n ? atoi(n) : 1;
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  *value = attribute == 75 ? 7 : 0; /* compute capability 7.0 */
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) {
  if (context != (void *)0x1)
    misuse("unknown context");
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  unsigned magic;
  memcpy(&magic, image, sizeof magic);
  if (magic != 0xBA55ED50u)
    misuse("a module that is not a fatbin");
  if (getenv("FAKE_CUDA_NO_BINARY"))
    return 209; /* CUDA_ERROR_NO_BINARY_FOR_GPU */
  ++modules;
  *module = (void *)image; /* compiled code keeps its fatbins */
  return 0;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  if (!module || !name || !*name) {
    misuse("a kernel of an unknown module");
    return 500; /* CUDA_ERROR_NOT_FOUND */
  }
  for (size_t i = 0; i < functionCount; ++i)
    if (functions[i].module == module && functions[i].name == name) {
      *function = &functions[i];
      return 0;
    }
  if (functionCount == functionCapacity) {
    /* Kept apart from `functions` until full: earlier handles stay valid. */
    functionCapacity = functionCapacity ? 2 * functionCapacity : 256;
    functions = calloc(functionCapacity, sizeof *functions);
    functionCount = 0;
  }
  struct Function *f = &functions[functionCount++];
  f->module = module;
  f->name = name;
  f->offsets = calloc(kMaxParameters, sizeof *f->offsets);
  f->sizes = calloc(kMaxParameters, sizeof *f->sizes);
  f->parameters =
      parameterLayout(module, name, f->offsets, f->sizes, kMaxParameters);
  if (getenv("FAKE_CUDA_KERNELS"))
    fprintf(stderr, "fake libcuda: kernel %s: %d parameters\n", name,
            f->parameters);
  *function = f;
  return 0;
}
/* Runs a launch: checks it, counts it, and marks the blocks it may use. */
static void execute(struct Function *f, const unsigned dims[6], unsigned smem,
                    void **params) {
  if (!f || !dims[0] || !dims[1] || !dims[2] || !dims[3] || !dims[4] ||
      !dims[5] || smem || !params)
    misuse("a launch with an unknown kernel or an empty grid");
  /* A GPU's limits (compute capability 8.0 and 9.0). */
  if (dims[0] > 2147483647u || dims[1] > 65535 || dims[2] > 65535 ||
      dims[5] > 64 || (unsigned long long)dims[3] * dims[4] * dims[5] > 1024)
    misuse("a launch past the grid's or the block's limits");
  ++launches;
  pending = 1;
  if (!f || f->parameters < 0) {
    for (size_t i = 0; i < blockCount; ++i)
      useBlock(blocks[i]);
    return;
  }
  trace(f->name, strlen(f->name));
  trace(dims, 6 * sizeof *dims);
  /* Each parameter that holds an address in a block (8 bytes read from a
   * slot of 4 hold the next slot's or padding too: never a block's
   * address in practice). */
  for (int i = 0; i < f->parameters; ++i) {
    void *value;
    memcpy(&value, params[i], sizeof value);
    useBlock(blockOf(value));
    if (i < kMaxParameters)
      traceValue(params[i], f->sizes[i]);
  }
}

/* The runtime's streams (cuStreamCreate) and graphs: a node is a launch
 * with its parameters' bytes, or a GEMM of fake_libcublas.c to run. */
enum { kMaxStreams = 4 };
static int streams;
static void *capturing; /* the stream being captured, or null */
struct Node {
  struct Function *function; /* null: run(arg) */
  unsigned dims[6];
  char *bytes; /* the parameters' values, at their offsets */
  void (*run)(void *);
  void *arg;
};
struct Graph {
  struct Node *nodes;
  size_t count, capacity;
};
static struct Graph *recording;

static int isStream(void *stream) {
  return (size_t)stream >= 0x10 && (size_t)stream < 0x10 + (size_t)streams;
}
static void checkNotCapturing(const char *what) {
  if (capturing) {
    char text[160];
    snprintf(text, sizeof text, "%s while a stream is captured", what);
    misuse(text);
  }
}
static struct Node *addNode(void) {
  if (recording->count == recording->capacity) {
    recording->capacity = recording->capacity ? 2 * recording->capacity : 64;
    recording->nodes = realloc(recording->nodes,
                               recording->capacity * sizeof *recording->nodes);
  }
  struct Node *n = &recording->nodes[recording->count++];
  memset(n, 0, sizeof *n);
  return n;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  if (flags != 0)
    misuse("a stream that does not wait for the default stream");
  if (streams == kMaxStreams) {
    misuse("more streams than the runtime needs");
    return 1;
  }
  *stream = (void *)(size_t)(0x10 + streams++);
  return 0;
}
#ifndef FAKE_CUDA_NO_GRAPHS
CUresult cuFuncGetParamInfo(void *function, size_t index, size_t *offset,
                            size_t *size) {
  struct Function *f = function;
  if (!f || f->parameters < 0 || index >= (size_t)f->parameters ||
      index >= kMaxParameters)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  *offset = f->offsets[index];
  *size = f->sizes[index];
  return 0;
}
#endif
CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  (void)mode;
  if (!isStream(stream)) {
    misuse("a capture of the default stream");
    return 900; /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
  }
  checkNotCapturing("a capture begun");
  capturing = stream;
  recording = calloc(1, sizeof *recording);
  return 0;
}
CUresult cuStreamEndCapture(void *stream, void **graph) {
  if (!capturing || stream != capturing) {
    misuse("a capture ended that was not begun");
    return 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
  }
  capturing = NULL;
  *graph = recording;
  recording = NULL;
  if (getenv("FAKE_CUDA_CAPTURE_FAILS")) {
    free(*graph);
    *graph = NULL;
    return 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
  }
  ++graphsCaptured;
  ++graphsLive;
  return 0;
}
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                     unsigned long long flags) {
  (void)flags;
  const struct Graph *g = graph;
  struct Graph *copy = calloc(1, sizeof *copy);
  copy->count = copy->capacity = g->count;
  copy->nodes = malloc((g->count ? g->count : 1) * sizeof *copy->nodes);
  memcpy(copy->nodes, g->nodes, g->count * sizeof *copy->nodes);
  ++graphsLive;
  *exec = copy;
  return 0;
}
/* The nodes' bytes and arguments are shared by a graph and its instances,
 * and kept: the stand-in does not free them. */
CUresult cuGraphDestroy(void *graph) {
  --graphsLive;
  free(graph);
  return 0;
}
CUresult cuGraphExecDestroy(void *exec) {
  --graphsLive;
  free(exec);
  return 0;
}
CUresult cuGraphLaunch(void *exec, void *stream) {
  if (!isStream(stream))
    misuse("a graph launched on the default stream");
  checkNotCapturing("a graph launched");
  const struct Graph *g = exec;
  ++graphsLaunched;
  for (size_t i = 0; i < g->count; ++i) {
    const struct Node *n = &g->nodes[i];
    if (!n->function) {
      n->run(n->arg);
      continue;
    }
    void *params[kMaxParameters];
    for (int p = 0; p < n->function->parameters; ++p)
      params[p] = n->bytes + n->function->offsets[p];
    execute(n->function, n->dims, 0, params);
  }
  return 0;
}

/* For fake_libcublas.c: records run(arg) as a node of the graph captured
 * from `stream` and says 1, or says 0 if `stream` is not captured. */
int fake_cuda_capture_host(void *stream, void (*run)(void *), void *arg) {
  if (!capturing || stream != capturing)
    return 0;
  struct Node *n = addNode();
  n->run = run;
  n->arg = arg;
  return 1;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)extra;
  const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  if (stream && !isStream(stream))
    misuse("a launch on an unknown stream");
  struct Function *f = function;
  if (!capturing || stream != capturing) {
    if (capturing)
      misuse("a launch on another stream while a stream is captured");
    const char *failAt = getenv("FAKE_CUDA_FAIL_LAUNCH");
    if (failAt && launches + 1 == atoi(failAt))
      return 719; /* CUDA_ERROR_LAUNCH_FAILED */
    execute(f, dims, smem, params);
    return 0;
  }
  if (!f || f->parameters < 0 || !params) {
    misuse("a kernel captured whose parameters are unknown");
    return 1;
  }
  struct Node *n = addNode();
  n->function = f;
  memcpy(n->dims, dims, sizeof dims);
  size_t end = 0;
  for (int p = 0; p < f->parameters; ++p)
    if (f->offsets[p] + f->sizes[p] > end)
      end = f->offsets[p] + f->sizes[p];
  n->bytes = calloc(end ? end : 1, 1);
  for (int p = 0; p < f->parameters; ++p)
    memcpy(n->bytes + f->offsets[p], params[p], f->sizes[p]);
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  if (stream && !isStream(stream))
    misuse("a wait for an unknown stream");
  checkNotCapturing("a wait");
  ++syncs;
  releaseAll();
  pending = 0;
  return 0;
}
/* A block of `bytes`, managed memory or device memory. */
static CUresult allocate(unsigned long long *ptr, size_t bytes,
                         int deviceOnly) {
  checkNotCapturing("an allocation");
  /* Zeroed, so that a program whose only kernels fill zeros computes
   * correctly here (fake_libcublas.c does its matmuls on the host). */
  size_t mapped = pageSize + (bytes + pageSize - 1) / pageSize * pageSize;
  struct Header *h = mmap(NULL, mapped, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (h == MAP_FAILED)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  if (blockCount == blockCapacity) {
    blockCapacity = blockCapacity ? 2 * blockCapacity : 64;
    blocks = realloc(blocks, blockCapacity * sizeof *blocks);
  }
  h->bytes = bytes;
  h->mapped = mapped;
  h->index = blockCount;
  h->busy = 0;
  h->deviceOnly = deviceOnly;
  h->serial = allocs;
  if (deviceOnly) {
    protect(h, PROT_NONE);
    ++deviceAllocs;
  }
  blocks[blockCount++] = h;
  *ptr = (unsigned long long)(size_t)dataOf(h);
  ++allocs;
  liveBytes += (long long)bytes;
  if (liveBytes > peakBytes)
    peakBytes = liveBytes;
  return 0;
}
CUresult cuMemAllocManaged(unsigned long long *ptr, size_t bytes,
                           unsigned flags) {
  if (flags != 1)
    misuse("managed memory not attached globally");
  return allocate(ptr, bytes, 0);
}
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  return allocate(ptr, bytes, 1);
}
/* The device memory block that [at, at + bytes) lies in, made addressable
 * for a copy; null (a misuse) if there is none. A copy waits for the
 * work issued before it, as a copy on the default stream does. */
static struct Header *copied(const void *at, size_t bytes) {
  checkNotCapturing("a copy");
  struct Header *h = blockOf(at);
  if (!h || !h->deviceOnly || (const char *)at + bytes > dataOf(h) + h->bytes) {
    misuse("a copy outside device memory");
    return NULL;
  }
  releaseAll();
  pending = 0;
  protect(h, PROT_READ | PROT_WRITE);
  return h;
}
CUresult cuMemcpyDtoH_v2(void *host, unsigned long long device, size_t bytes) {
  struct Header *h = copied((const void *)(size_t)device, bytes);
  if (!h)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  memcpy(host, (const void *)(size_t)device, bytes);
  protect(h, PROT_NONE);
  return 0;
}
CUresult cuMemcpyHtoD_v2(unsigned long long device, const void *host,
                         size_t bytes) {
  struct Header *h = copied((const void *)(size_t)device, bytes);
  if (!h)
    return 1;
  memcpy((void *)(size_t)device, host, bytes);
  protect(h, PROT_NONE);
  return 0;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  checkNotCapturing("a free");
  struct Header *h = (struct Header *)((char *)(size_t)ptr - pageSize);
  if (pending)
    misuse("memory freed while a kernel could still be using it");
  liveBytes -= (long long)h->bytes;
  ++frees;
  blocks[h->index] = blocks[--blockCount];
  blocks[h->index]->index = h->index;
  munmap(h, h->mapped);
  return 0;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 209   ? "no kernel image is available for execution on the "
                           "device"
          : error == 901 ? "operation failed due to a previous error during "
                           "capture"
          : error == 719 ? "unspecified launch failure"
                         : "unknown error";
  return 0;
}
