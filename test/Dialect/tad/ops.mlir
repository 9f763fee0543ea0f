// Every tad op prints in its custom form and parses back to the same IR,
// in the custom form and in the generic form.
// RUN: tad-opt %s | tad-opt | FileCheck %s
// RUN: tad-opt %s --mlir-print-op-generic | tad-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<f64>, tensor<3xf16>, tensor<2x2xbf16>) {
  // CHECK: tad.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tad.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: tad.constant dense<5.000000e-01> : tensor<f64>
  %1 = tad.constant dense<0.5> : tensor<f64>
  // CHECK: tad.constant dense<{{.*}}> : tensor<3xf16>
  %2 = tad.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf16>
  // CHECK: tad.constant dense<{{.*}}> : tensor<2x2xbf16>
  %3 = tad.constant dense<1.0> : tensor<2x2xbf16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<f64>, tensor<3xf16>, tensor<2x2xbf16>
}

// CHECK-LABEL: func.func @empty
func.func @empty() -> tensor<4x2xf32> {
  // CHECK: tad.empty : tensor<4x2xf32>
  %0 = tad.empty : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[A:.*]] = tad.add %[[X]], %[[Y]] : tensor<4x8xf32>
  %a = tad.add %x, %y : tensor<4x8xf32>
  // CHECK: %[[S:.*]] = tad.sub %[[A]], %[[Y]] : tensor<4x8xf32>
  %s = tad.sub %a, %y : tensor<4x8xf32>
  // CHECK: %[[M:.*]] = tad.mul %[[S]], %[[X]] : tensor<4x8xf32>
  %m = tad.mul %s, %x : tensor<4x8xf32>
  // CHECK: %[[D:.*]] = tad.div %[[M]], %[[Y]] : tensor<4x8xf32>
  %d = tad.div %m, %y : tensor<4x8xf32>
  // CHECK: %[[P:.*]] = tad.pow %[[D]], %[[X]] : tensor<4x8xf32>
  %p = tad.pow %d, %x : tensor<4x8xf32>
  // CHECK: %[[MX:.*]] = tad.max %[[P]], %[[Y]] : tensor<4x8xf32>
  %mx = tad.max %p, %y : tensor<4x8xf32>
  // CHECK: %[[MN:.*]] = tad.min %[[MX]], %[[X]] : tensor<4x8xf32>
  %mn = tad.min %mx, %x : tensor<4x8xf32>
  // CHECK: return %[[MN]]
  return %mn : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: tad.neg %{{.*}} : tensor<3xf64>
  %0 = tad.neg %x : tensor<3xf64>
  // CHECK: tad.abs %{{.*}} : tensor<3xf64>
  %1 = tad.abs %0 : tensor<3xf64>
  // CHECK: tad.exp %{{.*}} : tensor<3xf64>
  %2 = tad.exp %1 : tensor<3xf64>
  // CHECK: tad.log %{{.*}} : tensor<3xf64>
  %3 = tad.log %2 : tensor<3xf64>
  // CHECK: tad.tanh %{{.*}} : tensor<3xf64>
  %4 = tad.tanh %3 : tensor<3xf64>
  // CHECK: tad.sigmoid %{{.*}} : tensor<3xf64>
  %5 = tad.sigmoid %4 : tensor<3xf64>
  // CHECK: tad.relu %{{.*}} : tensor<3xf64>
  %6 = tad.relu %5 : tensor<3xf64>
  // CHECK: tad.sqrt %{{.*}} : tensor<3xf64>
  %7 = tad.sqrt %6 : tensor<3xf64>
  // CHECK: tad.rsqrt %{{.*}} : tensor<3xf64>
  %8 = tad.rsqrt %7 : tensor<3xf64>
  // CHECK: tad.log1p %{{.*}} : tensor<3xf64>
  %9 = tad.log1p %8 : tensor<3xf64>
  // CHECK: tad.expm1 %{{.*}} : tensor<3xf64>
  %10 = tad.expm1 %9 : tensor<3xf64>
  // CHECK: tad.softplus %{{.*}} : tensor<3xf64>
  %11 = tad.softplus %10 : tensor<3xf64>
  // CHECK: tad.logsigmoid %{{.*}} : tensor<3xf64>
  %12 = tad.logsigmoid %11 : tensor<3xf64>
  return %12 : tensor<3xf64>
}

// CHECK-LABEL: func.func @scalars
func.func @scalars(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  // CHECK: tad.mul %{{.*}}, %{{.*}} : tensor<f32>
  %0 = tad.mul %x, %y : tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%x: tensor<5xbf16>, %y: tensor<5xbf16>) -> tensor<5xbf16> {
  // CHECK: tad.compare eq, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %eq = tad.compare eq, %x, %y : tensor<5xbf16>
  // CHECK: tad.compare ne, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %ne = tad.compare ne, %x, %y : tensor<5xbf16>
  // CHECK: tad.compare lt, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %lt = tad.compare lt, %x, %y : tensor<5xbf16>
  // CHECK: tad.compare le, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %le = tad.compare le, %x, %y : tensor<5xbf16>
  // CHECK: tad.compare gt, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %gt = tad.compare gt, %x, %y : tensor<5xbf16>
  // CHECK: %[[GE:.*]] = tad.compare ge, %{{.*}}, %{{.*}} : tensor<5xbf16>
  %ge = tad.compare ge, %x, %y : tensor<5xbf16>
  // CHECK: tad.select %[[GE]], %{{.*}}, %{{.*}} : tensor<5xbf16>
  %s = tad.select %ge, %x, %y : tensor<5xbf16>
  return %s : tensor<5xbf16>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>,
                  %c: tensor<2x7x4x3xf16>, %d: tensor<2x7x3x6xf16>)
    -> (tensor<4x5xf32>, tensor<2x7x4x6xf16>) {
  // CHECK: tad.matmul %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  %0 = tad.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  // CHECK: tad.matmul %{{.*}}, %{{.*}} : tensor<2x7x4x3xf16>, tensor<2x7x3x6xf16> -> tensor<2x7x4x6xf16>
  %1 = tad.matmul %c, %d : tensor<2x7x4x3xf16>, tensor<2x7x3x6xf16> -> tensor<2x7x4x6xf16>
  return %0, %1 : tensor<4x5xf32>, tensor<2x7x4x6xf16>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>) {
  // CHECK: tad.transpose %{{.*}} [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %0 = tad.transpose %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: tad.reshape %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tad.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: tad.reshape %{{.*}} : tensor<3xf32> -> tensor<1x3x1xf32>
  %2 = tad.reshape %v : tensor<3xf32> -> tensor<1x3x1xf32>
  // CHECK: tad.broadcast %{{.*}} dims [1] : tensor<3xf32> -> tensor<2x3x4xf32>
  %3 = tad.broadcast %v dims [1] : tensor<3xf32> -> tensor<2x3x4xf32>
  // CHECK: tad.broadcast %{{.*}} dims [0, 1, 2] : tensor<1x3x1xf32> -> tensor<2x3x4xf32>
  %4 = tad.broadcast %2 dims [0, 1, 2] : tensor<1x3x1xf32> -> tensor<2x3x4xf32>
  // CHECK: tad.slice %{{.*}} start [0, 1, 0] limit [2, 3, 4] step [1, 1, 3] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %5 = tad.slice %x start [0, 1, 0] limit [2, 3, 4] step [1, 1, 3] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  // CHECK: tad.concat %{{.*}}, %{{.*}}, %{{.*}} axis 1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x9x4xf32>
  %6 = tad.concat %x, %x, %x axis 1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x9x4xf32>
  // CHECK: tad.cast %{{.*}} : tensor<2x3x4xf32> -> tensor<2x3x4xbf16>
  %7 = tad.cast %x : tensor<2x3x4xf32> -> tensor<2x3x4xbf16>
  // CHECK: tad.cast %{{.*}} : tensor<2x3x4xbf16> -> tensor<2x3x4xf64>
  %8 = tad.cast %7 : tensor<2x3x4xbf16> -> tensor<2x3x4xf64>
  return
}

// CHECK-LABEL: func.func @stacked
func.func @stacked(%ws: tensor<48x16x16xf32>, %i: index) -> tensor<48x16x16xf32> {
  // CHECK: %[[W:.*]] = tad.take %{{.*}}[%{{.*}}] : tensor<48x16x16xf32> -> tensor<16x16xf32>
  %w = tad.take %ws[%i] : tensor<48x16x16xf32> -> tensor<16x16xf32>
  // CHECK: tad.update %[[W]] into %{{.*}}[%{{.*}}] : tensor<16x16xf32> into tensor<48x16x16xf32>
  %u = tad.update %w into %ws[%i] : tensor<16x16xf32> into tensor<48x16x16xf32>
  return %u : tensor<48x16x16xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) {
  // CHECK: tad.reduce_sum %{{.*}} axes [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %0 = tad.reduce_sum %x axes [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // CHECK: tad.reduce_mean %{{.*}} axes [0, 2] keepdims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %1 = tad.reduce_mean %x axes [0, 2] keepdims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // CHECK: tad.reduce_max %{{.*}} axes [2, 0, 1] : tensor<2x3x4xf32> -> tensor<f32>
  %2 = tad.reduce_max %x axes [2, 0, 1] : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK: tad.softmax %{{.*}} axis 2 : tensor<2x3x4xf32>
  %3 = tad.softmax %x axis 2 : tensor<2x3x4xf32>
  // CHECK: tad.logsumexp %{{.*}} axis 0 : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %4 = tad.logsumexp %x axis 0 : tensor<2x3x4xf32> -> tensor<3x4xf32>
  // CHECK: tad.logsumexp %{{.*}} axis 1 keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %5 = tad.logsumexp %x axis 1 keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return
}

// CHECK-LABEL: func.func @differentiation_control
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
func.func @differentiation_control(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<f32>) {
  // CHECK: %[[R:.*]]:2 = tad.checkpoint(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<f32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>):
  // CHECK-NEXT:   %[[M:.*]] = tad.matmul %[[A]], %[[B]]
  // CHECK-NEXT:   %[[T:.*]] = tad.tanh %[[M]]
  // CHECK-NEXT:   %[[L:.*]] = tad.reduce_sum %[[T]] axes [0, 1]
  // CHECK-NEXT:   tad.yield %[[T]], %[[L]] : tensor<4x8xf32>, tensor<f32>
  // CHECK-NEXT: }
  %r:2 = tad.checkpoint(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<f32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %m = tad.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %t = tad.tanh %m : tensor<4x8xf32>
    %l = tad.reduce_sum %t axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
    tad.yield %t, %l : tensor<4x8xf32>, tensor<f32>
  }
  // CHECK: %[[S:.*]] = tad.stop_gradient %[[R]]#0 : tensor<4x8xf32>
  %s = tad.stop_gradient %r#0 : tensor<4x8xf32>
  // CHECK: return %[[S]], %[[R]]#1
  return %s, %r#1 : tensor<4x8xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @empty_checkpoint
func.func @empty_checkpoint() {
  // CHECK: tad.checkpoint() : () -> () {
  // CHECK-NEXT: tad.yield
  tad.checkpoint() : () -> () {
    tad.yield
  }
  return
}

// CHECK-LABEL: func.func @dynamic_slices
func.func @dynamic_slices(%x: tensor<4x6xf32>, %k: index) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : index
  // CHECK: %[[B:.*]] = tad.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x6xf32> -> tensor<4x2xf32>
  %b = tad.dynamic_slice %x[%c0, %k] : tensor<4x6xf32> -> tensor<4x2xf32>
  // CHECK: tad.dynamic_update_slice %[[B]] into %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x2xf32> into tensor<4x6xf32>
  %r = tad.dynamic_update_slice %b into %x[%c0, %k] : tensor<4x2xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<4x8xf32>, %s: tensor<f64>)
    -> (tensor<4x8xf32>, tensor<f64>) {
  // CHECK: tad.all_reduce mean, %{{.*}} : tensor<4x8xf32>
  %m = tad.all_reduce mean, %x : tensor<4x8xf32>
  // CHECK: tad.all_reduce sum, %{{.*}} : tensor<f64>
  %t = tad.all_reduce sum, %s : tensor<f64>
  return %m, %t : tensor<4x8xf32>, tensor<f64>
}

// CHECK-LABEL: func.func @integers
func.func @integers(%a: tensor<4xi32>, %b: tensor<4xi64>) -> (tensor<4xi32>, tensor<i64>, tensor<4xf32>) {
  // CHECK: tad.constant dense<3> : tensor<4xi32>
  %c = tad.constant dense<3> : tensor<4xi32>
  // CHECK: tad.add %{{.*}}, %{{.*}} : tensor<4xi32>
  %0 = tad.add %a, %c : tensor<4xi32>
  // CHECK: tad.compare lt, %{{.*}}, %{{.*}} : tensor<4xi32>
  %1 = tad.compare lt, %0, %a : tensor<4xi32>
  // CHECK: tad.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi32>
  %2 = tad.select %1, %0, %a : tensor<4xi32>
  // CHECK: tad.reduce_sum %{{.*}} axes [0] : tensor<4xi64> -> tensor<i64>
  %3 = tad.reduce_sum %b axes [0] : tensor<4xi64> -> tensor<i64>
  // CHECK: tad.cast %{{.*}} : tensor<4xi32> -> tensor<4xf32>
  %4 = tad.cast %2 : tensor<4xi32> -> tensor<4xf32>
  return %2, %3, %4 : tensor<4xi32>, tensor<i64>, tensor<4xf32>
}

// CHECK-LABEL: func.func @token_ids
func.func @token_ids(%t: tensor<50x8xf32>, %ids: tensor<4x6xi32>, %d: tensor<4x6x8xf32>)
    -> (tensor<4x6x8xf32>, tensor<50x8xf32>, tensor<6x6xi64>, tensor<4x1xi32>) {
  // CHECK: tad.gather %{{.*}}[%{{.*}}] axis 0 : tensor<50x8xf32>, tensor<4x6xi32> -> tensor<4x6x8xf32>
  %0 = tad.gather %t[%ids] axis 0 : tensor<50x8xf32>, tensor<4x6xi32> -> tensor<4x6x8xf32>
  // CHECK: tad.scatter_add %{{.*}} into %{{.*}}[%{{.*}}] axis 0 : tensor<4x6x8xf32>, tensor<4x6xi32> into tensor<50x8xf32>
  %1 = tad.scatter_add %d into %t[%ids] axis 0 : tensor<4x6x8xf32>, tensor<4x6xi32> into tensor<50x8xf32>
  // CHECK: tad.iota axis 1 : tensor<6x6xi64>
  %2 = tad.iota axis 1 : tensor<6x6xi64>
  // CHECK: tad.argmax %{{.*}} axis 1 min keepdims : tensor<4x6x8xf32> -> tensor<4x1x8xi32>
  %3 = tad.argmax %d axis 1 min keepdims : tensor<4x6x8xf32> -> tensor<4x1x8xi32>
  // CHECK: tad.argmax %{{.*}} axis 1 : tensor<4x6xi32> -> tensor<4xi32>
  %4 = tad.argmax %ids axis 1 : tensor<4x6xi32> -> tensor<4xi32>
  %5 = tad.reshape %4 : tensor<4xi32> -> tensor<4x1xi32>
  return %0, %1, %2, %5 : tensor<4x6x8xf32>, tensor<50x8xf32>, tensor<6x6xi64>, tensor<4x1xi32>
}
