/*===- Runtime.h - the tad runtime: allocator, GEMM, timing -------*- C -*-===*\
|*                                                                            *|
|* The C ABI that compiled tad code and its callers link against. It needs   *|
|* neither LLVM nor MLIR: a compiled library or executable carries it alone. *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TAD_RUNTIME_RUNTIME_H
#define TAD_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Allocator ---------------------------------------------------------===*/
/* Every buffer that compiled code allocates comes from these functions (the
 * lowering passes `use-generic-functions` to finalize-memref-to-llvm). They
 * count the bytes that are live: this is the measured side of tad's memory
 * model (docs/memory.md). */

void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

typedef struct tad_rt_stats {
  int64_t current_bytes; /* bytes allocated and not yet freed */
  int64_t peak_bytes;    /* the maximum of current_bytes since the last reset */
  int64_t allocations;   /* number of allocations since the last reset */
  int64_t frees;         /* number of frees since the last reset */
} tad_rt_stats;

tad_rt_stats tad_rt_get_stats(void);
/* Freed host memory stays with the runtime (its arena, whose extent stays
 * within 5/4 of the highest live total reached) for the next allocations;
 * it is not live and not counted. So do freed blocks of GPU memory (a pool
 * of at most the highest live total), and the blocks of staged inputs
 * (tad_rt_stage_input, for the next call's inputs). This hands the pages
 * of the free memory back to the kernel and the blocks back to the driver,
 * and returns their bytes. */
int64_t tad_rt_release_kept(void);
/* The bytes of host memory the runtime's arena spans (live and free
 * buffers together): at most 5/4 of the highest live total reached. */
int64_t tad_rt_held_bytes(void);
/* Sets the peak to the current bytes and the counts to zero: the start of a
 * measured call. */
void tad_rt_reset_peak(void);
/* Binomial checkpointing's actions, counted by reverse loops compiled with
 * `--count-revolve-actions` (tad-autodiff's count-revolve-actions): the
 * kind is 0 store, 1 restore, 2 advance, 3 reverse. tad_rt_reset_peak()
 * resets the counts; tad_rt_revolve_counts() writes the four since. */
void tad_rt_count_revolve_action(int64_t kind);
/* What the compiled code calls (its functions get C wrappers). */
void _mlir_ciface_tad_rt_count_revolve_action(int64_t kind);
void tad_rt_revolve_counts(int64_t counts[4]);
/* The allocation trace: while enabled, every allocation and free of the
 * runtime appends one event. It is the measured memory timeline
 * (`tadc run --memory-trace`). */
typedef struct tad_rt_trace_event {
  double seconds;       /* tad_rt_now_seconds() at the event */
  int64_t size;         /* bytes allocated (> 0) or freed (< 0) */
  int64_t live_bytes;   /* current_bytes after the event */
} tad_rt_trace_event;
/* Clears the trace and starts (nonzero) or stops (zero) recording. */
void tad_rt_trace_enable(int enable);
/* The events recorded since the last tad_rt_trace_enable(1). */
size_t tad_rt_trace_size(void);
const tad_rt_trace_event *tad_rt_trace_data(void);

/* Whether `ptr` was allocated by this runtime and is still live. */
int tad_rt_owns(const void *ptr);
/* Frees a buffer that compiled code returned. */
void tad_rt_free(void *ptr);

/*===-- Results of compiled functions ------------------------------------===*/
/* Copies the (possibly strided) buffer described by a memref descriptor of
 * rank `rank` into `destination`, contiguous in C order. */
void tad_rt_copy_out(const int64_t *descriptor, int64_t rank,
                     int64_t element_size, void *destination);
/* Frees the buffer of a result descriptor if the runtime allocated it and it
 * is still live (several results may share one buffer). */
void tad_rt_release(const int64_t *descriptor);

/*===-- Copies ------------------------------------------------------------===*/
/* memref.copy between buffers that are not both contiguous lowers to this
 * call (MLIR's name): a strided copy of `elem_size`-byte elements. */

typedef struct tad_rt_unranked_memref {
  int64_t rank;
  void *descriptor; /* a ranked descriptor of that rank */
} tad_rt_unranked_memref;

void memrefCopy(int64_t elem_size, tad_rt_unranked_memref *src,
                tad_rt_unranked_memref *dst);

/*===-- GEMM --------------------------------------------------------------===*/
/* C += A * B on strided buffers: cblas_sgemm / cblas_dgemm when the layout
 * allows it, a plain loop otherwise. The `assign` forms compute C = A * B
 * (BLAS's beta = 0: C's old elements are not read). */

typedef struct tad_rt_memref2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} tad_rt_memref2;
typedef struct tad_rt_memref3 {
  void *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} tad_rt_memref3;

void _mlir_ciface_tad_rt_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c);
void _mlir_ciface_tad_rt_matmul_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c);
void _mlir_ciface_tad_rt_batch_matmul_f32(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c);
void _mlir_ciface_tad_rt_batch_matmul_f64(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c);
void _mlir_ciface_tad_rt_matmul_assign_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                           tad_rt_memref2 *c);
void _mlir_ciface_tad_rt_matmul_assign_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                           tad_rt_memref2 *c);
void _mlir_ciface_tad_rt_batch_matmul_assign_f32(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c);
void _mlir_ciface_tad_rt_batch_matmul_assign_f64(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c);

/* The number of threads of BLAS and of tad's loop nests (1 gives
 * single-threaded, comparable runs). Until it is called, the loop nests use
 * TAD_NUM_THREADS, else what OpenBLAS uses: OPENBLAS_NUM_THREADS, else
 * OMP_NUM_THREADS, else every core. */
void tad_rt_set_num_threads(int threads);

/* Runs task(context, begin, end) on parts of [lo, hi) that cover it, on the
 * threads tad_rt_set_num_threads chose (tad-parallelize-calls calls it for
 * every loop nest whose outer iterations are independent). */
void tad_rt_parallel_for(void (*task)(void *, int64_t, int64_t), void *context,
                         int64_t lo, int64_t hi);

/* The OpenBLAS core type whose kernels run the GEMMs ("SkylakeX",
   "Haswell", ...), loading OpenBLAS if it was not yet (docs/runtime.md);
   "none" when it could not be loaded or the runtime has no BLAS. */
const char *tad_rt_blas_core(void);

/*===-- CUDA (docs/gpu.md) -----------------------------------------------===*/
/* GPU code (tadc --target=cuda) needs the CUDA driver, which the runtime
 * loads when first needed (libcuda.so.1): nothing is linked against it. */

/* Loads the driver, makes device 0 current, and from then on allocates every
 * buffer of compiled code in CUDA managed memory (addressable by the GPU and
 * the host), or in device memory where the compiler marked it as touched by
 * the GPU only (tad_rt_mark_device_buffer), counted as above. Returns 0, or -1
 * when there is no driver, no GPU, or the compiled GPU code cannot load on it:
 * tad_rt_cuda_error() then says which. Every entry point of GPU code calls it
 * first. */
int tad_rt_cuda_begin(void);
const char *tad_rt_cuda_error(void);

/* A copy of `bytes` bytes at `data` that the GPU can read, outside the
 * allocator's counts (an input is the caller's memory); after
 * tad_rt_cuda_begin() only, `data` itself otherwise. */
void *tad_rt_stage_input(const void *data, size_t bytes);
/* Frees what tad_rt_stage_input() returned: its block is kept for the next
 * input of its size (tad_rt_release_kept() hands it back). */
void tad_rt_unstage_input(void *staged);

/* Waits until the kernels and cuBLAS calls issued so far have finished;
 * nothing (and not counted) when none was issued since the last wait.
 * Kernels are launched without waiting; compiled code calls this where the
 * host touches memory itself, and waits before an entry point returns. */
void tad_rt_cuda_wait(void);

/* What a call did on the GPU, counted since tad_rt_reset_peak() (the start
 * of a measured call): the kernels tad's code launched (through the driver,
 * or run by the emulator, tadc --target=cuda-emulator, which counts the same
 * launches), the cuBLAS calls (each launches kernels of cuBLAS's own, not
 * counted above), and the waits of the host for the GPU (those with work
 * to wait for). Buffers are in managed memory, which the driver migrates
 * between host and device on its own: `staged_bytes` counts the copies the
 * runtime makes itself, the inputs that tad_rt_stage_input() copies to
 * memory the GPU reads, since the program started (the runner stages them
 * once, before its calls). docs/gpu.md, "Launch and memory accounting". */
typedef struct tad_rt_gpu_counts {
  int64_t kernel_launches;
  int64_t blas_calls;
  int64_t synchronizations;
  int64_t staged_bytes;
  int64_t scratch_bytes; /* the most bytes of scratch live at once */
  /* The most bytes of buffers in device memory live at once (the rest of
   * peak_bytes is managed memory), and the bytes the runtime copied between
   * host and device memory in the last call (a GEMM whose layout cuBLAS
   * cannot take runs on the host, on copies of its operands). */
  int64_t device_bytes;
  int64_t copied_bytes;
  /* The CUDA graphs launched in the last call (TAD_CUDA_GRAPHS): each runs
   * kernels and GEMMs that the counts above count as launched. */
  int64_t graph_launches;
} tad_rt_gpu_counts;
tad_rt_gpu_counts tad_rt_get_gpu_counts(void);
/* Scratch: the next allocation of the calling thread is a buffer that the
 * compiler added after the buffer plan (the partial results of a reduction
 * that tad-split-long-reductions cut into chunks for GPU threads). It is
 * counted apart, in scratch_bytes above, not in tad_rt_stats: current_bytes
 * and peak_bytes stay the plan's buffers. Called by compiled code (and its
 * C interface). */
void tad_rt_mark_scratch(void);
void _mlir_ciface_tad_rt_mark_scratch(void);
/* The next allocation of the calling thread is a buffer that only the GPU
 * touches (kernels and cuBLAS; tad-gpu-device-buffers decides): after
 * tad_rt_cuda_begin(), device memory (cuMemAlloc), which the host cannot
 * address, unless the environment sets TAD_CUDA_MANAGED_ONLY. Counted as
 * every buffer is. Called by compiled code (and its C interface). */
void tad_rt_mark_device_buffer(void);
void _mlir_ciface_tad_rt_mark_device_buffer(void);
/* What the emulator's launches call (and, for compiled code, its C
 * interface): one launch. */
void tad_rt_count_kernel_launch(void);
void _mlir_ciface_tad_rt_count_kernel_launch(void);

/* The functions that MLIR's gpu-to-llvm lowering calls: loading the GPU
 * modules (from constructors of the compiled code) and launching kernels on
 * the default stream. */
void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemory, void *stream,
                      void **params, void **extra, size_t paramsCount);

/*===-- Processes (docs/distributed.md) ---------------------------------===*/
/* Programs with collectives (all_reduce) run as MPI processes. */

/* Initializes MPI the first time it is called, unless the host program did,
 * and finalizes it at exit if it initialized it; records the rank and the
 * number of processes. Compiled code calls it before every collective;
 * a caller may call it first to learn its rank. Defined only in programs
 * with collectives (libtad_runtime_mpi); exits with a message when MPI
 * cannot start or a launcher of another MPI started the process. */
void tad_rt_mpi_init(void);
/* This process's rank and the number of processes: 0 and 1 until MPI is
 * initialized (and in programs without collectives). */
int tad_rt_process_rank(void);
int tad_rt_process_count(void);
/* Whether MPI was initialized for this process's collectives. */
int tad_rt_processes_known(void);
/* What tad_rt_mpi_init() records. */
void tad_rt_set_processes(int rank, int count);

/*===-- Timing ------------------------------------------------------------===*/

/* Seconds on a monotonic clock. */
double tad_rt_now_seconds(void);

#ifdef __cplusplus
}
#endif

#endif /* TAD_RUNTIME_RUNTIME_H */
