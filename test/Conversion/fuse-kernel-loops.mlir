// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-fuse-kernel-loops))' | FileCheck %s

// A sum's zero fill and the sum: each iteration touches only its own
// element of the accumulator, so they are one loop (one launch). The fill
// moves down past an allocation and a loop over other buffers.
// CHECK-LABEL: func.func @fill_and_sum
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c8)
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%c4)
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<4xf64>
// CHECK-NEXT:      scf.for
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @fill_and_sum(%x: memref<4x8xf32>, %y: memref<4xf32>) -> (memref<4xf64>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloc() : memref<4xf64>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %acc[%i] : memref<4xf64>
    scf.reduce
  }
  %other = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %y[%c0] : memref<4xf32>
    memref.store %v, %other[%c0] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = memref.load %acc[%i] : memref<4xf64>
      %e = arith.extf %v : f32 to f64
      %s = arith.addf %e, %a : f64
      memref.store %s, %acc[%i] : memref<4xf64>
    }
    scf.reduce
  }
  return %acc, %other : memref<4xf64>, memref<4xf32>
}

// -----

// Not fused: the second loop reads the first's result at another element
// (a transpose), which another thread writes.
// CHECK-LABEL: func.func @transposed_read
// CHECK-COUNT-2: scf.parallel
func.func @transposed_read(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4x4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x4xf32>
    memref.store %v, %t[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %t[%j, %i] : memref<4x4xf32>
    memref.store %v, %y[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4x4xf32>
  return
}

// -----

// The second loop reads the first's result through a view: not fused, and
// the first cannot move past it. The second and the third share no buffer:
// one loop. The free of a buffer that the third reads keeps it before the
// fourth.
// CHECK-LABEL: func.func @view_and_free
// CHECK:         scf.parallel
// CHECK:         memref.expand_shape
// CHECK:         scf.parallel
// CHECK:           memref.load %expand_shape
// CHECK:           memref.load %alloc_0
// CHECK:         memref.dealloc %alloc_0
// CHECK:         scf.parallel
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @view_and_free(%x: memref<4xf32>, %y: memref<4x1xf32>, %z: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xf32>
  %u = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %t[%i] : memref<4xf32>
    memref.store %v, %u[%i] : memref<4xf32>
    scf.reduce
  }
  %view = memref.expand_shape %t [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %view[%i, %c0] : memref<4x1xf32>
    memref.store %v, %y[%i, %c0] : memref<4x1xf32>
    scf.reduce
  }
  %w = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %u[%i] : memref<4xf32>
    memref.store %v, %w[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %u : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %w[%i] : memref<4xf32>
    memref.store %v, %z[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4xf32>
  memref.dealloc %w : memref<4xf32>
  return
}

// -----

// Not fused: different iteration spaces.
// CHECK-LABEL: func.func @other_bounds
// CHECK-COUNT-2: scf.parallel
func.func @other_bounds(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %x[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %x[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
