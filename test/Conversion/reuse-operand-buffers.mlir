// RUN: tad-opt %s --tad-reuse-operand-buffers | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// A fresh linalg result read only by an elementwise op becomes its
// destination; an argument does not.
// CHECK-LABEL: func.func @dying
func.func @dying(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%[[E:.*]] : tensor<4xf32>)
  // CHECK: linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<4xf32>, tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// An input read again later keeps its buffer; so does one of another type.
// CHECK-LABEL: func.func @alive
func.func @alive(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = linalg.generic
  // CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[E:.*]] : tensor<4xf32>)
  // CHECK-NOT: outs(%[[A]]
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
