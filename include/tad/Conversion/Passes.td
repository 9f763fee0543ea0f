//===- Passes.td - tad conversion passes -------------------*- tablegen -*-===//
//
// Every conversion out of the tad dialect, in one file (as CIRCT does).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_PASSES_TD
#define TAD_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTadToLinalg : Pass<"convert-tad-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lowers the tad dialect to linalg, tensor, arith and math";
  let description = [{
    Rewrites every tad op on tensors: elementwise ops, broadcasts and
    transposes become `linalg.generic` ops (so that chains of them fuse into
    one loop nest), reductions become `linalg.generic` reductions, matmuls
    become `linalg.matmul` / `linalg.batch_matmul` on zero-filled outputs,
    shape ops become `tensor` ops, and softmax and logsumexp become the
    numerically stable max-subtracted form. `tad.checkpoint` regions are
    inlined: by this point AD and remat have given them their meaning.
    `tad.all_reduce` becomes `mpi.allreduce` on buffers where `collectives`
    is set (the CPU target), and an error elsewhere; the module then gets
    the DLTI entry `MPI:Implementation` of the MPI that tad was built with.

    ```mlir
    %z = tad.add %x, %y : tensor<4xf32>
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel"]}
        ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::memref::MemRefDialect", "mlir::mpi::MPIDialect",
    "mlir::DLTIDialect"
  ];
  let options = [
    Option<"collectives", "collectives", "bool", "true",
           "Lower tad.all_reduce to the mpi dialect (else it is an error: "
           "the target has no collectives)">
  ];
}

def FoldTransposesIntoMatmuls
    : Pass<"tad-fold-transposes-into-matmuls", "mlir::ModuleOp"> {
  let summary = "Makes matmuls read and write permuted tensors through views";
  let description = [{
    Folds a `linalg.generic` that only permutes a tensor's dimensions into
    the indexing map of the contraction (`linalg.matmul`, `batch_matmul`,
    or a generic contraction) that reads its result, or whose only use it
    permutes; the contraction becomes a `linalg.generic` with the composed
    map, and tad-matmul-to-runtime passes that operand to the runtime's
    GEMM as a permuted view. Attention's heads (a transpose of a reshaped
    projection, and back) then cost no copy.

    An input folds only when every use of the copy is a contraction's input
    and its source is a whole buffer (a block argument or a linalg result,
    through reshapes), so that no larger buffer lives longer; a result
    folds only when the contraction's output is a fill of an empty tensor.
    The operand must keep a unit stride in one of its matrix dimensions
    (the output's in its columns), so that BLAS can read it.

    ```mlir
    %t = linalg.generic {indexing_maps = [(b, s, d) -> (s, b, d),
                                          (b, s, d) -> (b, s, d)], ...}
        ins(%x : tensor<128x4x64xf32>) outs(%e : tensor<4x128x64xf32>)
    %c = linalg.batch_matmul ins(%t, %w : ...) outs(%z : ...)
    ```
    becomes a contraction that reads `%x` through
    `(b, m, n, k) -> (m, b, k)`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"tad-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg ops as the remat memory model assumes";
  let description = [{
    Fuses an all-parallel `linalg.generic` into its consumer when it is the
    producer's only use (after duplicate operands of one consumer are merged),
    and nothing else: unlike upstream `linalg-fuse-elementwise-ops`, it does
    not propagate reshapes through generics. The remat pass predicts the
    peak bytes of the code this pipeline generates (docs/memory.md); which
    values get a buffer is decided here, by the same rule it models.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SplitReductions : Pass<"tad-split-reductions", "mlir::ModuleOp"> {
  let summary = "Splits sums along the innermost dimension into vector lanes";
  let description = [{
    Rewrites a `linalg.generic` on tensors that sums (`arith.addf` into its
    accumulator) over one dimension, the innermost of its iteration space
    and of each input, into a sum into 8 (f64) or 16 (f32) lanes, lane `l`
    adding the elements `l`, `l + L`, `l + 2L`, ... in order, followed by a
    sum of the lanes in order into the original accumulator (linalg's
    split reduction, the lanes the innermost, parallel dimension). The
    dimension's length must be a multiple of the lanes, and at least
    twice as long. The order of the additions is then fixed in the IR: the
    CPU's inner loop over lanes vectorizes, and GPU code adds in the same
    order, so that both get the same bits (docs/performance.md). An input
    may also be the same along the summed dimension (a row's mean that a
    fused variance subtracts); one that reads a tensor expanded with unit
    dimensions at index 0 there (the mean as `[rows, 1]`) reads the tensor
    before the expansion instead. A sum whose input remat recomputed and
    fused is then split as the stored one is, so that recomputing keeps
    the results' bits.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ReuseOperandBuffers : Pass<"tad-reuse-operand-buffers", "mlir::ModuleOp"> {
  let summary = "Writes elementwise results into the buffers of dying inputs";
  let description = [{
    Makes an input of an all-parallel `linalg.generic` its destination
    when the input has the result's type and identity indexing, the op is
    its only use, and it is a fresh linalg result (not an argument, a
    constant or a view); the destination must be an empty tensor the op
    ignores. One-shot bufferization then writes the result in place, so
    the op allocates nothing (docs/memory.md).

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {...} ins(%a, %b : ...) outs(%e : tensor<4xf32>)
    ```
    with `%a` used only here becomes
    ```mlir
    %r = linalg.generic {...} ins(%a, %b : ...) outs(%a : tensor<4xf32>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ConvertMatmulToRuntime : Pass<"tad-matmul-to-runtime", "mlir::ModuleOp"> {
  let summary = "Calls the runtime's BLAS-backed GEMM for matmuls on buffers";
  let description = [{
    After bufferization, replaces `linalg.matmul` and `linalg.batch_matmul`
    on f32 and f64 memrefs by calls of `tad_rt_matmul_f32` /
    `tad_rt_matmul_f64` (C interface; the runtime calls cblas_sgemm or
    cblas_dgemm, with C += A B semantics). A matmul whose output was just
    filled with zeros (nothing that touches memory in between) calls the
    `assign` form instead, `tad_rt_matmul_assign_f32` and so on (C = A B,
    BLAS's beta = 0), and the fill goes. docs/performance.md records the
    measurement that chose a BLAS call over generated loops. f16 and bf16
    matmuls stay linalg ops. With `prefix=tad_rt_cuda_` (`tadc
    --target=cuda --cuda-matmul=cublas`) the calls are of the runtime's
    cuBLAS functions instead (docs/gpu.md). With `kernel-fallback`
    (`--cuda-matmul=auto`, the default) each call sits in an `scf.if` on
    `PREFIXblas_available()`, whose other side keeps the matmul (and its
    zero fill) to run as generated code where the program finds no cuBLAS.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", "\"tad_rt_\"",
           "The runtime functions called: PREFIXmatmul_f32, ...">,
    Option<"kernelFallback", "kernel-fallback", "bool", "false",
           "Keep each matmul, run where PREFIXblas_available() returns 0">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect"];
}

def ConvertLoopsToGPU : Pass<"tad-loops-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Runs the loop nests of host functions as GPU kernels";
  let description = [{
    For `--target=cuda`, after bufferization and
    `convert-linalg-to-parallel-loops`: every `scf.parallel` without results
    whose body can run on a GPU (arithmetic, math, loads, stores, views and
    structured control flow; no allocation, deallocation, copy or call)
    becomes a `gpu.launch` of one thread per iteration, in blocks of 256
    threads; the row-major linear index of an iteration is its thread's
    global id, so the innermost dimension runs across a warp and contiguous
    accesses coalesce. A loop nest of that kind without a parallel loop (a
    full reduction) becomes a single-thread launch. A loop over rows and
    L lanes (L dividing 256: the lanes of a sum that
    `tad-split-reductions` split) right before a loop over the same rows
    that only reads the lanes of its own row is one launch: each thread
    runs its lane iteration, all wait at a `gpu.barrier`, and the first
    thread of each row runs the row's iteration. A `memref.copy` becomes
    a launch of one thread per element, so that the buffers it copies stay
    on the device (copied by the host, managed memory moves to the host and
    back); a copy from or to a stack buffer (`memref.alloca`) stays on the
    host. The host keeps allocation, deallocation, calls, and the loops and
    branches that contain them. Constant globals that a kernel reads, and views of them,
    are cloned into the kernel, so that `gpu-kernel-outlining` gives the
    GPU module its own copy.

    An elementwise loop (no regions in its body) whose innermost dimension
    runs from 0 by 1 to a constant multiple of W, where every access that
    uses that dimension's index uses it as its last index, into a buffer
    of 16 / W-byte elements with a last stride of 1 (W = 4 for f32 and
    i32, 2 for f64 and i64), runs W neighbouring iterations a thread: thread
    g takes the innermost indices W * (g mod (E / W)) + 0, ..., W - 1, E
    being the extent, and its body is cloned op by op for the W iterations,
    so that the W loads of a buffer and the W stores are next to each
    other, and LLVM's load-store vectorizer makes each one access of 16
    bytes where it knows the pointer's alignment
    (`tad-gpu-noalias-arguments`). An access at the iteration's own
    indices to a buffer of the loop's shape (row-major) goes through a
    1-D view (`memref.collapse_shape`) at the linear index W g + k: LLVM
    folds a row and a column back into that index for k = 0 only, and
    would not pair that access with the others.

    ```mlir
    scf.parallel (%i) = (%c0) to (%c1001) step (%c1) {
      %v = memref.load %a[%i] : memref<1001xf32>
      memref.store %v, %b[%i] : memref<1001xf32>
    }
    ```
    becomes a launch of 4 blocks of 256 threads whose body, guarded by
    `id < 1001`, loads `%a[id]` and stores it to `%b[id]`; with 1000
    elements, one block of 256 threads, guarded by `id < 250`, each loading
    `%a[4 id]`, ..., `%a[4 id + 3]` and then storing them.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::scf::SCFDialect"
  ];
}

def FuseKernelLoops : Pass<"tad-fuse-kernel-loops", "mlir::func::FuncOp"> {
  let summary = "Fuses parallel loops whose iterations touch only their own elements";
  let description = [{
    For `--target=cuda`, after `convert-linalg-to-parallel-loops`: each
    top-level `scf.parallel` of a host function becomes a launch
    (`tad-loops-to-gpu`). Two of them over the same iteration space are one
    loop when every buffer that either writes and both touch is read and
    written by both as the same memref at the same indices (a sum's zero
    fill and the sum, an elementwise op and the next): each iteration runs
    the first loop's body, then the second's. The first loop moves down to
    the second past ops that touch none of its buffers (allocations, views,
    other buffers' frees and loops); the frees of its own buffers on the
    way move after the joined loop where that keeps the block's peak of
    live bytes (so the device peak stays the plan's). Every result keeps
    its bits. A constant global (read only) shares no element with what
    the loops write.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def ForgetHostPeaks : Pass<"tad-forget-host-peaks", "mlir::func::FuncOp"> {
  let summary = "Drops the planned peaks that the kernel mapping's steps kept";
  let description = [{
    For `--target=cuda`, the last step of the kernel mapping. The steps that
    join kernels (`tad-warp-row-reductions`, `tad-fuse-kernel-loops`) move
    allocations and frees only where a host block's live total stays within
    its peak in the buffer plan's order, which the first of them to change
    the block records on the block's parent op (`tad.host_peaks`): a chain
    that keeps its row sums in shared memory, or a joined loop that keeps
    its accumulators as its threads' values, erases their allocations and
    lowers the block's own peak, and the later steps may still use the
    plan's. Once the mapping is done, this pass drops the records;
    `tad-buffer-peak` then counts the device's plan.
  }];
}

def ScatterLoopsInside
    : Pass<"tad-scatter-loops-inside", "mlir::func::FuncOp"> {
  let summary = "Runs a scatter-add's loop over its indices inside its slice's threads";
  let description = [{
    For `--target=cuda`, after `convert-linalg-to-parallel-loops`:
    `tad.scatter_add` lowers to an `scf.for` over its indices (marked
    `tad.scatter_loop`) whose body adds a slice of the updates into the
    slice of the operand at each index, and the slice's addition is an
    `scf.parallel`. On the GPU that was a launch per index (an embedding's
    gradient over B x T tokens: B x T launches). The slice's elements are
    independent (each is touched by its own position only, in every
    iteration), so the loops interchange: one `scf.parallel` over the
    slice around the `scf.for` over the indices, one launch whose threads
    each add their element's updates in the order of the indices. Each
    element sums in the same order as before: the same bits, and a
    repeated index accumulates as on the CPU.

    The loop is left as it is unless its body is, before the
    `scf.parallel`, only operations without side effects and loads (the
    index, its clamp, the slices' views), the parallel loop's bounds are
    defined outside it, and no thread would touch another's element: by
    alias analysis, not taken from the mark, the slice reads what it writes
    only at the element it writes (the same memref and indices), nothing
    that the loop loads before the slice may be what it writes, and (but
    where the indices are unique) the views it writes move with the index
    only along dimensions of size 1 (the rows), so that each element's
    place in its row stays the same in every iteration.

    Each thread of that form adds its updates one after another, each a
    read and a write of device memory that waits for the one before: an
    embedding's gradient over 8,192 tokens was 8,192 dependent additions
    in each of 512 threads. Where the slice writes one row of a table of
    R rows (a view of it whose one offset that changes with the index is
    that of a dimension of size 1 in the view), and R times the slice's
    elements is at most `owner-threads`, the row is a dimension of the
    threads too: thread (row, element) runs the whole loop over the indices
    and adds the updates whose index picks its row (the owner computes).
    Each element still sums its updates in the order of the indices: the
    same bits. Its iterations are a load of the index, which a warp's
    threads share, and a comparison, with an addition in 1 of R on
    average; their number grows with R, where the other form's threads
    wait on memory at each index whatever R is, hence the bound (2^19 by
    default, an estimate: an iteration of a few instructions over that many
    threads costs about what one dependent read and write of device memory
    does; not measured on a GPU yet).
  }];
  let options = [
    Option<"ownerThreads", "owner-threads", "int64_t", /*default=*/"1 << 19",
           "Most rows times slice elements at which each row's owner runs "
           "the whole loop (0: never)">
  ];
}

def SplitLongReductions
    : Pass<"tad-split-long-reductions", "mlir::ModuleOp"> {
  let summary = "Cuts long reductions into chunks that GPU threads run at once";
  let description = [{
    For `--target=cuda`, after `convert-linalg-to-parallel-loops`: a
    reduction loop (`scf.for` from 0, step 1, at least 1024 trips, whose
    body combines a value computed from loads and arithmetic into one
    accumulator element that does not depend on the loop, with a
    commutative `arith` op that has a neutral element: a sum, a product, a
    maximum or minimum, an integer or bitwise reduction), alone in an
    `scf.parallel` of host code or a statement of host code (the function's
    body, and the loops and branches there that allocate, free or call: a
    transformer's loop over its layers), becomes a loop nest and a kernel. The nest has one iteration per chunk of at
    least 256 trips of each parallel iteration, the chunk outermost, aiming
    at 65,536 iterations in all: chunk c of C combines the values of trips
    c, c + C, c + 2C, ... in order, from the neutral element (-0.0 for a
    float sum), into a partial result, 8 at a time (their loads, then their
    combines in order; the chunk's last values one by one), so that a
    thread has 8 loads in flight and neighbouring threads load neighbouring
    elements. The kernel (a `gpu.launch`) has a block of up to 256 threads
    per parallel iteration: thread t combines the partial results t, t +
    256, ... in order, the block combines those as a tree (halving: in
    shared memory with a barrier between steps down to 32 values, then
    with warp shuffles, `gpu.shuffle xor`, which pair the same values), and
    its first thread combines the result into the accumulator, or into the
    value of the accumulator's fill right before the loop (a loop over the
    same outputs, or a store, that stores one value into each), which then
    launches nothing. A loop whose parallel iterations are
    already more than 32,768 stays whole. Each iteration of a parallel
    loop is a GPU thread (`tad-loops-to-gpu`), so a full sum of 2^24 f32
    elements (8 lanes after `tad-split-reductions`) runs on 65,536
    threads, then 8 blocks of 256, instead of 8 threads.

    The order of the operations depends on the loop bounds only: every run
    gives the same bits. A maximum, a minimum and integer reductions give
    the CPU's bits; a float sum or product adds in another order than the
    CPU, which combines each element into the accumulator in turn. The
    partial results' buffer (at most 65,536 elements per cut) is allocated
    after a call of `tad_rt_mark_scratch`, which makes the runtime count it
    as scratch, apart from the buffer plan's bytes (`scratch_bytes`), so
    the device peak stays the plan's.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def WarpRowReductions
    : Pass<"tad-warp-row-reductions", "mlir::ModuleOp"> {
  let summary = "Runs reductions along rows as a warp per row";
  let description = [{
    For `--target=cuda`, after `tad-split-long-reductions`: a reduction
    loop as that pass takes them (of at least 64 trips here, 32- or 64-bit
    integers or floats, in host code as there) that reduces one row whose
    neighbouring trips read neighbouring elements (one load depends on the
    loop's index, which is its last index, into a buffer whose last stride
    is 1; other loads are the same in every trip), becomes a `gpu.launch` of a warp per parallel iteration (a row), 8 to a
    block of 256 threads. Lane l combines the row's trips l, l + 32, l +
    64, ... in order from the neutral element; the 32 lanes then combine
    their values with `gpu.shuffle xor` at offsets 16, 8, 4, 2, 1 (a
    halving tree, so every run gives the same bits); the first lane
    combines the result into the accumulator, or into the value of the
    accumulator's fill right before the loop, which then launches nothing
    (as `tad-split-long-reductions` does). A warp past the last row
    computes the last row again (every lane of a warp takes part in its
    shuffles) and stores nothing.

    The kernel also runs the loops over the same rows before and after
    the reduction (a chain), stage by stage with a `gpu.barrier` between
    stages: a loop over the rows in each row's first lane, a loop over the
    rows and one more dimension of a constant extent (a softmax's
    exponentials, a layer norm's centred rows) in every lane, lane l the
    elements l, l + 32, ..., and further such reductions over the same
    rows as the first. A stage is taken while each row stays its warp's
    (every access to a buffer the kernel writes, each an allocation, is at
    its stage's row indices through views that keep the rows' dimensions;
    a loop over the elements touches its own buffers at its own indices; a
    reduction reads nothing its stage writes) and while moving the host
    operations between the stages (allocations, views and constants before
    the launch, frees after it) keeps the block's peak of live bytes, so
    the device peak stays the plan's. Chains also grow around the lanes
    of a row's sum that `tad-split-reductions` made (a loop over the rows
    and at most 32 lanes, each a loop: a warp's first lanes), where the
    chain then joins two row reductions or more.

    One thread per row, as `tad-loops-to-gpu` runs such a loop otherwise,
    reads 32 rows at each load of a warp; here a warp's 32 loads are
    neighbours. A maximum, a minimum and integer reductions give the CPU's
    bits; a float sum adds in another order. Reductions whose trips read
    along another dimension (a column's sum, a lane of
    `tad-split-reductions`' sums) stay: there neighbouring threads read
    neighbours already. So does a dot product of two rows, a matmul's loop
    (where `tad-tile-gpu-matmuls` did not take it), which keeps the CPU's
    order of additions.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def TileGpuMatmuls : Pass<"tad-tile-gpu-matmuls", "mlir::func::FuncOp"> {
  let summary = "Runs float matmuls as tiled shared-memory GPU kernels";
  let description = [{
    For `--target=cuda` and the emulator, before
    `convert-linalg-to-parallel-loops`: each float `linalg.matmul` and
    `linalg.batch_matmul` on buffers (with transposed operands, as
    `tad-fold-transposes-into-matmuls` leaves them; the kernel behind the
    test of cuBLAS with `--cuda-matmul=auto`, and every matmul with
    `--cuda-matmul=kernel`) becomes a `gpu.launch` of 16x16-thread blocks,
    one per 16x16 tile of the output in each batch (all numbered along the
    grid's x, which allows 2^31 - 1 blocks where y and z allow 65,535). For each
    16-wide step of k, the block copies a tile of A and one of B into
    shared memory (workgroup attributions), waits at a barrier, and each
    thread adds the products of its row and column of the tiles into its
    output element, then waits again before the next copy. Each element of
    A and B is then read from global memory N/16 and M/16 times instead of
    N and M times.

    A transposed operand is copied along its last dimension, so that a
    warp's loads are neighbours in memory either way, into the tile's
    columns (rows of 17 elements keep those stores on 16 banks).

    A fill of the output just before the matmul is the sums' start rather
    than a loop of its own. An elementwise `linalg.generic` right after it
    (past frees) that reads the output through a permutation of its loops
    is computed by the thread that finishes each output element (a bias, an
    activation): each of its iterations then reads one output element, the
    thread's own, so it must read the output nowhere else and write no
    buffer that the kernel reads (MLIR's alias analysis decides).

    Each thread adds its products in the order of k, from the output's
    value, as the untiled loop does: the results are bit for bit those of
    one thread per output element. The last step stops at K, so no padding
    enters a sum. Integer matmuls, and contractions that broadcast an
    operand, stay loops (one thread per output element).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def ParallelLoopsOutermost
    : Pass<"tad-parallel-loops-outermost", "mlir::func::FuncOp"> {
  let summary = "Puts the parallel loops of each linalg.generic outermost";
  let description = [{
    For `--target=cuda`, before `convert-linalg-to-parallel-loops`:
    interchanges the loops of each `linalg.generic` whose reduction loops
    come before a parallel one, so that the parallel loops come first, in
    their order, and the reduction loops after them, in theirs. Every
    output element then sums its terms in the same order as before (the
    same bits), but the nest is one `scf.parallel` around `scf.for`s, which
    `tad-loops-to-gpu` launches once, instead of an `scf.for` on the host
    around a launch per iteration. `tad-split-reductions` makes such sums
    for the CPU's vector lanes: a sum of a million f32 elements (added in
    f64) is 125000 rows of 8 lanes, which was 125000 launches of 8 threads.

    A generic with an output indexed by a reduction loop is left as it is.
  }];
}

def MergeGpuModules : Pass<"tad-merge-gpu-modules", "mlir::ModuleOp"> {
  let summary = "Moves every kernel into one GPU module";
  let description = [{
    After `gpu-kernel-outlining`, which makes one `gpu.module` per kernel,
    moves the kernels and globals of all GPU modules into the first, and
    points the launches at it. A constant global that several modules
    copied is kept once; any other clash of names is renamed. One module
    compiles with one run of `ptxas` per architecture instead of one per
    kernel, and loads as one CUDA module. Kernels named after functions
    whose names PTX cannot spell (`model.rule_kernel`) are renamed first,
    each character outside `[A-Za-z0-9_]` replaced by `_`.
  }];
}

def GpuNoaliasArguments : Pass<"tad-gpu-noalias-arguments", "mlir::ModuleOp"> {
  let summary = "Marks the kernels' arguments that view fresh allocations "
                "noalias and aligned";
  let description = [{
    For `--target=cuda`, once the kernels are `llvm.func`s and before the
    launches are lowered: the aligned pointer of a kernel's memref
    argument gets `noalias` where, at every `gpu.launch_func` of the
    kernel, its operand views (through view-like ops) a `memref.alloc`
    that no other operand views, and every other memref operand is another
    allocation or an argument of the launching function's entry block (the
    rule of `tad-outline-loop-nests` on the CPU). LLVM then keeps a thread's
    accumulator in a register instead of storing it at every step of its
    loop, where a load of another argument could otherwise read it.

    The aligned pointer also gets `align 16` where, at every launch, its
    operand views a `memref.alloc`, or an argument of a public function
    that no function of the module calls (an entry point, whose inputs the
    runtime copies into allocations of its own), through views that keep
    the aligned pointer, or move it by a multiple of 16 bytes (a
    `memref.view`'s constant shift): the runtime's GPU allocations are
    aligned to 256 bytes. Loads and stores of 4 neighbouring f32 elements
    at an offset that is a multiple of 4 then become one 16-byte access.
    The arguments of a function that the module calls get no mark: their
    callers may pass any view.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def GpuDeviceBuffers : Pass<"tad-gpu-device-buffers", "mlir::ModuleOp"> {
  let summary = "Puts the buffers that only the GPU touches in device memory";
  let description = [{
    After kernel outlining, for `--target=cuda`: in each function that
    launches kernels or calls cuBLAS, an allocation whose every use is an
    operand of a `gpu.launch_func` or of a cuBLAS GEMM of the runtime, a
    `memref.dealloc`, a `memref.dim`, or a view of it (`ViewLikeOpInterface`)
    whose uses are such, gets a call of `tad_rt_mark_device_buffer()` just
    before it: the runtime allocates it as device memory (`cuMemAlloc`),
    which the host cannot address, instead of managed memory, from a pool
    of its own, and counts it as before. Any other use keeps a buffer
    managed: a host load or store, a host copy, a return, an operand of a
    call of a function of the module, a value that a loop or a branch
    yields. Where a GEMM's layout falls back to a loop on the host, the
    runtime copies its device-memory operands to the host and back.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def GpuHostWaits : Pass<"tad-gpu-host-waits", "mlir::ModuleOp"> {
  let summary = "Launches kernels without waiting; waits where the host "
                "touches their buffers";
  let description = [{
    After kernel outlining, for `--target=cuda`: every `gpu.launch_func`
    becomes asynchronous on one stream per function (`gpu.wait async` at
    its entry; tad's runtime maps every stream to the device's default
    stream, so the kernels of a call, and cuBLAS's GEMMs, run in program
    order). The pass tracks the buffers that the kernels and GEMMs queued
    since the last wait use (their operands), and the host waits for the
    device (`tad_rt_cuda_wait`) only before an operation that reads or
    writes one of them (by MLIR's local alias analysis), calls an unknown
    function, or writes memory after a free while work was queued (the
    allocator may hand a freed block, still in use, to the buffer
    written); an entry point waits before it returns (`gpu.wait` on its
    stream). A private function, and an entry point that the module
    calls, begin as if work of unknown buffers were queued, and a call of
    a function of the module leaves such work queued. Where work queued
    before a loop would make its body wait in every iteration, the wait
    is put once before the loop. Allocations and frees do not wait.

    With `every-launch`, the host waits for every kernel and GEMM instead
    (launches stay synchronous, and a wait follows each GEMM): what
    `tadc --cuda-sync-launches` compiles, to measure what the waits cost.
  }];
  let options = [
    Option<"everyLaunch", "every-launch", "bool", /*default=*/"false",
           "Wait for every kernel and GEMM">
  ];
  let dependentDialects = [
    "mlir::func::FuncDialect", "mlir::gpu::GPUDialect"
  ];
}

def GpuFatbin : Pass<"tad-gpu-fatbin", "mlir::ModuleOp"> {
  let summary = "Packs each GPU module's PTX into a fatbin for several GPUs";
  let description = [{
    After `gpu-module-to-binary{format=isa}`, assembles the PTX of every
    `gpu.binary` with the CUDA toolkit's `ptxas` for each architecture of
    `archs`, and replaces the object with one fatbin (made by the toolkit's
    `fatbinary`) holding the cubins and the PTX, which the driver compiles
    for GPUs newer than all of them. The PTX must have been generated for
    the lowest architecture (`nvvm-attach-target{chip=...}`).
  }];
  let options = [
    Option<"architectures", "archs", "std::string", "\"sm_80,sm_90\"",
           "Comma-separated GPU architectures (sm_XY) to assemble for">,
    Option<"toolkit", "toolkit", "std::string", "\"/usr/local/cuda\"",
           "The CUDA toolkit whose bin/ptxas and bin/fatbinary are run">,
  ];
}

def EmulateGpuLaunches : Pass<"tad-emulate-gpu-launches", "mlir::ModuleOp"> {
  let summary = "Runs each gpu.launch as loops over its blocks and threads";
  let description = [{
    Replaces every `gpu.launch` by six nested `scf.for` loops (grid z, y, x,
    then block z, y, x) around its body. Kernels whose threads are
    independent (no barrier, shuffle, shared or private memory: those of
    `tad-loops-to-gpu`) run exactly as on a GPU, one thread at a time. This
    is `tadc --target=cuda-emulator`: the tests check tad's mapping of loop
    nests onto kernels against the CPU on machines without a GPU. Each
    emulated launch first calls the runtime's `tad_rt_count_kernel_launch`,
    so that a run counts the launches a GPU would (`--stats-json`'s
    `kernel_launches`).

    A kernel whose threads wait at barriers or share workgroup memory
    (`tad-tile-gpu-matmuls`') runs in phases: within each block, every
    thread runs up to a barrier, then every thread on to the next. Barriers
    may stand in the kernel's body or in `scf.for` loops around them whose
    bounds every thread of a block shares (such a loop runs once for the
    block, its phases inside). A scalar that a thread keeps across a
    barrier, a loop's carried values among them, lives in a buffer with an
    element per thread; workgroup memory is one buffer, which the blocks
    use in turn. Both are stack buffers in an alloca scope, so the
    emulator's peak stays the plan's. A `gpu.shuffle` is first an exchange
    through workgroup memory between two barriers (each thread stores its
    value in its slot; after the barrier it reads its partner lane's, the
    lanes being the block's threads by linear id, 32 to a warp; the second
    barrier keeps the next exchange from overwriting a slot before it is
    read). Barriers and shuffles in branches, shuffles in blocks of a size
    that is not a constant or of vectors, loops around barriers with bounds
    that differ between threads, views kept across a barrier, warp
    reductions and private memory are rejected.

    With `reverse`, the blocks and threads run from the last to the first.
    A GPU runs them in no fixed order: a kernel whose threads read or write
    each other's elements (a race) gives results that depend on the order,
    and so differs between the two orders (`tadc
    --cuda-emulator-reverse`), which the tests compare.
  }];
  let options = [
    Option<"reverse", "reverse", "bool", "false",
           "Run the blocks and threads from the last to the first">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def ApproximateMath : Pass<"tad-approximate-math"> {
  let summary = "Expands f32 exp, log and tanh into vectorizable arithmetic";
  let description = [{
    Rewrites `math.exp`, `math.log` and `math.tanh` on f32 (scalars or
    vectors) into range reduction, polynomials and exponent bit
    manipulation, so that the loops around them vectorize instead of
    calling libm once per element. f64 keeps libm. Accuracy: within 2 ulp
    of the correctly rounded result on every f32 input
    (test/Execution/math-ulp.test, docs/performance.md).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

def ExpandBf16 : Pass<"tad-expand-bf16"> {
  let summary = "Expands conversions to and from bf16 into integer arithmetic";
  let description = [{
    `arith.extf` from and `arith.truncf` to bf16 become bit shifts and
    rounding on i32, so that no compiler-rt `__truncsfbf2` is needed. Unlike
    upstream `arith-expand{include-bf16}`, nothing else is expanded:
    `arith.maximumf` stays `llvm.maximum`, which LLVM vectorizes as a
    reduction.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def AnnotateLLVMFunctions
    : Pass<"tad-annotate-llvm-functions", "mlir::ModuleOp"> {
  let summary = "Sets LLVM attributes that tad knows and the conversion drops";
  let description = [{
    Marks the result of `_mlir_memref_to_llvm_alloc` (and its aligned
    variant), declared by `finalize-memref-to-llvm`, `llvm.noalias`: the
    runtime returns fresh memory, as `malloc` does. Without it LLVM keeps a
    reduction's accumulator in memory across the inner loop, and the loop
    does not vectorize. Makes the functions of `tad-outline-loop-nests`
    (`tad.outlined`) internal and `noinline`, with `llvm.noalias` on the
    argument positions listed in `tad.noalias_pointers`. A function `f`
    with a C interface (`_mlir_ciface_f`, through which alone the
    generated wrappers and the JIT call it) becomes internal, and
    `always_inline` where nothing else calls it: the interface then loads
    from its arguments' descriptors only what the body reads. The
    interface's result pointer, where it has one, is `llvm.noalias`: it
    points to the caller's memory, which nothing else touches while the
    interface runs (tadc then moves each result's stores to where the
    result is made; lib/Driver/ResultStores.cpp).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def WidenBoolMemory : Pass<"tad-widen-bool-memory", "mlir::ModuleOp"> {
  let summary = "Loads and stores i1 values as the bytes they are";
  let description = [{
    Rewrites every non-atomic `llvm.load` of an `i1` into an `llvm.load`
    of an `i8` and an `llvm.trunc` to `i1`, and every `llvm.store` of an
    `i1` into an `llvm.zext` to `i8` and an `llvm.store` of the `i8`: the
    same byte in memory (a buffer of `i1` holds a byte an element, 0 or
    1), read and written as LLVM's lowering of `i1` accesses does.
    LLVM's loop vectorizer moves an `i1` access, whose type is smaller
    than its store size, one element at a time: a loop that reads a mask
    (a compare's result, dropout's draws) gathered each vector of it from
    16 scalar loads. Through `i8`, the mask is 16 consecutive bytes.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def SeparateArguments : Pass<"tad-separate-arguments", "mlir::func::FuncOp"> {
  let summary = "A function of many arguments gets an entry block of its own";
  let description = [{
    Moves the body of a function of 64 or more arguments out of its entry
    block, which then only branches to it. The conversion to the LLVM
    dialect replaces the uses of each converted argument after a query of
    the block's operation order, which the cast it has just built
    invalidates: with the uses in another block there is no query, and the
    conversion is linear in the number of arguments instead of quadratic.
  }];
  let dependentDialects = ["mlir::cf::ControlFlowDialect"];
}

def ConvertToLLVM : Pass<"tad-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "Upstream's convert-to-llvm, calls resolved through a symbol table";
  let description = [{
    Upstream's `convert-to-llvm`: every loaded dialect's conversion to the
    LLVM dialect (its `ConvertToLLVMPatternInterface`), applied at once. The
    func dialect's patterns get a symbol table, which the interface cannot
    give them: without one, lowering each `func.call` looks its callee up
    by walking the module's functions, and the conversion is quadratic in
    the number of functions (at 1,000 instances of a generic gradient,
    6,000 functions, a quarter of the conversion's time).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ReturnResultsByPointer
    : Pass<"tad-return-results-by-pointer", "mlir::ModuleOp"> {
  let summary = "Wide results are written through a pointer, not returned";
  let description = [{
    An internal `llvm.func` that returns a struct of more than 16 members
    (a function's results, as the conversion to the LLVM dialect packs
    them) takes a `noalias` pointer to that struct as its first argument
    instead, stores each member through it and returns nothing. Its calls
    pass the caller's destination where the result was only stored
    through a `noalias` argument (the C interface's result pointer), and
    otherwise a stack slot, from which each extracted member is loaded.
    Built by a chain of `llvm.insertvalue`s, a returned struct of N results
    costs LLVM's instruction selection and IPSCCP time and memory in N
    times its size: quadratic in the width of a record.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def OpenMpiHandles : Pass<"tad-openmpi-handles", "mlir::ModuleOp"> {
  let summary = "Names Open MPI's reduction operations as its library does";
  let description = [{
    MLIR 22's MPIToLLVM names Open MPI's predefined reduction operations
    `ompi_mpi_sum`, `ompi_mpi_max`, ...; the library (Open MPI 4.1, and
    `mpi.h` since 1.x) defines them as `ompi_mpi_op_sum`, `ompi_mpi_op_max`,
    ..., so a program with a collective does not link. This pass renames
    the external globals and their uses after the conversion to LLVM. It
    changes nothing in a module without them (MPICH's handles are
    integers).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def LinalgToLoops : Pass<"tad-linalg-to-loops", "mlir::func::FuncOp"> {
  let summary = "Lowers linalg ops on buffers to scf.for nests, marking the outer loops that may run at once";
  let description = [{
    As `convert-linalg-to-loops` (every dimension an `scf.for`, in the
    op's order, with upstream's cleanup of the index arithmetic), and the
    outermost loop of an op gets `tad.parallel` when its iterations are
    independent: its dimension is parallel, every output's indexing map has
    it as a result, and every operand that may be the same buffer as an
    output is that output, accessed by the same map (an elementwise op in
    place). Two operands are different buffers when they view different
    allocations, or an allocation and a function argument.
    `tad-outline-loop-nests` runs such a nest on the runtime's threads.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect"];
}

def ParallelizeCalls : Pass<"tad-parallelize-calls", "mlir::ModuleOp"> {
  let summary = "Calls the loop nests of tad.parallel_range functions through the runtime's threads";
  let description = [{
    After the conversion to the LLVM dialect: every call of a function that
    `tad-outline-loop-nests` marked `tad.parallel_range` (its last two
    arguments are the range of its outer loop) becomes a call of the
    runtime's `tad_rt_parallel_for(task, context, lo, hi)`. The call's
    other arguments that the function reads go into a struct on the
    caller's stack (`context`), and `task`, a function made once per callee
    (`NAME_task`), loads them and calls the function on the part of the
    range it is given (poison for the arguments it does not read). Run it
    after the LLVM dialect's canonicalization, which leaves a nest reading
    only the pointers of its static memrefs: the struct is then a pointer
    per memref, not its whole descriptor. The runtime
    splits the range over its threads (`tad_rt_set_num_threads`, an
    executable's `--threads`) or, with one thread, calls `task` on the
    whole range (docs/runtime.md).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def OutlineLoopNests : Pass<"tad-outline-loop-nests", "mlir::ModuleOp"> {
  let summary = "Makes each computing loop nest and runtime call a function, one per kind";
  let description = [{
    Moves every outermost `scf.for` nest that only loads, stores and
    computes (arith, math, affine index arithmetic, inner `scf.for` and
    `scf.if`) into a private function of its own, called where the nest
    was, and lets equal nests (the same ops, types and constants) share
    one function. So too every call of an external function (the
    runtime's GEMM) with memref arguments: the `memref.cast`s of its
    operands move into the function, which passes each argument of a
    fully static type on as a view of its base buffer with constant sizes
    and strides, so that the descriptors it builds for the C interface
    are constants but for the pointers. Captured constants are cloned into the function. The
    functions are marked `tad.outlined`, and `tad.noalias_pointers` lists
    the LLVM argument positions of the aligned pointers of memref arguments
    that view an allocation of their own while every other memref
    argument views another allocation or a function input, for
    `tad-annotate-llvm-functions` (after the conversion to the LLVM
    dialect, which would drop both). LLVM's time on a function grows faster than its size:
    this keeps compile time linear in a network's depth
    (docs/performance.md).

    Nests that differ only in their index constants (trip counts, bounds)
    and in the sizes, strides and offsets of their memref arguments share
    one function where at least `shape-variants` of them do, as the
    instances of a generic function at many sizes do: each constant that
    differs becomes an argument (after the nest's own, before a parallel
    range), each memref argument whose type differs takes those sizes,
    strides and offset as dynamic (a `memref.cast` at each call), and what
    agrees stays constant. A nest with an affine op on such a constant
    keeps its variants apart.

    A nest whose outer loop is `tad.parallel` (`tad-linalg-to-loops`),
    with a constant trip count of at least 2 and at least `parallel-work`
    iterations of its innermost loops in all, takes the range of its outer
    loop as its last two arguments and is marked `tad.parallel_range`, so
    that `tad-parallelize-calls` can run parts of that range on the
    runtime's threads.
  }];
  let options = [
    Option<"parallelWork", "parallel-work", "int64_t", "32768",
           "The fewest innermost iterations a nest must run to be split over "
           "threads (0: none is)">,
    Option<"shapeVariants", "shape-variants", "unsigned", "8",
           "The fewest nests that differ only in shapes and index constants "
           "that share one function, taking those as arguments (0: none do)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // TAD_CONVERSION_PASSES_TD
