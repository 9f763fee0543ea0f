// RUN: tad-opt %s --tad-emulate-gpu-launches | FileCheck %s --check-prefix=FORWARD
// RUN: tad-opt %s --tad-emulate-gpu-launches=reverse=true | FileCheck %s --check-prefix=REVERSE

// A launch becomes a count of it and six loops (grid z, y, x, then block
// z, y, x) around its body; with `reverse`, each id counts down from its
// size less one, so that a kernel whose threads depend on each other's
// order gives other results in the two orders.
// FORWARD-LABEL: func.func @store_ids
// FORWARD:         call @tad_rt_count_kernel_launch()
// FORWARD-COUNT-5: scf.for
// FORWARD:         scf.for %[[TX:.*]] = %{{.*}} to %[[BX:.*]] step
// FORWARD-NOT:       arith.subi
// FORWARD:           arith.muli %{{.*}}, %[[BX]]
// FORWARD-NEXT:      arith.addi %{{.*}}, %[[TX]]
// FORWARD:       func.func private @tad_rt_count_kernel_launch()

// REVERSE-LABEL: func.func @store_ids
// REVERSE:         call @tad_rt_count_kernel_launch()
// REVERSE-COUNT-5: scf.for
// REVERSE:         scf.for %[[T:.*]] = %{{.*}} to %[[BX:.*]] step %[[ONE:[^ ]*]]
// REVERSE-NEXT:      %[[LAST:.*]] = arith.subi %[[BX]], %[[ONE]]
// REVERSE-NEXT:      %[[TX:.*]] = arith.subi %[[LAST]], %[[T]]
// REVERSE:           arith.addi %{{.*}}, %[[TX]]
func.func @store_ids(%out: memref<1024xindex>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %id = arith.addi %base, %tx : index
    memref.store %id, %out[%id] : memref<1024xindex>
    gpu.terminator
  }
  return
}
