// RUN: tad-opt %s --split-input-file --tad-split-long-reductions | FileCheck %s

// A sum of 2^21 elements per lane in 8 lanes (tad-split-reductions' form of
// a full sum of 2^24 f32 elements): 8192 chunks of 256 per lane, one thread
// each (the chunk outermost), into partial sums from -0.0 in scratch; their
// 8192 per lane are cut again into 32 chunks; then each lane adds its 32
// in order into its accumulator, as the loop added its elements. A thread
// loads 8 elements of its chunk at once, then adds them in order; the rest
// of a chunk (none here) one by one. The adds keep their operand order.
// CHECK-LABEL: func.func @lanes
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    %[[P1:.*]] = memref.alloc() : memref<8192x8xf64>
// CHECK:         %[[Z1:.*]] = arith.constant -0.000000e+00 : f64
// CHECK:         scf.parallel (%[[C:.*]], %[[L:.*]]) = ({{.*}}) to (%c8192, %{{.*}})
// CHECK:           %[[FIRST:.*]] = arith.muli %[[C]], %c256
// CHECK:           %[[END:.*]] = arith.minsi
// CHECK:           %[[UEND:.*]] = arith.addi %[[FIRST]],
// CHECK:           %[[U:.*]] = scf.for %[[J:.*]] = %[[FIRST]] to %[[UEND]] step %c8{{.*}} iter_args(%[[A:.*]] = %[[Z1]]) -> (f64)
// CHECK:             %[[J0:.*]] = arith.addi %[[J]], %c0
// CHECK-NEXT:        %[[X0:.*]] = memref.load %{{.*}}[%[[J0]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W0:.*]] = arith.extf %[[X0]]
// CHECK:             %[[J7:.*]] = arith.addi %[[J]], %c7
// CHECK-NEXT:        %[[X7:.*]] = memref.load %{{.*}}[%[[J7]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W7:.*]] = arith.extf %[[X7]]
// CHECK-NEXT:        arith.addf %[[W0]], %[[A]] : f64
// CHECK-COUNT-6:     arith.addf
// CHECK-NEXT:        %[[S7:.*]] = arith.addf %[[W7]], %{{.*}} : f64
// CHECK-NEXT:        scf.yield %[[S7]]
// CHECK:           %[[S:.*]] = scf.for %[[K:.*]] = %[[UEND]] to %[[END]] step %{{.*}} iter_args(%[[B:.*]] = %[[U]]) -> (f64)
// CHECK-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[K]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[X]]
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[W]], %[[B]] : f64
// CHECK-NEXT:        scf.yield %[[SUM]]
// CHECK:           memref.store %[[S]], %[[P1]][%[[C]], %[[L]]]
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    %[[P2:.*]] = memref.alloc() : memref<32x8xf64>
// CHECK:         scf.parallel ({{.*}}) to (%c32, %{{.*}})
// CHECK:           memref.load %[[P1]]
// CHECK:         scf.parallel (%[[L2:.*]]) = ({{.*}}) to (%{{.*}})
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %c32
// CHECK-NEXT:        %[[PART:.*]] = memref.load %[[P2]][%[[K]], %[[L2]]]
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[ACC:.*]][%[[L2]]]
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[PART]], %[[OLD]] : f64
// CHECK-NEXT:        memref.store %[[NEW]], %[[ACC]][%[[L2]]]
// CHECK:         memref.dealloc %[[P2]]
// CHECK-NEXT:    memref.dealloc %[[P1]]
// CHECK:       func.func private @tad_rt_mark_scratch()
func.func @lanes(%x: memref<16777216xf32>) -> memref<8xf64> {
  %acc = memref.alloc() : memref<8xf64>
  %c2097152 = arith.constant 2097152 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %rows = memref.expand_shape %x [[0, 1]] output_shape [2097152, 8] : memref<16777216xf32> into memref<2097152x8xf32>
  scf.parallel (%l) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c2097152 step %c1 {
      %v = memref.load %rows[%j, %l] : memref<2097152x8xf32>
      %old = memref.load %acc[%l] : memref<8xf64>
      %w = arith.extf %v : f32 to f64
      %new = arith.addf %w, %old : f64
      memref.store %new, %acc[%l] : memref<8xf64>
    }
    scf.reduce
  }
  return %acc : memref<8xf64>
}

// -----

// A bias's gradient: each of 512 columns sums [32, 256] rows, a perfect nest
// of two short loops. The nest becomes one loop of 8192 trips in the same
// order (the row indices recovered by division), which is cut into 32
// chunks of 256 trips: 512 x 32 threads.
// CHECK-LABEL: func.func @nest
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    memref.alloc() : memref<32x512xf64>
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:             %[[J:.*]] = arith.remui
// CHECK-NEXT:        %[[I:.*]] = arith.divui
// CHECK-NEXT:        memref.load %arg0[%[[I]], %[[J]], %{{.*}}] : memref<32x256x512xf32>
// CHECK:         scf.parallel
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %c32
func.func @nest(%x: memref<32x256x512xf32>) -> memref<512xf64> {
  %acc = memref.alloc() : memref<512xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%c) = (%c0) to (%c512) step (%c1) {
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %v = memref.load %x[%i, %j, %c] : memref<32x256x512xf32>
        %old = memref.load %acc[%c] : memref<512xf64>
        %w = arith.extf %v : f32 to f64
        %new = arith.addf %w, %old : f64
        memref.store %new, %acc[%c] : memref<512xf64>
      }
    }
    scf.reduce
  }
  return %acc : memref<512xf64>
}

// -----

// A maximum that the function runs alone (no parallel loop): its partial
// maxima start from -inf; the accumulator is the max's first operand, and
// stays so. 3000 trips: 11 chunks of 273 (the last one shorter).
// CHECK-LABEL: func.func @alone
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    memref.alloc() : memref<11xf32>
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:         scf.parallel (%[[C:.*]]) = ({{.*}}) to (%c11)
// CHECK:           arith.muli %[[C]], %c273
// CHECK:           scf.for {{.*}} iter_args(%[[A:.*]] = {{.*}}) -> (f32)
// CHECK:             arith.maximumf %[[A]], %{{.*}} : f32
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %c11
// CHECK-NEXT:      %[[PART:.*]] = memref.load
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT:      arith.maximumf %[[OLD]], %[[PART]] : f32
func.func @alone(%x: memref<3000xf32>) -> memref<f32> {
  %acc = memref.alloc() : memref<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3000 = arith.constant 3000 : index
  scf.for %j = %c0 to %c3000 step %c1 {
    %v = memref.load %x[%j] : memref<3000xf32>
    %old = memref.load %acc[] : memref<f32>
    %new = arith.maximumf %old, %v : f32
    memref.store %new, %acc[] : memref<f32>
  }
  return %acc : memref<f32>
}

// -----

// Left alone: a loop under 1024 trips; an accumulator element that moves
// with the loop; a body that stores elsewhere too; a subtraction (not
// commutative); a loop inside a host loop that does more than the loop; an
// accumulator that may be the
// buffer the loop reads (two arguments); a loop whose 65,536 parallel
// iterations are threads enough.
// CHECK-LABEL: func.func @not_cut
// CHECK-NOT:     tad_rt_mark_scratch
// CHECK:         return
func.func @not_cut(%x: memref<4096xf32>, %maybe: memref<f32>, %other: memref<f32>, %wide: memref<65536x4096xf32>) {
  %acc = memref.alloc() : memref<4096xf32>
  %one = memref.alloc() : memref<f32>
  %sums = memref.alloc() : memref<65536xf32>
  %c65536 = arith.constant 65536 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c1000 = arith.constant 1000 : index
  %c4096 = arith.constant 4096 : index
  %v0 = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c1000 step %c1 {
    %v = memref.load %x[%j] : memref<4096xf32>
    %old = memref.load %one[] : memref<f32>
    %new = arith.addf %v, %old : f32
    memref.store %new, %one[] : memref<f32>
  }
  scf.for %j = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%j] : memref<4096xf32>
    %old = memref.load %acc[%j] : memref<4096xf32>
    %new = arith.addf %v, %old : f32
    memref.store %new, %acc[%j] : memref<4096xf32>
  }
  scf.for %j = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%j] : memref<4096xf32>
    memref.store %v, %other[] : memref<f32>
    %old = memref.load %one[] : memref<f32>
    %new = arith.addf %v, %old : f32
    memref.store %new, %one[] : memref<f32>
  }
  scf.for %j = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%j] : memref<4096xf32>
    %old = memref.load %one[] : memref<f32>
    %new = arith.subf %old, %v : f32
    memref.store %new, %one[] : memref<f32>
  }
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %v0, %other[] : memref<f32>
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %x[%j] : memref<4096xf32>
      %old = memref.load %one[] : memref<f32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %one[] : memref<f32>
    }
  }
  scf.for %j = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%j] : memref<4096xf32>
    %old = memref.load %maybe[] : memref<f32>
    %new = arith.addf %v, %old : f32
    memref.store %new, %maybe[] : memref<f32>
  }
  scf.parallel (%i) = (%c0) to (%c65536) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %wide[%i, %j] : memref<65536x4096xf32>
      %old = memref.load %sums[%i] : memref<65536xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %sums[%i] : memref<65536xf32>
    }
    scf.reduce
  }
  return
}
