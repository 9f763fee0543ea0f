// RUN: tad-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tad-loops-to-gpu))" | FileCheck %s

// A parallel loop becomes a grid of 256-thread blocks over its row-major
// iterations; threads past the end do nothing, and an empty loop launches
// nothing. (Rows of 99: not a multiple of 4, so one iteration a thread.)
// CHECK-LABEL: func.func @parallel
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C99:.*]] = arith.constant 99 : index
// CHECK:         %[[T0:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %[[T0]] : index
// CHECK:         %[[T1:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[N:.*]] = arith.muli %[[N0]], %[[T1]] : index
// CHECK:         %[[GRID:.*]] = arith.ceildivsi %[[N]], %{{.*}} : index
// CHECK:         %[[ANY:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : index
// CHECK:         scf.if %[[ANY]] {
// CHECK:           gpu.launch blocks(%[[BX:[^,]+]], %{{[^,]+}}, %{{[^)]+}}) in (%{{[^ ]+}} = %[[GRID]], {{.*}} threads(%[[TX:[^,]+]], %{{[^,]+}}, %{{[^)]+}}) in (%[[BS:[^ ]+]] = %{{[^,]+}},
// CHECK:             %[[B:.*]] = arith.muli %[[BX]], %[[BS]] : index
// CHECK:             %[[ID:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK:             %[[IN:.*]] = arith.cmpi slt, %[[ID]], %[[N]] : index
// CHECK:             scf.if %[[IN]] {
// CHECK:               %[[J:.*]] = arith.remsi %[[ID]], %[[T1]] : index
// CHECK:               %[[I:.*]] = arith.divsi %[[ID]], %[[T1]] : index
// CHECK:               %[[JS:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK:               %[[JV:.*]] = arith.addi %{{.*}}, %[[JS]] : index
// CHECK:               %[[IS:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK:               %[[IV:.*]] = arith.addi %{{.*}}, %[[IS]] : index
// CHECK:               memref.load %{{.*}}[%[[IV]], %[[JV]]]
// CHECK:               memref.store
// CHECK:             gpu.terminator
// CHECK-NOT:     scf.parallel
func.func @parallel(%a: memref<3x99xf32>, %b: memref<3x99xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c99 = arith.constant 99 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c99) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<3x99xf32>
    %e = math.exp %v : f32
    memref.store %e, %b[%i, %j] : memref<3x99xf32>
    scf.reduce
  }
  return
}

// -----

// An elementwise loop whose rows are a multiple of 4 f32 elements long:
// a thread runs 4 neighbouring iterations of a row, op by op, so that the
// 4 loads of a buffer and the 4 stores are next to each other (LLVM makes
// each one vector access). The group's column is 4 times its group's (a
// multiplication); an access at the iteration's own indices to a buffer
// of the loop's shape goes through a 1-D view at the linear index 4 id +
// k. A broadcast's load does not use the column and does not count. f64
// rows go by 2; a loop with a region, an access whose last index is not
// the column, or rows of another length go one by one.
// CHECK-LABEL: func.func @vector_groups
// CHECK:         %[[GROUPS:.*]] = arith.divsi %{{.*}}, %c4
// CHECK:         gpu.launch
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[ID:.*]], %[[GROUPS]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[ROW_GROUPS:.*]] = arith.divsi %{{.*}}, %c4
// CHECK-NEXT:        %[[G:.*]] = arith.remsi %[[ID]], %[[ROW_GROUPS]]
// CHECK-NEXT:        %[[R:.*]] = arith.divsi %[[ID]], %[[ROW_GROUPS]]
// CHECK:             %[[J:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK-NEXT:        arith.muli %[[R]], %c1
// CHECK-NEXT:        %[[I:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK-NEXT:        %[[C0:.*]] = arith.muli %[[J]], %c4 overflow<nsw, nuw>
// CHECK-NEXT:        %[[L0:.*]] = arith.muli %[[ID]], %c4 overflow<nsw, nuw>
// CHECK:             %[[L1:.*]] = arith.addi %[[L0]], %{{.*}} overflow<nsw, nuw>
// CHECK:             %[[L2:.*]] = arith.addi %[[L0]], %{{.*}} overflow<nsw, nuw>
// CHECK:             %[[L3:.*]] = arith.addi %[[L0]], %{{.*}} overflow<nsw, nuw>
// CHECK-NEXT:        %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1]] : memref<8x64xf32> into memref<512xf32>
// CHECK-NEXT:        memref.load %[[X]][%[[L0]]]
// CHECK-NEXT:        memref.load %[[X]][%[[L1]]]
// CHECK-NEXT:        memref.load %[[X]][%[[L2]]]
// CHECK-NEXT:        memref.load %[[X]][%[[L3]]]
// CHECK-COUNT-4:     memref.load %arg1[%[[I]]]
// CHECK-COUNT-4:     arith.mulf
// CHECK-NEXT:        %[[Y:.*]] = memref.collapse_shape %arg2
// CHECK-NEXT:        memref.store %{{.*}}, %[[Y]][%[[L0]]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[Y]][%[[L1]]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[Y]][%[[L2]]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[Y]][%[[L3]]]
// CHECK:         arith.divsi %{{.*}}, %c2
// CHECK:         memref.load %[[D:.*]][%{{.*}}] : memref<60xf64>
// CHECK-NEXT:    memref.load %[[D]]
// CHECK-NOT:     arith.divsi %{{.*}}, %c{{[24]}}{{(_[0-9]+)?}} :
// CHECK:         return
func.func @vector_groups(%x: memref<8x64xf32>, %scale: memref<8xf32>, %y: memref<8x64xf32>,
                         %d: memref<6x10xf64>, %e: memref<6x10xf64>, %t: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x64xf32>
    %s = memref.load %scale[%i] : memref<8xf32>
    %p = arith.mulf %v, %s : f32
    memref.store %p, %y[%i, %j] : memref<8x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %v = memref.load %d[%i, %j] : memref<6x10xf64>
    memref.store %v, %e[%i, %j] : memref<6x10xf64>
    scf.reduce
  }
  // The column is the transpose's first index: one by one.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x64xf32>
    memref.store %v, %t[%j, %i] : memref<64x8xf32>
    scf.reduce
  }
  // A region in the body: one by one.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x64xf32>
      memref.store %v, %y[%i, %j] : memref<8x64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A loop nest without a parallel loop (a full reduction) runs on one
// thread; allocation and deallocation stay on the host, and a host loop
// that allocates keeps its kernels inside.
// CHECK-LABEL: func.func @host_and_device
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc
// CHECK:           gpu.launch
// CHECK:             scf.for
// CHECK:               memref.load
// CHECK:             gpu.terminator
// CHECK:           memref.dealloc
func.func @host_and_device(%a: memref<8xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %t = memref.alloc() : memref<f32>
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i] : memref<8xf32>
      %s = memref.load %t[] : memref<f32>
      %r = arith.addf %v, %s : f32
      memref.store %r, %t[] : memref<f32>
    }
    memref.copy %t, %out : memref<f32> to memref<f32>
    memref.dealloc %t : memref<f32>
  }
  return
}

// -----

// A kernel reads constant globals from its own copy: the global and the
// views of it are cloned into the launch (outlining then copies the global
// into the GPU module); a host buffer stays a kernel argument.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
// CHECK-LABEL: func.func @globals
// CHECK:         gpu.launch
// CHECK-DAG:       %[[G:.*]] = memref.get_global @table
// CHECK-DAG:       memref.subview %[[G]]
// CHECK:         gpu.terminator
func.func @globals(%b: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %g = memref.get_global @table : memref<4xf32>
  %s = memref.subview %g[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %s[%i] : memref<2xf32, strided<[1], offset: 2>>
    memref.store %v, %b[%i] : memref<2xf32>
    scf.reduce
  }
  return
}

// -----

// A copy runs on the device, one thread per element (on the host, managed
// memory would move to the host and back); a view's strides are the
// loads' own. A copy from a stack buffer stays on the host.
// CHECK-LABEL: func.func @copies
// CHECK:         gpu.launch
// CHECK:           %[[V:.*]] = memref.load %{{.*}} : memref<4x3xf32, strided<[8, 1], offset: 2>>
// CHECK:           memref.store %[[V]], %{{.*}} : memref<4x3xf32>
// CHECK:         gpu.terminator
// CHECK:         gpu.launch
// CHECK:           memref.load %{{.*}}[] : memref<f32>
// CHECK:         gpu.terminator
// CHECK:         memref.alloca
// CHECK-NEXT:    memref.copy
// CHECK-NOT:     gpu.launch
func.func @copies(%a: memref<4x8xf32>, %b: memref<4x3xf32>, %s: memref<f32>, %t: memref<f32>) {
  %v = memref.subview %a[0, 2] [4, 3] [1, 1] : memref<4x8xf32> to memref<4x3xf32, strided<[8, 1], offset: 2>>
  memref.copy %v, %b : memref<4x3xf32, strided<[8, 1], offset: 2>> to memref<4x3xf32>
  memref.copy %s, %t : memref<f32> to memref<f32>
  %stack = memref.alloca() : memref<f32>
  memref.copy %stack, %t : memref<f32> to memref<f32>
  return
}

// -----

// The lanes of a split row sum, then the sum of each row's lanes: one
// kernel. Thread `id` runs lane iteration `id`; after a barrier (a row's 8
// lanes are in one block of 256), the first thread of each row adds its
// row's lanes, as the second loop did.
// CHECK-LABEL: func.func @lanes_then_rows
// CHECK:         gpu.launch
// CHECK:           %[[ID:.*]] = arith.addi
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[ID]]
// CHECK:           scf.if %[[IN]] {
// CHECK:             scf.for
// CHECK:               memref.store {{.*}} : memref<64x8xf64>
// CHECK:           gpu.barrier
// CHECK:           %[[LANE:.*]] = arith.remsi %[[ID]], %[[C8:.*]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]]
// CHECK-NEXT:      %[[BOTH:.*]] = arith.andi %[[IN]], %[[FIRST]]
// CHECK-NEXT:      scf.if %[[BOTH]] {
// CHECK-NEXT:        %[[ROW:.*]] = arith.divsi %[[ID]], %[[C8]]
// CHECK:             scf.for
// CHECK:               memref.load {{.*}} : memref<64x8xf64>
// CHECK:           gpu.terminator
// CHECK-NOT:     gpu.launch
// CHECK:         return %
func.func @lanes_then_rows(%x: memref<64x32x8xf32>) -> memref<64xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %out = memref.alloc() : memref<64xf64>
  %lanes = memref.alloc() : memref<64x8xf64>
  scf.parallel (%r, %l) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    memref.store %zero, %lanes[%r, %l] : memref<64x8xf64>
    scf.for %k = %c0 to %c32 step %c1 {
      %v = memref.load %x[%r, %k, %l] : memref<64x32x8xf32>
      %a = memref.load %lanes[%r, %l] : memref<64x8xf64>
      %w = arith.extf %v : f32 to f64
      %s = arith.addf %w, %a : f64
      memref.store %s, %lanes[%r, %l] : memref<64x8xf64>
    }
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
    memref.store %zero, %out[%r] : memref<64xf64>
    scf.for %l = %c0 to %c8 step %c1 {
      %v = memref.load %lanes[%r, %l] : memref<64x8xf64>
      %a = memref.load %out[%r] : memref<64xf64>
      %s = arith.addf %v, %a : f64
      memref.store %s, %out[%r] : memref<64xf64>
    }
    scf.reduce
  }
  memref.dealloc %lanes : memref<64x8xf64>
  return %out : memref<64xf64>
}

// -----

// Not when the second loop reads another row's lanes (its thread may be
// in another block), nor when it writes what the first reads (or may, as
// an argument may be another's memory): two kernels.
// CHECK-LABEL: func.func @other_rows
// CHECK:         gpu.launch
// CHECK-NOT:       gpu.barrier
// CHECK:         gpu.launch
// CHECK-NOT:       gpu.barrier
// CHECK-LABEL: func.func @writes_input
// CHECK:         gpu.launch
// CHECK-NOT:       gpu.barrier
// CHECK:         gpu.launch
func.func @other_rows(%lanes: memref<64x8xf64>, %out: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  scf.parallel (%r, %l) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    memref.store %zero, %lanes[%r, %l] : memref<64x8xf64>
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %lanes[%c63, %c0] : memref<64x8xf64>
    memref.store %v, %out[%r] : memref<64xf64>
    scf.reduce
  }
  return
}
func.func @writes_input(%x: memref<64x8xf64>, %lanes: memref<64x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  scf.parallel (%r, %l) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    %v = memref.load %x[%r, %l] : memref<64x8xf64>
    memref.store %v, %lanes[%r, %l] : memref<64x8xf64>
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
    memref.store %zero, %x[%r, %c0] : memref<64x8xf64>
    scf.reduce
  }
  return
}
