// RUN: tad-opt %s --pass-pipeline="builtin.module(func.func(tad-hoist-deallocs))" | FileCheck %s

// CHECK-LABEL: func.func @straight_line
func.func @straight_line(%x: memref<4xf32>) -> memref<4xf32> {
  // CHECK: %[[A:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
  // CHECK-NEXT: %[[B:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %[[A]], %[[B]]
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: %[[C:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %[[B]], %[[C]]
  // CHECK-NEXT: memref.dealloc %[[B]]
  // CHECK-NEXT: return %[[C]]
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  memref.copy %b, %c : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %c : memref<4xf32>
}

// A use through a view, or nested in a region, keeps the buffer alive.
// CHECK-LABEL: func.func @views_and_regions
func.func @views_and_regions(%x: memref<2x2xf32>, %c: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<2x2xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %r = memref.alloc() : memref<4xf32>
  // CHECK: scf.if
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32>
  // CHECK: }
  // CHECK-NEXT: memref.dealloc %{{.*}} : memref<2x2xf32>
  scf.if %c {
    memref.copy %v, %r : memref<4xf32> to memref<4xf32>
  }
  %z = arith.constant 0 : index
  memref.dealloc %a : memref<2x2xf32>
  return %r : memref<4xf32>
}

// A conditional free moves as one, but not above its condition.
// CHECK-LABEL: func.func @conditional
func.func @conditional(%x: memref<4xf32>, %owned: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  // CHECK: %[[A:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
  // CHECK-NEXT: %[[B:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %[[A]], %[[B]]
  // CHECK-NEXT: scf.if %{{.*}} {
  // CHECK-NEXT: memref.dealloc %[[A]]
  %c = memref.alloc() : memref<4xf32>
  memref.copy %b, %c : memref<4xf32> to memref<4xf32>
  scf.if %owned {
    memref.dealloc %a : memref<4xf32>
  }
  memref.dealloc %b : memref<4xf32>
  return %c : memref<4xf32>
}

// A branch that computes and yields is an ordinary block: its frees move
// within it, as in a function body.
// CHECK-LABEL: func.func @in_branch
func.func @in_branch(%x: memref<4xf32>, %c: i1) -> memref<4xf32> {
  // CHECK: scf.if
  // CHECK-NEXT: %[[A:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
  // CHECK-NEXT: %[[B:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %[[A]], %[[B]]
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: %[[C:.*]] = memref.alloc
  // CHECK-NEXT: memref.copy %[[B]], %[[C]]
  // CHECK-NEXT: memref.dealloc %[[C]]
  // CHECK-NEXT: scf.yield %[[B]]
  %r = scf.if %c -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    memref.copy %x, %a : memref<4xf32> to memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    %c2 = memref.alloc() : memref<4xf32>
    memref.copy %b, %c2 : memref<4xf32> to memref<4xf32>
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %c2 : memref<4xf32>
    scf.yield %b : memref<4xf32>
  } else {
    scf.yield %x : memref<4xf32>
  }
  return %r : memref<4xf32>
}
