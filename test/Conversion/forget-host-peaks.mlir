// RUN: tad-opt %s --pass-pipeline='builtin.module(func.func(tad-forget-host-peaks))' | FileCheck %s

// The planned peaks that the kernel mapping's steps recorded on a host
// block's parent ops (tad-warp-row-reductions, tad-fuse-kernel-loops) go
// once the mapping is done; nothing else changes.
// CHECK-LABEL: func.func @recorded(
// CHECK-NOT:     tad.host_peaks
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc() : memref<4xf32>
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:    }
// CHECK-NOT:     tad.host_peaks
// CHECK:         return
func.func @recorded(%n: index) attributes {tad.host_peaks = array<i64: 64>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc() : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
  } {tad.host_peaks = array<i64: 16>}
  return
}
