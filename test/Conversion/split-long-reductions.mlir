// RUN: tad-opt %s --split-input-file --tad-split-long-reductions | FileCheck %s

// A sum of 2^21 elements per lane in 8 lanes (tad-split-reductions' form of
// a full sum of 2^24 f32 elements): 8192 chunks per lane, one thread each
// (the chunk outermost); chunk c adds the rows c, c + 8192, c + 2 x 8192,
// ... (256 of them) in order into a partial sum from -0.0 in scratch, so
// that neighbouring threads load neighbouring elements. A thread loads 8
// of its elements at once, then adds them in order; the rest (none here)
// one by one. Then a block of 256 threads per lane: thread t adds the
// lane's partial sums t, t + 256, ... in order into shared memory, the
// block adds those as a tree (halving, a barrier before each step, down to
// 32 values; then the first warp's lanes go on with shuffles, which pair
// the same values), and thread 0 adds the tree's sum into the lane's
// accumulator. The adds keep their operand order.
// CHECK-LABEL: func.func @lanes
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<8192x8xf64>
// CHECK:         %[[Z:.*]] = arith.constant -0.000000e+00 : f64
// CHECK:         scf.parallel (%[[C:.*]], %[[L:.*]]) = ({{.*}}) to (%c8192, %{{.*}})
// CHECK:           %[[FROM:.*]] = arith.subi %c2105343, %[[C]]
// CHECK-NEXT:      %[[COUNT:.*]] = arith.divui %[[FROM]], %c8192
// CHECK:           %[[UEND:.*]] = arith.muli
// CHECK:           %[[U:.*]] = scf.for %[[M:.*]] = %{{.*}} to %[[UEND]] step %c8{{.*}} iter_args(%[[A:.*]] = %[[Z]]) -> (f64)
// CHECK:             %[[M0:.*]] = arith.addi %[[M]], %c0
// CHECK:             %[[R0:.*]] = arith.muli %[[M0]], %c8192
// CHECK-NEXT:        %[[J0:.*]] = arith.addi %[[C]], %[[R0]]
// CHECK-NEXT:        %[[X0:.*]] = memref.load %{{.*}}[%[[J0]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W0:.*]] = arith.extf %[[X0]]
// CHECK:             %[[M7:.*]] = arith.addi %[[M]], %c7
// CHECK:             %[[R7:.*]] = arith.muli %[[M7]], %c8192
// CHECK-NEXT:        %[[J7:.*]] = arith.addi %[[C]], %[[R7]]
// CHECK-NEXT:        %[[X7:.*]] = memref.load %{{.*}}[%[[J7]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W7:.*]] = arith.extf %[[X7]]
// CHECK-NEXT:        arith.addf %[[W0]], %[[A]] : f64
// CHECK-COUNT-6:     arith.addf
// CHECK-NEXT:        %[[S7:.*]] = arith.addf %[[W7]], %{{.*}} : f64
// CHECK-NEXT:        scf.yield %[[S7]]
// CHECK:           %[[S:.*]] = scf.for %[[K:.*]] = %[[UEND]] to %[[COUNT]] step %{{.*}} iter_args(%[[B:.*]] = %[[U]]) -> (f64)
// CHECK:             %[[RK:.*]] = arith.muli %[[K]], %c8192
// CHECK-NEXT:        %[[JK:.*]] = arith.addi %[[C]], %[[RK]]
// CHECK-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[JK]], %[[L]]] : memref<2097152x8xf32>
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[X]]
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[W]], %[[B]] : f64
// CHECK-NEXT:        scf.yield %[[SUM]]
// CHECK:           memref.store %[[S]], %[[P]][%[[C]], %[[L]]]
// CHECK:         gpu.launch blocks(%[[LANE:[^,]*]], {{.*}}) in (%{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:[^,]*]], {{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[SH:.*]] : memref<256xf64, #gpu.address_space<workgroup>>)
// CHECK:           %[[Z2:.*]] = arith.constant -0.000000e+00 : f64
// CHECK:           %[[OWN:.*]] = scf.for %[[Q:.*]] = %[[T]] to %c8192{{.*}} step %c256{{.*}} iter_args(%[[E:.*]] = %[[Z2]]) -> (f64)
// CHECK-NEXT:        %[[PART:.*]] = memref.load %[[P]][%[[Q]], %[[LANE]]]
// CHECK-NEXT:        %[[ADD:.*]] = arith.addf %[[PART]], %[[E]] : f64
// CHECK-NEXT:        scf.yield %[[ADD]]
// CHECK:           memref.store %[[OWN]], %[[SH]][%[[T]]]
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      %[[H:.*]] = arith.constant 128 : index
// CHECK-NEXT:      %[[PARTNER:.*]] = arith.addi %[[T]], %[[H]]
// CHECK-NEXT:      arith.constant 128 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[T]], %{{.*}}
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[MINE:.*]] = memref.load %[[SH]][%[[T]]]
// CHECK-NEXT:        %[[OTHER:.*]] = memref.load %[[SH]][%[[PARTNER]]]
// CHECK-NEXT:        %[[BOTH:.*]] = arith.addf %[[OTHER]], %[[MINE]] : f64
// CHECK-NEXT:        memref.store %[[BOTH]], %[[SH]][%[[T]]]
// CHECK-NEXT:      }
// CHECK-COUNT-2:   gpu.barrier
// CHECK-NOT:       gpu.shuffle
// CHECK:           gpu.barrier
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[SH]][%[[T]]]
// CHECK:           %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[V]], %c16_i32, %c32_i32 : f64
// CHECK-NEXT:      %[[V16:.*]] = arith.addf %[[S16]], %[[V]] : f64
// CHECK:           gpu.shuffle xor %[[V16]], %c8_i32
// CHECK-COUNT-3:   gpu.shuffle xor
// CHECK-NEXT:      %[[ROOT:.*]] = arith.addf
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[ZERO:.*]] = arith.cmpi ult, %[[T]], %{{.*}}
// CHECK-NEXT:      scf.if %[[ZERO]] {
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[ACC:.*]][%[[LANE]]]
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[ROOT]], %[[OLD]] : f64
// CHECK-NEXT:        memref.store %[[NEW]], %[[ACC]][%[[LANE]]]
// CHECK:         memref.dealloc %[[P]]
// CHECK-NEXT:    return
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
// chunks of 256 trips: 32 x 512 threads; then a block of 32 threads per
// column, the column being the block's number: one warp, whose shuffles
// need no shared memory and no barrier.
// CHECK-LABEL: func.func @nest
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<32x512xf64>
// CHECK:         scf.parallel (%[[C:.*]], %[[COL:.*]]) = {{.*}} to (%c32{{.*}}, %c512{{.*}})
// CHECK:           scf.for
// CHECK:             %[[R:.*]] = arith.addi %[[C]],
// CHECK-NEXT:        %[[J:.*]] = arith.remui %[[R]], %c256
// CHECK-NEXT:        %[[I:.*]] = arith.divui %[[R]], %c256
// CHECK-NEXT:        memref.load %arg0[%[[I]], %[[J]], %[[COL]]] : memref<32x256x512xf32>
// CHECK:         gpu.launch blocks(%[[BLOCK:[^,]*]], {{.*}}) in (%{{.*}} = %c512{{.*}}, {{.*}}) threads(%[[T:[^,]*]], {{.*}}) in (%{{.*}} = %c32{{.*}}, {{.*}})
// CHECK:           scf.for %[[Q:.*]] = %[[T]] to %c32{{.*}} step %c32
// CHECK-NEXT:        memref.load %[[P]][%[[Q]], %[[BLOCK]]]
// CHECK-NOT:       gpu.barrier
// CHECK-COUNT-5:   gpu.shuffle xor {{.*}}, %c32_i32{{.*}} : f64
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.store {{.*}}[%[[BLOCK]]] : memref<512xf64>
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

// A full sum of a [37, 200] nest, which the function runs alone: the nest
// becomes one loop of 7400 trips, whose constants (the row length that
// recovers the indices) come before it, so that the result verifies
// (tad-opt checks it after the pass).
// CHECK-LABEL: func.func @nest_alone
// CHECK:         call @tad_rt_mark_scratch()
// CHECK:         scf.parallel
// CHECK:             arith.remui %{{.*}}, %c200
// CHECK:         gpu.launch
func.func @nest_alone(%x: memref<37x200xf64>) -> memref<f64> {
  %acc = memref.alloc() : memref<f64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c200 = arith.constant 200 : index
  scf.for %i = %c0 to %c37 step %c1 {
    scf.for %j = %c0 to %c200 step %c1 {
      %v = memref.load %x[%i, %j] : memref<37x200xf64>
      %old = memref.load %acc[] : memref<f64>
      %new = arith.addf %v, %old : f64
      memref.store %new, %acc[] : memref<f64>
    }
  }
  return %acc : memref<f64>
}

// -----

// Column sums of f32 in f64 accumulators, then their conversion to f32 (a
// bias's gradient): the loop over the outputs after the sum, past the
// allocation of its result (which moves before the sum), runs in the
// tree's launch, in the thread that finishes each output, after its store,
// and launches nothing of its own.
// CHECK-LABEL: func.func @tail
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<512xf32>
// CHECK:         call @tad_rt_mark_scratch()
// CHECK:         gpu.launch blocks(%[[B:[^,]*]],
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[ACC:.*]][%[[B]]] : memref<512xf64>
// CHECK-NEXT:        %[[S:.*]] = memref.load %[[ACC]][%[[B]]] : memref<512xf64>
// CHECK-NEXT:        %[[T:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK-NEXT:        memref.store %[[T]], %[[OUT]][%[[B]]] : memref<512xf32>
// CHECK:         memref.dealloc
// CHECK-NOT:     scf.parallel
// CHECK:         memref.dealloc %[[ACC]]
func.func @tail(%x: memref<8192x512xf32>) -> memref<512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloc() : memref<512xf64>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    memref.store %zero, %acc[%i] : memref<512xf64>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c8192 step %c1 {
      %v = memref.load %x[%j, %i] : memref<8192x512xf32>
      %old = memref.load %acc[%i] : memref<512xf64>
      %w = arith.extf %v : f32 to f64
      %new = arith.addf %w, %old : f64
      memref.store %new, %acc[%i] : memref<512xf64>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<512xf32>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    %s = memref.load %acc[%i] : memref<512xf64>
    %t = arith.truncf %s : f64 to f32
    memref.store %t, %out[%i] : memref<512xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<512xf64>
  return %out : memref<512xf32>
}

// -----

// Not a tail: a loop that reads another output's sum, one that writes a
// buffer it did not allocate on the way (the function's argument), and
// one that reads the sums through a view.
// CHECK-LABEL: func.func @not_tails
// CHECK:         gpu.launch
// CHECK:         scf.parallel
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<512xf64>
// CHECK:         gpu.launch
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.*}}, %arg1
// CHECK:         gpu.launch
// CHECK:         scf.parallel
// CHECK:           memref.load %{{.*}} : memref<512x1xf64>
func.func @not_tails(%x: memref<8192x512xf32>, %y: memref<512xf32>) -> (memref<512xf32>, memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c511 = arith.constant 511 : index
  %c512 = arith.constant 512 : index
  %c8192 = arith.constant 8192 : index
  %acc = memref.alloc() : memref<512xf64>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c8192 step %c1 {
      %v = memref.load %x[%j, %i] : memref<8192x512xf32>
      %old = memref.load %acc[%i] : memref<512xf64>
      %w = arith.extf %v : f32 to f64
      %new = arith.addf %w, %old : f64
      memref.store %new, %acc[%i] : memref<512xf64>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<512xf32>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    %k = arith.subi %c511, %i : index
    %s = memref.load %acc[%k] : memref<512xf64>
    %t = arith.truncf %s : f64 to f32
    memref.store %t, %out[%i] : memref<512xf32>
    scf.reduce
  }
  %acc2 = memref.alloc() : memref<512xf64>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c8192 step %c1 {
      %v = memref.load %x[%j, %i] : memref<8192x512xf32>
      %old = memref.load %acc2[%i] : memref<512xf64>
      %w = arith.extf %v : f32 to f64
      %new = arith.addf %w, %old : f64
      memref.store %new, %acc2[%i] : memref<512xf64>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    %s = memref.load %acc2[%i] : memref<512xf64>
    %t = arith.truncf %s : f64 to f32
    memref.store %t, %y[%i] : memref<512xf32>
    scf.reduce
  }
  %acc3 = memref.alloc() : memref<512xf64>
  %column = memref.expand_shape %acc3 [[0, 1]] output_shape [512, 1] : memref<512xf64> into memref<512x1xf64>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c8192 step %c1 {
      %v = memref.load %x[%j, %i] : memref<8192x512xf32>
      %old = memref.load %acc3[%i] : memref<512xf64>
      %w = arith.extf %v : f32 to f64
      %new = arith.addf %w, %old : f64
      memref.store %new, %acc3[%i] : memref<512xf64>
    }
    scf.reduce
  }
  %out3 = memref.alloc() : memref<512xf32>
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    %s = memref.load %column[%i, %c0] : memref<512x1xf64>
    %t = arith.truncf %s : f64 to f32
    memref.store %t, %out3[%i] : memref<512xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<512xf64>
  memref.dealloc %acc2 : memref<512xf64>
  memref.dealloc %acc3 : memref<512xf64>
  return %out, %out3 : memref<512xf32>, memref<512xf32>
}

// -----

// A maximum that the function runs alone (no parallel loop): its partial
// maxima start from -inf; the accumulator is the max's first operand, and
// stays so. 3000 trips: 11 chunks of 273 or 272 (chunk c: trips c, c + 11,
// ...); then one block of 16 threads (11 rounded up to a power of 2),
// half a warp, whose shuffles have a width of 16.
// CHECK-LABEL: func.func @alone
// CHECK:         call @tad_rt_mark_scratch()
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<11xf32>
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:         scf.parallel (%[[C:.*]]) = ({{.*}}) to (%c11)
// CHECK:           arith.subi %c3010, %[[C]]
// CHECK:           scf.for {{.*}} iter_args(%[[A:.*]] = {{.*}}) -> (f32)
// CHECK:             arith.maximumf %[[A]], %{{.*}} : f32
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}, {{.*}}) threads(%[[T:[^,]*]], {{.*}}) in (%{{.*}} = %c16, {{.*}}) {
// CHECK:           %[[OWN:.*]] = scf.for %[[Q:.*]] = %[[T]] to %c11{{.*}} step %c16{{.*}} iter_args(%[[E:.*]] = %{{.*}})
// CHECK-NEXT:        %[[PART:.*]] = memref.load %[[P]][%[[Q]]]
// CHECK-NEXT:        arith.maximumf %[[E]], %[[PART]] : f32
// CHECK:           %[[S8:.*]], %{{.*}} = gpu.shuffle xor %[[OWN]], %c8_i32, %c16_i32 : f32
// CHECK-NEXT:      arith.maximumf %[[OWN]], %[[S8]] : f32
// CHECK-COUNT-3:   gpu.shuffle xor {{.*}}, %c16_i32{{.*}} : f32
// CHECK-NEXT:      %[[ROOT:.*]] = arith.maximumf
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.if
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT:        arith.maximumf %[[OLD]], %[[ROOT]] : f32
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
