// RUN: tad-opt %s --split-input-file --tad-emulate-gpu-launches --verify-diagnostics | FileCheck %s

// A kernel whose threads wait at a barrier runs in phases: within each
// block, every thread up to the barrier, then every thread after it. What
// a thread keeps across the barrier (its index, its loaded value) is kept
// in a stack buffer with an element per thread, and workgroup memory is a
// stack buffer without its address space, all in an alloca scope, so that
// the emulator allocates nothing that the runtime counts.
// CHECK-LABEL: func.func @mirror_in_blocks
// CHECK:         call @tad_rt_count_kernel_launch()
// CHECK:         memref.alloca_scope {
// CHECK-DAG:       %[[V:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK-DAG:       %[[I:.*]] = memref.alloca(%{{.*}}) : memref<?xindex>
// CHECK-DAG:       %[[TILE:.*]] = memref.alloca() : memref<16xf32>
// CHECK-COUNT-3:   scf.for
// CHECK:             %[[C15:.*]] = arith.constant 15 : index
// CHECK-COUNT-3:     scf.for
// CHECK:               memref.store %{{.*}}, %[[I]][%[[T:.*]]] : memref<?xindex>
// CHECK:               %[[LOADED:.*]] = memref.load %arg0
// CHECK:               memref.store %[[LOADED]], %[[V]][%[[T]]] : memref<?xf32>
// CHECK:               memref.store %[[LOADED]], %[[TILE]]
// CHECK-COUNT-3:     scf.for
// CHECK:               memref.load %[[TILE]]
// CHECK:               memref.load %[[V]]
// CHECK:               memref.load %[[I]]
// CHECK:               memref.store %{{.*}}, %arg1
// CHECK-NOT:     gpu.
func.func @mirror_in_blocks(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16xf32, #gpu.address_space<workgroup>>) {
    %c15 = arith.constant 15 : index
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %in[%i] : memref<64xf32>
    memref.store %v, %tile[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %mirror = arith.subi %c15, %tx : index
    %w = memref.load %tile[%mirror] : memref<16xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %v, %w : f32
    memref.store %sum, %out[%i] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop around barriers (as tad-tile-gpu-matmuls' loop over k) is one
// loop for the whole block, its bounds shared by all threads; its carried
// value is a slot that each phase reads and the end of each iteration
// writes; its result is that slot after the loop.
// CHECK-LABEL: func.func @sum_in_steps
// CHECK:         memref.alloca_scope {
// CHECK:           %[[ACC:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK:           %[[TILE:.*]] = memref.alloca() : memref<8xf32>
// The carried value's start.
// CHECK-COUNT-3:   scf.for
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %[[ACC]]
// The loop over steps, without carried values.
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               scf.for
// CHECK:                 arith.addi %[[K]]
// CHECK:                 memref.store %{{.*}}, %[[TILE]]
// CHECK:               scf.for
// CHECK:                 memref.load %[[TILE]]
// CHECK:                 memref.load %[[ACC]]
// CHECK:                 arith.addf
// CHECK:               scf.for
// CHECK:                 memref.store %{{.*}}, %[[ACC]]
// CHECK:             }
// CHECK:             scf.for
// CHECK:               memref.load %[[ACC]]
// CHECK:               memref.store %{{.*}}, %arg1
func.func @sum_in_steps(%in: memref<64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<8xf32, #gpu.address_space<workgroup>>) {
    %zero = arith.constant 0.0 : f32
    %total = scf.for %k = %c0 to %c64 step %c8 iter_args(%acc = %zero) -> (f32) {
      %i = arith.addi %k, %tx : index
      %v = memref.load %in[%i] : memref<64xf32>
      memref.store %v, %tile[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c7 = arith.constant 7 : index
      %mirror = arith.subi %c7, %tx : index
      %w = memref.load %tile[%mirror] : memref<8xf32, #gpu.address_space<workgroup>>
      %next = arith.addf %acc, %w : f32
      gpu.barrier
      scf.yield %next : f32
    }
    memref.store %total, %out[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @barrier_in_branch(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @below {{waits at a barrier inside a branch, which emulation does not model}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %c8 = arith.constant 8 : index
    %low = arith.cmpi ult, %tx, %c8 : index
    scf.if %low {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @loop_bounds_per_thread(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    // expected-error @below {{around a barrier has bounds that differ between threads, which emulation does not model}}
    scf.for %k = %c0 to %tx step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @view_across_barrier(%in: memref<16x4xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @below {{keeps a value of type 'memref<4xf32, strided<[1], offset: ?>>' across a barrier, which emulation does not model}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %row = memref.subview %in[%tx, 0] [1, 4] [1, 1] : memref<16x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    gpu.barrier
    %v = memref.load %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
    memref.store %v, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// A warp shuffle is an exchange through a buffer of a slot per thread
// (EmulateShuffles.cpp) between two barriers: every thread stores its
// value in its slot, and in the next phase reads the slot of its partner
// lane (lane ^ 1 in its warp of 32: the block's threads by linear id,
// x fastest), its own where the partner is past the width.
// CHECK-LABEL: func.func @warp_shuffle
// CHECK:         memref.alloca_scope {
// CHECK-DAG:       %[[SOURCE:.*]] = memref.alloca(%{{.*}}) : memref<?xindex>
// CHECK-DAG:       %[[SLOTS:.*]] = memref.alloca() : memref<64xf32>
// CHECK:               %[[LANE:.*]] = arith.remui %[[T:.*]], %c32
// CHECK-NEXT:          %[[PARTNER:.*]] = arith.xori %[[LANE]], %{{.*}} : index
// CHECK-NEXT:          %[[VALID:.*]] = arith.cmpi ult, %[[PARTNER]], %{{.*}} : index
// CHECK-NEXT:          %[[BASE:.*]] = arith.subi %[[T]], %[[LANE]] : index
// CHECK-NEXT:          %[[AT:.*]] = arith.addi %[[BASE]], %[[PARTNER]] : index
// CHECK-NEXT:          %[[FROM:.*]] = arith.select %[[VALID]], %[[AT]], %[[T]] : index
// CHECK-NEXT:          memref.store %[[FROM]], %[[SOURCE]]
// CHECK-NEXT:          memref.store %{{.*}}, %[[SLOTS]][%[[T]]] : memref<64xf32>
// CHECK-COUNT-3:     scf.for
// CHECK:               %[[S:.*]] = memref.load %[[SOURCE]]
// CHECK-NEXT:          memref.load %[[SLOTS]][%[[S]]] : memref<64xf32>
// CHECK-NOT:     gpu.
func.func @warp_shuffle(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1) {
    %one = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %row = arith.muli %ty, %c32 : index
    %i = arith.addi %row, %tx : index
    %v = memref.load %in[%i] : memref<64xf32>
    %shuffled, %valid = gpu.shuffle xor %v, %one, %width : f32
    memref.store %shuffled, %out[%i] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Shuffles that emulation does not model: in a branch (the exchange's
// barriers would be), and in blocks of a size known only when the kernel
// is launched (the slots are workgroup memory of a constant size).
func.func @shuffle_in_branch(%out: memref<32xf32>, %flag: i1) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error @below {{shuffles inside a branch, which emulation does not model}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    scf.if %flag {
      %one = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %v = arith.constant 1.0 : f32
      %shuffled, %valid = gpu.shuffle xor %v, %one, %width : f32
      memref.store %shuffled, %out[%tx] : memref<32xf32>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @shuffle_in_blocks_of_any_size(%out: memref<32xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{shuffles in blocks of a size that is not a constant, which emulation does not model}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %one = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %v = arith.constant 1.0 : f32
    %shuffled, %valid = gpu.shuffle xor %v, %one, %width : f32
    memref.store %shuffled, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
