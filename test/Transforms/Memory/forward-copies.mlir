// RUN: tad-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tad-forward-copies))" | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two values of one loop step stored in one tape row, each read after the
// other's store (as AutoDiff/ResidualTapes.cpp makes them): both are
// written straight into their slices of the row, which do not meet
// (offsets 0 and 2 of size 2 in the second dimension), and neither copy
// nor buffer is left.
// CHECK-LABEL: func.func @two_in_a_row
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[T:.*]] = %{{.*}})
// CHECK: %[[S0:.*]] = memref.subview %[[T]][%[[I]], 0, 0] [1, 2, 4]
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[S0]]
// CHECK: %[[S1:.*]] = memref.subview %[[T]][%[[I]], 2, 0] [1, 2, 4]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[S0]] {{.*}} outs(%[[S1]]
// CHECK: linalg.generic {{.*}} ins(%[[S0]], %[[S1]] {{.*}} outs(%{{.*}} : memref<2x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: scf.yield
func.func @two_in_a_row(%x: memref<2x4xf32>, %tape: memref<3x4x4xf32>, %out: memref<2x4xf32>) -> memref<3x4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %tape) -> (memref<3x4x4xf32>) {
    %a = memref.alloc() : memref<2x4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    %s0 = memref.subview %t[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    memref.copy %a, %s0 : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    %b = memref.alloc() : memref<2x4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<2x4xf32>) outs(%b : memref<2x4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %e = math.tanh %in : f32
      linalg.yield %e : f32
    }
    %s1 = memref.subview %t[%i, 2, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    memref.copy %b, %s1 : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<2x4xf32>, memref<2x4xf32>) outs(%out : memref<2x4xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %m = arith.mulf %p, %q : f32
      linalg.yield %m : f32
    }
    scf.yield %t : memref<3x4x4xf32>
  }
  return %r : memref<3x4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A value computed as a reshape of another buffer's shape: the slice is
// viewed in that shape (the reshape undone), and the reshape of it that
// the copy read goes.
// CHECK-LABEL: func.func @reshaped
// CHECK-NOT: memref.alloc
// CHECK: %[[S:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [1, 8] [1, 1]
// CHECK-NEXT: %[[V:.*]] = memref.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [2, 4]
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[V]] : memref<2x4xf32, strided<[4, 1], offset: ?>>)
// CHECK-NOT: memref.copy
func.func @reshaped(%x: memref<2x4xf32>, %tape: memref<3x8xf32>, %i: index) {
  %a = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %s = memref.subview %tape[%i, 0] [1, 8] [1, 1] : memref<3x8xf32> to memref<8xf32, strided<[1], offset: ?>>
  memref.copy %flat, %s : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Kept: the other value's slice may meet this one's (its offset is not
// static), so writing it early could overwrite what that one reads.
// CHECK-LABEL: func.func @may_meet
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @may_meet(%x: memref<2x4xf32>, %tape: memref<3x4x4xf32>, %i: index, %j: index) {
  %a = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %other = memref.subview %tape[%i, %j, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%other : memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%x : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %s = memref.subview %tape[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %a, %s : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Kept: the buffer is written after the copy, which the slice must not see.
// CHECK-LABEL: func.func @written_after
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @written_after(%x: memref<2x4xf32>, %tape: memref<3x4x4xf32>, %i: index) {
  %a = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %s = memref.subview %tape[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %a, %s : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Kept: the slice's old contents are read before the copy, and a call
// takes the buffer (a use that may need its own layout).
// CHECK-LABEL: func.func @read_before
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-LABEL: func.func @called
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @read_before(%x: memref<2x4xf32>, %tape: memref<3x4x4xf32>, %i: index) {
  %a = memref.alloc() : memref<2x4xf32>
  %s = memref.subview %tape[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  memref.copy %a, %s : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  return
}
func.func private @sink(memref<2x4xf32>)
func.func @called(%x: memref<2x4xf32>, %tape: memref<3x4x4xf32>, %i: index) {
  %a = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %s = memref.subview %tape[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %a, %s : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  func.call @sink(%a) : (memref<2x4xf32>) -> ()
  return
}
