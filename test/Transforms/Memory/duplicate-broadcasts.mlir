// RUN: tad-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tad-duplicate-broadcasts))" | FileCheck %s

// Each elementwise reader of a broadcast gets a copy of it, with the
// elementwise ops that compute its input for it alone (the reciprocal
// deviation from the variance); the first reader keeps the original, and
// the variance, read by every copy, is computed once.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[V:.*]] = tad.reduce_mean
// CHECK-NEXT:    %[[E:.*]] = tad.add %[[V]]
// CHECK-NEXT:    %[[R:.*]] = tad.rsqrt %[[E]]
// CHECK-NEXT:    %[[B:.*]] = tad.broadcast %[[R]]
// CHECK-NEXT:    %[[Y:.*]] = tad.mul %arg0, %[[B]]
// CHECK-NEXT:    %[[E2:.*]] = tad.add %[[V]]
// CHECK-NEXT:    %[[R2:.*]] = tad.rsqrt %[[E2]]
// CHECK-NEXT:    %[[B2:.*]] = tad.broadcast %[[R2]]
// CHECK-NEXT:    %[[Z:.*]] = tad.mul %arg1, %[[B2]]
// CHECK-NEXT:    %[[E3:.*]] = tad.add %[[V]]
// CHECK-NEXT:    %[[R3:.*]] = tad.rsqrt %[[E3]]
// CHECK-NEXT:    %[[B3:.*]] = tad.broadcast %[[R3]]
// CHECK-NEXT:    %[[S:.*]] = tad.reduce_sum %[[B3]]
// CHECK-NEXT:    return %[[Y]], %[[Z]], %[[S]]
func.func @rows(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %eps = tad.constant dense<1.0e-05> : tensor<4x1xf32>
  %v = tad.reduce_mean %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %e = tad.add %v, %eps : tensor<4x1xf32>
  %r = tad.rsqrt %e : tensor<4x1xf32>
  %b = tad.broadcast %r dims [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  %y = tad.mul %x, %b : tensor<4x8xf32>
  %z = tad.mul %g, %b : tensor<4x8xf32>
  %s = tad.reduce_sum %b axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %y, %z, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A reader that does not fuse producers (a matmul, the return) shares the
// original; a reader of the broadcast twice takes one copy.
// CHECK-LABEL: func.func @shared
// CHECK:         %[[B:.*]] = tad.broadcast %arg0
// CHECK-NEXT:    %[[M:.*]] = tad.matmul %[[B]], %arg1
// CHECK-NEXT:    %[[B2:.*]] = tad.broadcast %arg0
// CHECK-NEXT:    %[[Y:.*]] = tad.mul %[[B2]], %[[B2]]
// CHECK-NEXT:    return %[[M]], %[[Y]], %[[B]]
func.func @shared(%a: tensor<4xf32>, %w: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %b = tad.broadcast %a dims [1] : tensor<4xf32> -> tensor<4x4xf32>
  %m = tad.matmul %b, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %y = tad.mul %b, %b : tensor<4x4xf32>
  return %m, %y, %b : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A broadcast of a view stays one: its copies would keep the viewed
// buffer alive until the last reader.
// CHECK-LABEL: func.func @view
// CHECK-COUNT-1: tad.broadcast
// CHECK-NOT:     tad.broadcast
func.func @view(%x: tensor<4x4xf32>, %a: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %row = tad.reshape %a : tensor<4xf32> -> tensor<1x4xf32>
  %b = tad.broadcast %row dims [0, 1] : tensor<1x4xf32> -> tensor<4x4xf32>
  %y = tad.mul %x, %b : tensor<4x4xf32>
  %z = tad.add %x, %b : tensor<4x4xf32>
  return %y, %z : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A reader in another block (a loop's body) shares the original; the
// reader beside the broadcast takes a copy.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[C:.*]] = tad.broadcast %arg1
// CHECK:         scf.for
// CHECK-NEXT:      tad.mul %{{.*}}, %[[C]]
// CHECK:         %[[C2:.*]] = tad.broadcast %arg1
// CHECK-NEXT:    tad.mul %{{.*}}, %[[C2]]
func.func @loop(%x: tensor<4x4xf32>, %a: tensor<4xf32>) -> tensor<4x4xf32> {
  %c = tad.broadcast %a dims [1] : tensor<4xf32> -> tensor<4x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
    %n = tad.mul %acc, %c : tensor<4x4xf32>
    scf.yield %n : tensor<4x4xf32>
  }
  %w = tad.mul %l, %c : tensor<4x4xf32>
  return %w : tensor<4x4xf32>
}
