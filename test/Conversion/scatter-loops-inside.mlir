// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-scatter-loops-inside{owner-threads=0}))' | FileCheck %s
// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-scatter-loops-inside))' | FileCheck %s --check-prefix=OWNER
// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-scatter-loops-inside{owner-threads=39}))' | FileCheck %s --check-prefix=SMALL

// (With owner-threads=0, each element's thread runs the loop, as below; by
// default, where the table's rows times the slice's elements are at most
// owner-threads, each row's owner does: OWNER below. At 39, less than the
// 10 rows times the 4 elements, the element's thread does again.)

// An embedding's gradient as tad.scatter_add lowers it, bufferized: a loop
// over the 6 ids, each adding a row of 4 updates into the table's row at
// its id. The row's 4 elements become the outer (parallel) loop, and each
// adds the 6 updates in the order of the ids: the loop moved inside.
// CHECK-LABEL: func.func @embedding
// CHECK:         scf.parallel (%[[E0:.*]], %[[E1:.*]]) = (%c0, %c0) to (%c1, %c4) step (%c1, %c1) {
// CHECK-NEXT:      scf.for %[[J:.*]] = %c0 to %c6 step %c1 {
// CHECK-NEXT:        %[[ID:.*]] = memref.load %arg0[%[[J]]]
// CHECK-NEXT:        arith.index_cast %[[ID]]
// CHECK-NEXT:        arith.maxsi
// CHECK-NEXT:        %[[ROW:.*]] = arith.minsi
// CHECK-NEXT:        %[[U:.*]] = memref.subview %arg1[0, %[[J]], 0] [1, 1, 4]
// CHECK-NEXT:        %[[T:.*]] = memref.subview %[[TABLE:.*]][0, %[[ROW]], 0] [1, 1, 4]
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[U]][%[[E0]], %[[E1]]]
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[T]][%[[E0]], %[[E1]]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[B]], %[[A]] : f32
// CHECK-NEXT:        memref.store %[[S]], %[[T]][%[[E0]], %[[E1]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[TABLE:.*]] :
//
// The owner computes: a thread per row of the table's 10 and element of
// the row's 4, each running the whole loop over the ids and adding the
// updates of the ids that pick its row, in their order.
// OWNER-LABEL: func.func @embedding
// OWNER:         scf.parallel (%[[R:.*]], %[[E0:.*]], %[[E1:.*]]) = (%{{.*}}, %c0, %c0) to (%c10, %c1, %c4)
// OWNER-NEXT:      scf.for %[[J:.*]] = %c0 to %c6 step %c1 {
// OWNER-NEXT:        %[[ID:.*]] = memref.load %arg0[%[[J]]]
// OWNER-NEXT:        arith.index_cast %[[ID]]
// OWNER-NEXT:        arith.maxsi
// OWNER-NEXT:        %[[ROW:.*]] = arith.minsi
// OWNER-NEXT:        %[[U:.*]] = memref.subview %arg1[0, %[[J]], 0] [1, 1, 4]
// OWNER-NEXT:        %[[T:.*]] = memref.subview %[[TABLE:.*]][0, %[[ROW]], 0] [1, 1, 4]
// OWNER-NEXT:        %[[MINE:.*]] = arith.cmpi eq, %[[ROW]], %[[R]] : index
// OWNER-NEXT:        scf.if %[[MINE]] {
// OWNER-NEXT:          %[[A:.*]] = memref.load %[[U]][%[[E0]], %[[E1]]]
// OWNER-NEXT:          %[[B:.*]] = memref.load %[[T]][%[[E0]], %[[E1]]]
// OWNER-NEXT:          %[[S:.*]] = arith.addf %[[B]], %[[A]] : f32
// OWNER-NEXT:          memref.store %[[S]], %[[T]][%[[E0]], %[[E1]]]
// OWNER-NEXT:        }
// OWNER-NEXT:      }
// OWNER-NEXT:      scf.reduce
// OWNER-NEXT:    }
// SMALL-LABEL: func.func @embedding
// SMALL:         scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c1, %c4)
// SMALL-NEXT:      scf.for
func.func @embedding(%ids: memref<6xi32>, %updates: memref<1x6x4xf32>) -> memref<1x10x4xf32> {
  %table = memref.alloc() : memref<1x10x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  scf.for %j = %c0 to %c6 step %c1 {
    %id = memref.load %ids[%j] : memref<6xi32>
    %i = arith.index_cast %id : i32 to index
    %lo = arith.maxsi %i, %c0 : index
    %row = arith.minsi %lo, %c9 : index
    %u = memref.subview %updates[0, %j, 0] [1, 1, 4] [1, 1, 1] : memref<1x6x4xf32> to memref<1x4xf32, strided<[24, 1], offset: ?>>
    %t = memref.subview %table[0, %row, 0] [1, 1, 4] [1, 1, 1] : memref<1x10x4xf32> to memref<1x4xf32, strided<[40, 1], offset: ?>>
    scf.parallel (%p, %s) = (%c0, %c0) to (%c1, %c4) step (%c1, %c1) {
      %a = memref.load %u[%p, %s] : memref<1x4xf32, strided<[24, 1], offset: ?>>
      %b = memref.load %t[%p, %s] : memref<1x4xf32, strided<[40, 1], offset: ?>>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %t[%p, %s] : memref<1x4xf32, strided<[40, 1], offset: ?>>
      scf.reduce
    }
  } {tad.scatter_loop}
  return %table : memref<1x10x4xf32>
}

// -----

// With unique indices (a cross-entropy's one label per row: every element
// gets one update at most), the indices are parallel too: one thread per
// index and element.
// CHECK-LABEL: func.func @unique
// CHECK:         scf.parallel (%[[J:.*]], %[[E0:.*]], %[[E1:.*]]) = (%c0, %c0, %c0) to (%c6, %c1, %c4) step (%c1, %c1, %c1) {
// CHECK-NEXT:      %[[ID:.*]] = memref.load %arg0[%[[J]]]
// CHECK-NOT:       scf.for
// CHECK:           memref.store
// CHECK-NEXT:      scf.reduce
func.func @unique(%ids: memref<6xi32>, %updates: memref<1x6x4xf32>) -> memref<1x10x4xf32> {
  %table = memref.alloc() : memref<1x10x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  scf.for %j = %c0 to %c6 step %c1 {
    %id = memref.load %ids[%j] : memref<6xi32>
    %i = arith.index_cast %id : i32 to index
    %lo = arith.maxsi %i, %c0 : index
    %row = arith.minsi %lo, %c9 : index
    %u = memref.subview %updates[0, %j, 0] [1, 1, 4] [1, 1, 1] : memref<1x6x4xf32> to memref<1x4xf32, strided<[24, 1], offset: ?>>
    %t = memref.subview %table[0, %row, 0] [1, 1, 4] [1, 1, 1] : memref<1x10x4xf32> to memref<1x4xf32, strided<[40, 1], offset: ?>>
    scf.parallel (%p, %s) = (%c0, %c0) to (%c1, %c4) step (%c1, %c1) {
      %a = memref.load %u[%p, %s] : memref<1x4xf32, strided<[24, 1], offset: ?>>
      %b = memref.load %t[%p, %s] : memref<1x4xf32, strided<[40, 1], offset: ?>>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %t[%p, %s] : memref<1x4xf32, strided<[40, 1], offset: ?>>
      scf.reduce
    }
  } {tad.scatter_loop, tad.scatter_loop_unique}
  return %table : memref<1x10x4xf32>
}

// -----

// Without the mark, a loop around a launch stays: nothing says that its
// slices' elements are independent.
// CHECK-LABEL: func.func @unmarked
// CHECK:         scf.for
// CHECK:           scf.parallel
func.func @unmarked(%x: memref<6x4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  scf.for %j = %c0 to %c6 step %c1 {
    scf.parallel (%s) = (%c0) to (%c4) step (%c1) {
      %a = memref.load %x[%j, %s] : memref<6x4xf32>
      %b = memref.load %y[%s] : memref<4xf32>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %y[%s] : memref<4xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A write before the slice's addition (every thread would repeat it), and
// a slice whose bounds the loop computes, keep their loops.
// CHECK-LABEL: func.func @not_a_scatter
// CHECK:         scf.for
// CHECK:           memref.store
// CHECK:           scf.parallel
// CHECK:         scf.for
// CHECK:           arith.addi
// CHECK:           scf.parallel
func.func @not_a_scatter(%x: memref<6x4xf32>, %y: memref<4xf32>, %n: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c6 step %c1 {
    memref.store %zero, %n[%j] : memref<6xf32>
    scf.parallel (%s) = (%c0) to (%c4) step (%c1) {
      %a = memref.load %x[%j, %s] : memref<6x4xf32>
      memref.store %a, %y[%s] : memref<4xf32>
      scf.reduce
    }
  } {tad.scatter_loop}
  scf.for %j = %c0 to %c4 step %c1 {
    %end = arith.addi %j, %c1 : index
    scf.parallel (%s) = (%c0) to (%end) step (%c1) {
      %a = memref.load %x[%j, %s] : memref<6x4xf32>
      memref.store %a, %y[%s] : memref<4xf32>
      scf.reduce
    }
  } {tad.scatter_loop}
  return
}

// -----

// Marked, but a thread would read what others write: the slice reads its
// neighbour's element of the table, or the loop reads the table before
// the slice (the updates may be the table itself, an argument like it).
// The loops stay as they are.
// CHECK-LABEL: func.func @shared_elements
// CHECK:         scf.for
// CHECK:           scf.parallel
// CHECK:         scf.for
// CHECK:           memref.load %[[TABLE:.*]][%c0]
// CHECK:           scf.parallel
// CHECK:         scf.for
// CHECK:           scf.parallel
func.func @shared_elements(%updates: memref<6x4xf32>, %table: memref<8xf32>, %other: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %own = memref.alloc() : memref<8xf32>
  scf.for %j = %c0 to %c6 step %c1 {
    scf.parallel (%s) = (%c0) to (%c4) step (%c1) {
      %next = arith.addi %s, %c1 : index
      %a = memref.load %own[%next] : memref<8xf32>
      %b = memref.load %own[%s] : memref<8xf32>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %own[%s] : memref<8xf32>
      scf.reduce
    }
  } {tad.scatter_loop}
  scf.for %j = %c0 to %c6 step %c1 {
    %first = memref.load %own[%c0] : memref<8xf32>
    scf.parallel (%s) = (%c0) to (%c4) step (%c1) {
      %b = memref.load %own[%s] : memref<8xf32>
      %sum = arith.addf %b, %first : f32
      memref.store %sum, %own[%s] : memref<8xf32>
      scf.reduce
    }
  } {tad.scatter_loop}
  scf.for %j = %c0 to %c6 step %c1 {
    scf.parallel (%s) = (%c0) to (%c4) step (%c1) {
      %a = memref.load %other[%s] : memref<8xf32>
      %b = memref.load %table[%s] : memref<8xf32>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %table[%s] : memref<8xf32>
      scf.reduce
    }
  } {tad.scatter_loop}
  memref.dealloc %own : memref<8xf32>
  return
}

// -----

// A slice whose row's view also moves along another dimension with the
// index (a column offset that the loop computes): one element's thread
// would write another's place in another iteration, with or without
// owners, so the loop stays as it is.
// CHECK-LABEL: func.func @moving_columns
// CHECK:         scf.for
// CHECK:           scf.parallel
// OWNER-LABEL: func.func @moving_columns
// OWNER:         scf.for
// OWNER:           scf.parallel
// OWNER-NOT:       arith.cmpi
func.func @moving_columns(%ids: memref<6xi32>, %updates: memref<1x6x4xf32>) -> memref<1x10x8xf32> {
  %table = memref.alloc() : memref<1x10x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  scf.for %j = %c0 to %c6 step %c1 {
    %id = memref.load %ids[%j] : memref<6xi32>
    %i = arith.index_cast %id : i32 to index
    %lo = arith.maxsi %i, %c0 : index
    %row = arith.minsi %lo, %c9 : index
    %col = arith.remui %j, %c4 : index
    %u = memref.subview %updates[0, %j, 0] [1, 1, 4] [1, 1, 1] : memref<1x6x4xf32> to memref<1x4xf32, strided<[24, 1], offset: ?>>
    %t = memref.subview %table[0, %row, %col] [1, 1, 4] [1, 1, 1] : memref<1x10x8xf32> to memref<1x4xf32, strided<[80, 1], offset: ?>>
    scf.parallel (%p, %s) = (%c0, %c0) to (%c1, %c4) step (%c1, %c1) {
      %a = memref.load %u[%p, %s] : memref<1x4xf32, strided<[24, 1], offset: ?>>
      %b = memref.load %t[%p, %s] : memref<1x4xf32, strided<[80, 1], offset: ?>>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %t[%p, %s] : memref<1x4xf32, strided<[80, 1], offset: ?>>
      scf.reduce
    }
  } {tad.scatter_loop}
  return %table : memref<1x10x8xf32>
}
