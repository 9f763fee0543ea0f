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

// -----

// Two column sums, each an f64 accumulator rounded to f32 (the bias's and
// the gain's gradients of a layer norm). Joined, the free of the first
// sum's input would wait for the second sum, over the block's peak, were
// the accumulators buffers; but only the joined loop touches them, each
// iteration its own element, first storing it in the loop's body: they
// become values that the inner loops carry (every addition as it was),
// and their allocations and frees go. The peak kept is the plan's, which
// the pass records on the block's parent first (the input and the first
// sum's accumulator and result: 65,536 + 2,048 + 1,024 bytes): the join
// reaches 65,536 + 1,024 + 1,024.
// CHECK-LABEL: func.func @owned_accumulators
// CHECK-SAME:    attributes {tad.host_peaks = array<i64: 68608>}
// CHECK-NOT:     memref<256xf64>
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK-NEXT:      %[[S1:.*]] = scf.for {{.*}} iter_args(%[[C1:.*]] = %[[ZERO:.*]]) -> (f64) {
// CHECK:             %[[N1:.*]] = arith.addf %{{.*}}, %[[C1]] : f64
// CHECK-NEXT:        scf.yield %[[N1]] : f64
// CHECK:           %[[R1:.*]] = arith.truncf %[[S1]]
// CHECK-NEXT:      memref.store %[[R1]], %{{.*}}[%[[I]]] : memref<256xf32>
// CHECK-NEXT:      %[[S2:.*]] = scf.for {{.*}} iter_args(%[[C2:.*]] = %[[ZERO]]) -> (f64) {
// CHECK:           %[[R2:.*]] = arith.truncf %[[S2]]
// CHECK-NEXT:      memref.store %[[R2]], %{{.*}}[%[[I]]] : memref<256xf32>
// CHECK:         memref.dealloc %[[X:.*]] : memref<64x256xf32>
// CHECK-NEXT:    return
func.func @owned_accumulators(%g: memref<64x256xf32>) -> (memref<256xf32>, memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %x = memref.alloc() : memref<64x256xf32>
  memref.copy %g, %x : memref<64x256xf32> to memref<64x256xf32>
  %acc1 = memref.alloc() : memref<256xf64>
  %out1 = memref.alloc() : memref<256xf32>
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    memref.store %zero, %acc1[%i] : memref<256xf64>
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%k, %i] : memref<64x256xf32>
      %a = memref.load %acc1[%i] : memref<256xf64>
      %e = arith.extf %v : f32 to f64
      %s = arith.addf %e, %a : f64
      memref.store %s, %acc1[%i] : memref<256xf64>
    }
    %t = memref.load %acc1[%i] : memref<256xf64>
    %r = arith.truncf %t : f64 to f32
    memref.store %r, %out1[%i] : memref<256xf32>
    scf.reduce
  }
  memref.dealloc %x : memref<64x256xf32>
  %acc2 = memref.alloc() : memref<256xf64>
  %out2 = memref.alloc() : memref<256xf32>
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    memref.store %zero, %acc2[%i] : memref<256xf64>
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %g[%k, %i] : memref<64x256xf32>
      %a = memref.load %acc2[%i] : memref<256xf64>
      %e = arith.extf %v : f32 to f64
      %s = arith.addf %e, %a : f64
      memref.store %s, %acc2[%i] : memref<256xf64>
    }
    %t = memref.load %acc2[%i] : memref<256xf64>
    %r = arith.truncf %t : f64 to f32
    memref.store %r, %out2[%i] : memref<256xf32>
    scf.reduce
  }
  memref.dealloc %acc1 : memref<256xf64>
  memref.dealloc %acc2 : memref<256xf64>
  return %out1, %out2 : memref<256xf32>, memref<256xf32>
}

// -----

// The same two sums, but the second's accumulator is read once at another
// element (a neighbour's), and the first's is loaded before any store of
// the loop's: neither is a value of its thread's, both stay buffers, and
// the joined loop would keep the first sum's input alive beside them, over
// the block's peak: not joined.
// CHECK-LABEL: func.func @not_owned
// CHECK:         scf.parallel
// CHECK:         memref.dealloc
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    scf.parallel
func.func @not_owned(%g: memref<64x256xf32>) -> (memref<256xf32>, memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %x = memref.alloc() : memref<64x256xf32>
  memref.copy %g, %x : memref<64x256xf32> to memref<64x256xf32>
  %acc1 = memref.alloc() : memref<256xf64>
  %out1 = memref.alloc() : memref<256xf32>
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %first = memref.load %acc1[%i] : memref<256xf64>
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%k, %i] : memref<64x256xf32>
      %a = memref.load %acc1[%i] : memref<256xf64>
      %e = arith.extf %v : f32 to f64
      %s = arith.addf %e, %a : f64
      memref.store %s, %acc1[%i] : memref<256xf64>
    }
    %t = memref.load %acc1[%i] : memref<256xf64>
    %r = arith.truncf %t : f64 to f32
    memref.store %r, %out1[%i] : memref<256xf32>
    scf.reduce
  }
  memref.dealloc %x : memref<64x256xf32>
  %acc2 = memref.alloc() : memref<256xf64>
  %out2 = memref.alloc() : memref<256xf32>
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    memref.store %zero, %acc2[%i] : memref<256xf64>
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %g[%k, %i] : memref<64x256xf32>
      %a = memref.load %acc2[%i] : memref<256xf64>
      %e = arith.extf %v : f32 to f64
      %s = arith.addf %e, %a : f64
      memref.store %s, %acc2[%i] : memref<256xf64>
    }
    %t = memref.load %acc2[%c255] : memref<256xf64>
    %r = arith.truncf %t : f64 to f32
    memref.store %r, %out2[%i] : memref<256xf32>
    scf.reduce
  }
  memref.dealloc %acc1 : memref<256xf64>
  memref.dealloc %acc2 : memref<256xf64>
  return %out1, %out2 : memref<256xf32>, memref<256xf32>
}

// -----

// Joined (nothing on the way), but neither buffer is the threads' own: the
// first is loaded before the loop stores it (what it held before counts),
// the second is stored under a branch (the value is not one on every
// path).
// CHECK-LABEL: func.func @joined_not_owned
// CHECK:         memref.alloc
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    scf.parallel
// CHECK:           memref.load %[[A:.*]][%{{.*}}] : memref<4xf32>
// CHECK:           scf.if
// CHECK-NEXT:        memref.store
// CHECK-NOT:     scf.parallel
// CHECK:         memref.dealloc
// CHECK-NEXT:    memref.dealloc
func.func @joined_not_owned(%c: i1) -> (memref<4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %out1 = memref.alloc() : memref<4xf32>
  %out2 = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %old = memref.load %a[%i] : memref<4xf32>
    memref.store %old, %out1[%i] : memref<4xf32>
    memref.store %one, %a[%i] : memref<4xf32>
    scf.if %c {
      memref.store %one, %b[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %a[%i] : memref<4xf32>
    %w = memref.load %b[%i] : memref<4xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out2[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %out1, %out2 : memref<4xf32>, memref<4xf32>
}
