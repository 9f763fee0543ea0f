//===- Passes.td - tad transformation passes ---------------*- tablegen -*-===//

#ifndef TAD_TRANSFORMS_PASSES_TD
#define TAD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def HoistDeallocs : Pass<"tad-hoist-deallocs", "mlir::func::FuncOp"> {
  let summary = "Frees each buffer right after its last use";
  let description = [{
    Ownership-based buffer deallocation frees a buffer at the end of the
    block that owns it. This pass moves every unconditional `memref.dealloc`
    up to just after the last operation of its block that uses the buffer
    or a view of it, so that a buffer's bytes are live exactly while the
    buffer is, which is the memory model the remat solver plans against.

    ```mlir
    %a = memref.alloc() : memref<64xf32>
    "use"(%a) : (memref<64xf32>) -> ()
    %b = memref.alloc() : memref<64xf32>
    "use"(%b) : (memref<64xf32>) -> ()
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    ```
    becomes
    ```mlir
    %a = memref.alloc() : memref<64xf32>
    "use"(%a) : (memref<64xf32>) -> ()
    memref.dealloc %a : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    "use"(%b) : (memref<64xf32>) -> ()
    memref.dealloc %b : memref<64xf32>
    ```
  }];
  let statistics = [
    Statistic<"numMoved", "num-moved", "Number of deallocations moved up">
  ];
}

#endif // TAD_TRANSFORMS_PASSES_TD
