// RUN: tad-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(tad-drop-kernel-owned))' | FileCheck %s

// The allocation and frees of a buffer that a kernel keeps in its own
// memory (marked by tad-warp-row-reductions or tad-fuse-kernel-loops)
// go; the rest stays.
// CHECK-LABEL: func.func @owned
// CHECK-NEXT:    %[[KEPT:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.dealloc %[[KEPT]] : memref<4xf32>
// CHECK-NEXT:    return
func.func @owned() {
  %owned = memref.alloc() {tad.kernel_owned} : memref<16xf64>
  %kept = memref.alloc() : memref<4xf32>
  memref.dealloc %owned {tad.kernel_owned} : memref<16xf64>
  memref.dealloc %kept : memref<4xf32>
  return
}

// -----

// A marked buffer that the host code still reads is an error, not a
// dangling use.
func.func @still_used() -> f64 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a buffer that a kernel keeps in its own memory is still used by the host code}}
  %owned = memref.alloc() {tad.kernel_owned} : memref<16xf64>
  %v = memref.load %owned[%c0] : memref<16xf64>
  memref.dealloc %owned {tad.kernel_owned} : memref<16xf64>
  return %v : f64
}
