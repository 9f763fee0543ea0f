//===- Passes.td - tad transformation passes ---------------*- tablegen -*-===//

#ifndef TAD_TRANSFORMS_PASSES_TD
#define TAD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanBuffers : Pass<"tad-plan-buffers", "mlir::func::FuncOp"> {
  let summary = "Frees every buffer right after its last use, decided statically";
  let description = [{
    Runs on bufferized IR without deallocations and places every
    `memref.dealloc`, with no run-time ownership flags. Every buffer has
    one owner block, which frees it right after the last op of the block
    that uses it or a view of it: the block that allocates it (an alloc,
    or the results of a call, loop or branch), a loop's body for the loop's
    carried values, or a branch's region for an outer buffer that the
    branch consumes (one that a side yields and nothing reads after the
    branch). A block hands a buffer on only through its terminator; what
    it yields or returns without owning it outright (an argument, a
    global, a partial view, an outer buffer read later, the same buffer
    twice) is copied first. A loop starts from its initial value's buffer
    when nothing reads that buffer inside the loop or after it, and from a
    copy otherwise. An `arith.select` of buffers (a branch that only
    yields, folded by canonicalization) becomes that branch again first.
    docs/memory.md states the rules.

    ```mlir
    func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      "use"(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      %b = memref.alloc() : memref<4xf32>
      "use"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      return %b : memref<4xf32>
    }
    ```
    becomes
    ```mlir
    func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      "use"(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      %b = memref.alloc() : memref<4xf32>
      "use"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.dealloc %a : memref<4xf32>
      return %b : memref<4xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numFrees", "num-frees", "Number of deallocations placed">,
    Statistic<"numCopies", "num-copies",
              "Number of copies made so that a block owns what it hands on">
  ];
}

def BufferizeWideSignatures
    : Pass<"tad-bufferize-wide-signatures", "mlir::ModuleOp"> {
  let summary = "Gives wide functions memref signatures before One-Shot Bufferize";
  let description = [{
    One-Shot Bufferize's analysis of function boundaries asks, for every
    tensor argument and every tensor result of a function, whether the two
    alias: time quadratic in a function's width, seconds for a record of
    thousands of fields, and it runs in every plan of the remat pass too.
    For a function with a body, no caller in the module, and more than
    `pairs` (argument, result) pairs of tensors, this pass does the
    boundary's part itself: each tensor argument becomes a memref of
    identity layout read through `bufferization.to_tensor restrict
    writable` (what One-Shot assumes of a function's arguments), and each
    tensor result a `bufferization.to_buffer` at the return. One-Shot then
    bufferizes the body as before and finds no tensor at the boundary.

    ```mlir
    func.func @f(%x: tensor<4xf32>, ...) -> (tensor<4xf32>, ...)
    ```
    becomes
    ```mlir
    func.func @f(%m: memref<4xf32>, ...) -> (memref<4xf32>, ...) {
      %x = bufferization.to_tensor %m restrict writable : memref<4xf32> to tensor<4xf32>
      ...
      %r = bufferization.to_buffer %y : tensor<4xf32> to memref<4xf32>
      return %r, ...
    }
    ```
  }];
  let options = [
    Option<"pairs", "pairs", "int64_t", "65536",
           "the (argument, result) pairs above which a function's boundary "
           "is bufferized here">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def OrderConstantGlobals
    : Pass<"tad-order-constant-globals", "mlir::ModuleOp"> {
  let summary = "Names and orders One-Shot's constant globals by first use";
  let description = [{
    One-Shot Bufferize turns each constant tensor into a private constant
    `memref.global` named after its type (`@__constant_6xf32`, then
    `@__constant_6xf32_0`, ...) as it bufferizes functions, and it orders
    functions of the same call depth by iterating a map keyed by pointers:
    the globals' names and order, and so the compiled code's bytes, changed
    from one run of tadc to the next. This pass renames those globals in
    the order of their first use in the module (functions in module order,
    operations in pre-order), their names ending `_1`, `_2`, ... after the
    first of a type, and moves them, in that order, to the top of the module.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ForwardCopies : Pass<"tad-forward-copies", "mlir::func::FuncOp"> {
  let summary = "Writes a buffer that is copied into a slice of another there";
  let description = [{
    Runs on bufferized IR before tad-plan-buffers. A buffer of a block that
    is copied once into a slice of another buffer (a tape's row, where one-
    shot bufferization could not prove that the row's other slices, written
    meanwhile, are apart from it) becomes a view of that slice from its
    allocation on, and the copy goes, when: nothing writes the buffer after
    the copy; every use of it is a linalg op, a copy or a reshape in its
    block; and from its allocation to its last use, nothing else touches
    the slice or the whole of the other buffer (slices of it at a static
    offset whose range misses the slice's are apart). The other buffer is
    an allocation, a global, an argument or a loop's carried value.

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... outs(%a : memref<4xf32>)
    %s = memref.subview %tape[%i, 4] [1, 4] [1, 1] : ...
    memref.copy %a, %s : ...
    linalg.generic ... ins(%a : memref<4xf32>) ...
    ```
    becomes
    ```mlir
    %s = memref.subview %tape[%i, 4] [1, 4] [1, 1] : ...
    linalg.generic ... outs(%s : ...)
    linalg.generic ... ins(%s : ...) ...
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def BufferPeak : Pass<"tad-buffer-peak", "mlir::ModuleOp"> {
  let summary = "Annotates each function with the peak of its planned buffers";
  let description = [{
    Runs after `tad-plan-buffers` and simulates every function's
    allocations and frees (BufferPeak.h): loops for their trip counts,
    branches whose conditions are known at compile time (constants,
    induction variables, constant tables) on their side and the others on
    their larger side. Each function gets `tad.buffer_peak`, its peak in
    bytes, and `tad.buffer_peak_bound` when that is an upper bound rather
    than the peak of every run. With `budget` set, a derivative (or a
    function named in `functions`) over it is an error: this is the check
    that compiled code never exceeds `tadc --remat-budget`.
  }];
  let dependentDialects = ["::tad::TadDialect"];
  let options = [
    Option<"budget", "budget", "int64_t", "-1",
           "Fail on a function whose peak exceeds this many bytes (negative: "
           "no limit), or the tad.budget that tad-remat chose for it">,
    ListOption<"functions", "functions", "std::string",
               "The functions the budget applies to (default: the "
               "derivatives, those with tad.derivative)">
  ];
}

def CheckpointCalls : Pass<"tad-checkpoint-calls", "mlir::ModuleOp"> {
  let summary = "Makes every call of the named functions a checkpoint region";
  let description = [{
    The command-line form of `@checkpoint fn` (`tadc --checkpoint-calls=f`):
    runs before `tad-autodiff` and wraps each `func.call` of a function in
    `functions` in a `tad.checkpoint` region, so that AD stores only the
    call's arguments and recomputes the call in the backward sweep. A call
    that is already a checkpoint region's whole body is left as it is. A
    name that is not a function with a body is an error.

    ```mlir
    %y = func.call @block(%h, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
    becomes
    ```mlir
    %y = tad.checkpoint(%h, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      %r = func.call @block(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tad.yield %r : tensor<4xf32>
    }
    ```
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "The functions whose every call is checkpointed">,
  ];
  let dependentDialects = ["::tad::TadDialect"];
  let statistics = [
    Statistic<"numWrapped", "num-wrapped", "Number of calls wrapped">
  ];
}

def AutoDiff : Pass<"tad-autodiff", "mlir::ModuleOp"> {
  let summary = "Generates the body of every requested derivative";
  let description = [{
    For each bodiless function with a `tad.derivative` attribute, writes the
    joint function: the forward sweep of the primal (its calls inlined, a
    custom rule's forward where a call has one), then the backward sweep,
    built from each op's DifferentiableOpInterface. Checkpoint regions and
    the branches of scf.if are recomputed before their adjoint; scf.for keeps
    a tape of its carried values and its reverse loop recomputes each
    iteration. docs/autodiff.md explains the rules.

    ```mlir
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %y = tad.mul %x, %x : tensor<f32>
      return %y : tensor<f32>
    }
    func.func private @df(tensor<f32>) -> tensor<f32>
        attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}
    ```
    gives `@df` the body below. A grad returns no value, so the forward
    `tad.mul` is dead and erased; activity analysis likewise drops the
    cotangents of values that do not depend on a `wrt` parameter.
    ```mlir
      %one = tad.constant dense<1.0> : tensor<f32>
      %a = tad.mul %one, %x : tensor<f32>
      %b = tad.mul %one, %x : tensor<f32>
      %dx = tad.add %a, %b : tensor<f32>
      return %dx : tensor<f32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "::tad::TadDialect"
  ];
  let options = [
    Option<"loopSnapshots", "loop-snapshots", "int64_t", "0",
           "Keep at most this many snapshots of each loop's carried values "
           "and reverse it by binomial checkpointing (revolve); 0 keeps "
           "every iteration's. A loop's own tad.loop_snapshots attribute "
           "overrides it">,
    Option<"loopResiduals", "loop-residuals", "bool", "true",
           "With a full tape, also keep each iteration's residuals (the "
           "values its adjoint reads that depend on the carried values), "
           "so that the reverse sweep does not run the body forward "
           "again; false keeps only the carried values. A loop's own "
           "tad.loop_residuals attribute overrides it">,
    Option<"countRevolveActions", "count-revolve-actions", "bool", "false",
           "Make binomial checkpointing's reverse loops count the actions "
           "they run, by kind, in the runtime (tad_rt_revolve_counts), "
           "which tadc run and executables print">,
  ];
  let statistics = [
    Statistic<"numDerivatives", "num-derivatives",
              "Number of derivative functions generated">
  ];
}

def Remat : Pass<"tad-remat", "mlir::ModuleOp"> {
  let summary = "Schedules derivatives within a memory budget by recomputation";
  let description = [{
    For every function with a `tad.derivative` attribute (a joint function
    made by tad-autodiff), builds the graph of its values (docs/remat-model.md
    describes the memory model), finds a schedule whose peak bytes stay
    within `budget` at the least estimated recompute cost, and rewrites the
    function to follow it: ops in the schedule's order, and a clone of an op
    just before each use that needs a recomputed value. The graph guides
    the search; a schedule is accepted only when a copy of the rewritten
    function, lowered through the bufferization pipeline, plans its buffers
    within the budget (`tad-buffer-peak`), and that planned peak is the one
    the report gives. Ops with effects are never recomputed; checkpoint
    regions stay regions. With no budget the pass changes nothing. Below
    the feasible minimum it fails with an error that names the minimum and
    what holds it up.
  }];
  let options = [
    Option<"budget", "budget", "::tad::Budget", "::tad::Budget()",
           "Memory budget: bytes (suffixes KiB, MiB, GiB), store-all "
           "(nothing recomputed; the plan and report of store-all), or "
           "overhead:P% (each function at the least budget whose schedule "
           "adds at most P% compute, recorded as tad.budget); a share "
           "such as 60% is resolved to bytes before the passes "
           "(tad::resolveBudget); none: the pass changes nothing">,
    Option<"policy", "policy", "::tad::RematPolicy",
           "::tad::RematPolicy::automatic", "What may be recomputed",
           "::tad::getRematPolicyValues()">,
    Option<"entry", "entry", "std::string", "\"\"",
           "When this names a derivative, schedule only it (the derivatives "
           "it calls count within its budget); otherwise every derivative">,
    Option<"reportFile", "report", "std::string", "\"\"",
           "Write the remat report as JSON to this file">,
    Option<"summary", "summary", "::tad::ReportStream",
           "::tad::ReportStream::none",
           "Print the report for people", "::tad::getReportStreamValues()">,
    Option<"graphFile", "graph", "std::string", "\"\"",
           "Write each function's remat graph as node-link JSON (the input "
           "of the tad-remat tool) to this file">,
    Option<"searchMinimum", "search-minimum", "bool", "true",
           "When no schedule fits, search for the feasible minimum that the "
           "error names (tad-choose-loop-snapshots's trials skip it until "
           "none of their choices fits)">,
    Option<"minimumBelow", "minimum-below", "int64_t", "0",
           "With search-minimum, only a minimum below this many bytes is "
           "wanted: where none is, the search stops and names this budget "
           "(tad-choose-loop-snapshots's search, past its best choice so "
           "far; 0: no bound)">,
    Option<"anySchedule", "any-schedule", "bool", "false",
           "Accept the first schedule that fits instead of searching for "
           "the cheapest (tad-choose-loop-snapshots's probes, which only ask "
           "whether a choice fits)">,
    Option<"improveSchedules", "improve", "bool", "true",
           "Improve the schedule that fits (the solver's windows, and "
           "raise-budgets) for less recomputation; off where only whether "
           "the search fits is asked (tad-choose-loop-snapshots's trials "
           "with the compile's own search, which never depends on it)">,
    Option<"gpuLoops", "gpu-loops", "bool", "false",
           "The report's timeline is that of --target=cuda's or the "
           "emulator's code, whose kernels move allocations before their "
           "launches and frees after them (tad::runGpuLoopMapping)">,
    Option<"cublasMatmul", "cublas-matmul", "bool", "false",
           "With gpu-loops: matmuls are cuBLAS calls (--cuda-matmul=auto or "
           "cublas)">,
    Option<"kernelFallback", "kernel-fallback", "bool", "false",
           "With cublas-matmul: each call with its kernel as the fallback "
           "(--cuda-matmul=auto)">,
    Option<"raiseBudgets", "raise-budgets", "bool", "true",
           "Under a budget in bytes, where a rewrite peaks under the budget "
           "(the solver counts recomputed values that fuse into their reader "
           "as written), solve again with the budget raised by the gap, for "
           "a cheaper schedule that still fits (tad-choose-loop-snapshots's "
           "trials do not: they rank choices)">,
  ];
  let dependentDialects = ["::tad::TadDialect"];
}

def TestBufferizationSteps
    : Pass<"tad-test-bufferization-steps", "mlir::ModuleOp"> {
  let summary = "Lowers to planned buffers by calls, as the remat scheduler";
  let description = [{
    A testing pass. Runs the bufferization part of the lowering as the remat
    scheduler does when it checks a plan: the `tad-bufferize` pipeline's
    passes as a sequence of calls (tad::BufferizationSteps), without a pass
    manager. Its output is compared, byte for byte, with that pipeline's
    by test/Transforms/Memory/bufferization-steps.test on every example.
  }];
  let options = [
    Option<"collectives", "collectives", "bool", /*default=*/"true",
           "As convert-tad-to-linalg's option">,
  ];
}

def TestMemoryModel : Pass<"tad-test-memory-model", "mlir::ModuleOp"> {
  let summary = "Compares the remat model's peak with the buffer plan's";
  let description = [{
    A testing pass. For every function with a single-block body, emits a
    remark with two peaks: the store-all peak of the remat pass's graph of
    the function (its model of memory, built from each op's
    MemoryModelOpInterface), and the peak that tad-buffer-peak plans for a
    copy lowered through the bufferization pipeline; and the remat cost
    model's estimate of the function's ops, in cost units (one unit: a fused
    elementwise add on one element). The IR is unchanged.
    test/Remat/op-memory.mlir holds each op's declared memory behavior to
    its lowering with it, test/Remat/op-costs.mlir states costs, and
    bench/remat/op_costs.py compares them with measured time. With
    `explain`, a note also lists what each side holds at its peak: the
    graph's resident nodes (and the transient bytes of the node being
    computed), and the planned buffers that are live, by the location of
    the op whose result each holds; where the two peaks differ, that is
    where the model and the plan part.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "List what the model and the plan hold at their peaks">,
  ];
  let dependentDialects = ["::tad::TadDialect"];
}

def ChooseLoopSnapshots : Pass<"tad-choose-loop-snapshots", "mlir::ModuleOp"> {
  let summary = "Chooses each loop's snapshot count for a memory budget";
  let description = [{
    Runs before tad-autodiff. For every scf.for with constant bounds and at
    least two trips, chooses how many snapshots of its carried values the
    backward sweep keeps (binomial checkpointing; 0 keeps every
    iteration's) and sets it as the loop's `tad.loop_snapshots`, for
    tad-autodiff to follow, with `tad.loop_residuals` saying whether a full
    tape also keeps the residuals and `tad.loop_residual_recompute` which
    share of their bytes (25, 50, 75 or 100%, of those that cost memory:
    with tapes of their own, or copied out of a gradient's row) each
    reverse step computes again instead. The candidates are a full tape
    with residuals, the same with 25 to 100% of them computed again, a
    full tape of the carried values, and 64, 32, ..., 1 snapshots.

    Each candidate is priced per loop without scheduling anything: a copy
    of the module with every loop at that candidate goes through
    tad-autodiff, canonicalize and cse, and each loop's copies in the
    derivatives give its bytes (the tapes they allocate, and the model's
    peak of one reverse step) and its compute (what the reverse sweep runs
    again). Whether a choice fits is asked of tad-remat on a differentiated
    copy, for any schedule within the budget (its `any-schedule` probe,
    which gives its searches a small part of their work). The same
    candidate for every loop is probed first, from the most memory down,
    and the first that fits is the start (or, where that is a tape of
    residuals that fits only by computing other values again, the next
    share that fits as it is and computes less; where no probe fits, the
    same candidates in the same order are asked of tad-remat's own search,
    for whether it fits only: `improve=false`); from there, loops take the steps
    that save the most compute per byte (by the prices) while they fit:
    the longest run of those steps that fits (the whole run, then its
    first step, then by bisection between them), then the loop
    whose step did not fit stays, and the rest go on. From counts that fit
    with nothing computed again, a run fits only where its probe's
    predicted compute (the first schedule found, at least the cheapest's)
    is no more: the memory a step takes can cost more to win back by
    recomputing other values than its loop's reruns save. The probes are a few
    per loop at most, not one per candidate and loop. When no count fits,
    the one whose feasible minimum is the least (of the tapes without
    residuals, the snapshot counts, and the tape that computes all the
    residuals that cost memory again), so that tad-remat's error names the
    true minimum. The choice is left on the module as `tad.loop_snapshot_choice`, which
    tad-remat reports and removes; where no choice fits and one derivative
    is scheduled, so is that choice's probe minimum, as
    `tad.loop_choice_minimum`, where tad-remat's own search for the minimum
    starts (and which it removes). With no budget, or no such loop, the
    pass changes nothing.
  }];
  let options = [
    Option<"budget", "budget", "::tad::Budget", "::tad::Budget()",
           "The memory budget that tad-remat will meet (bytes; store-all "
           "and overhead:P% choose nothing: every loop keeps its full "
           "tape)">,
    Option<"policy", "policy", "::tad::RematPolicy",
           "::tad::RematPolicy::automatic", "tad-remat's policy",
           "::tad::getRematPolicyValues()">,
    Option<"entry", "entry", "std::string", "\"\"",
           "tad-remat's entry">,
    Option<"loopResiduals", "loop-residuals", "bool", "true",
           "Whether a full tape that keeps the residuals is a candidate">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "::tad::TadDialect"
  ];
}

def DataParallel : Pass<"tad-data-parallel", "mlir::ModuleOp"> {
  let summary = "Averages every gradient across the processes of a run";
  let description = [{
    Runs after tad-autodiff. Every gradient that a `grad` or
    `value_and_grad` derivative returns becomes its `tad.all_reduce mean`
    across the processes (MPI ranks) of the run: when each process computes
    the gradient of a mean loss over its shard of the batch, and the shards
    are of one size, the average is the gradient over the whole batch, so an
    unchanged model trains data-parallel (`tadc --data-parallel`,
    docs/distributed.md). The values that `value_and_grad` returns (the loss,
    auxiliary values) stay each process's own, as in PyTorch's
    DistributedDataParallel. `vjp` derivatives, the pullbacks' building
    block, are left as they are: a gradient is averaged once, where it is
    returned to the program.

    ```mlir
    return %loss, %gw : tensor<f32>, tensor<4x4xf32>
    ```
    becomes
    ```mlir
    %avg = tad.all_reduce mean, %gw : tensor<4x4xf32>
    return %loss, %avg : tensor<f32>, tensor<4x4xf32>
    ```
  }];
}

def InlineRules : Pass<"tad-inline-rules", "mlir::ModuleOp"> {
  let summary = "Inlines custom rules' forwards and pullbacks where AD calls them";
  let description = [{
    tad-autodiff calls a custom rule's forward in the forward sweep and its
    pullback in the backward sweep (`tad.custom_rule`). After AD they are
    code like any other: this pass inlines each such call, and the calls of
    functions that are no derivatives in what it inlines (a forward may
    call its own primal; no rule applies there), with call-site locations.
    The remat pass then sees a rule's values one by one, and may recompute
    its outputs from what it keeps, and the lowering fuses its elementwise
    ops with their neighbours'. Runs after the CSE that follows tad-autodiff:
    CSE would merge a pullback's recomputation into the forward's value,
    which would then be kept where the rule chose to recompute it.
  }];
}

def DuplicateBroadcasts
    : Pass<"tad-duplicate-broadcasts", "mlir::func::FuncOp"> {
  let summary = "Gives each elementwise reader of a broadcast its own copy";
  let description = [{
    A broadcast that several elementwise ops or reductions read (a row's
    mean or reciprocal deviation, read by a layer norm's output and its
    gradient; a gain, read by a gradient three times) would be a buffer of
    the broadcast's full shape: tad-fuse-elementwise fuses a producer only
    into its one reader (the rule of the remat model, RematGraph.h). This
    pass clones the broadcast before each such reader in its block, with
    the elementwise ops that compute its input for it alone (at most 8
    ops: a reciprocal deviation from its variance), so that every copy
    fuses into its reader, which reads the smaller input through the
    broadcast's indexing: no buffer of the full shape, and the input stays
    alive until the last reader instead. Readers that do not
    fuse producers (a matmul, a call, a loop, a return) share the
    original. A broadcast of a view stays as it is: its copies would keep
    the viewed buffer alive until the last reader.

    ```mlir
    %b = tad.broadcast %r dims [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
    %y = tad.mul %x, %b : tensor<64x256xf32>
    %z = tad.mul %g, %b : tensor<64x256xf32>
    ```
    becomes
    ```mlir
    %b = tad.broadcast %r dims [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
    %y = tad.mul %x, %b : tensor<64x256xf32>
    %b2 = tad.broadcast %r dims [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
    %z = tad.mul %g, %b2 : tensor<64x256xf32>
    ```
    Runs after the last CSE of tensor ops, which would merge the copies.
  }];
  let statistics = [
    Statistic<"numCopies", "num-copies", "Number of broadcasts cloned">
  ];
}

def RestrictToEntry : Pass<"tad-restrict-to-entry", "mlir::ModuleOp"> {
  let summary = "Keeps one public function and what it reaches";
  let description = [{
    Makes every function but `entry` private and removes those it does not
    reach, so that only the code an entry needs is lowered and compiled.
    Runs after tad-autodiff: custom rules (`tad.custom_rule`) no longer keep
    their forward and pullback alive, nor does a derivative's
    `tad.derivative` keep its primal (the derivative keeps the attribute,
    which may then name a function that is gone). Fails, naming the
    functions there are, when `entry` is not a function with a body.
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"\"",
           "The function to keep (required)">,
  ];
}

def PrefixFunctionNames : Pass<"tad-prefix-function-names", "mlir::ModuleOp"> {
  let summary = "Gives every function its internal name (`__tad_f`)";
  let description = [{
    Compiled outputs export C functions named as in the .tad program, which
    call the compiled code by internal names. Runs after the passes whose
    messages name functions (tad-remat), so that they use the program's.
  }];
}

#endif // TAD_TRANSFORMS_PASSES_TD
