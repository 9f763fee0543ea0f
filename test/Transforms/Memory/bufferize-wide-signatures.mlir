// RUN: tad-opt %s --tad-bufferize-wide-signatures="pairs=3" | FileCheck %s
// RUN: tad-opt %s --tad-bufferize-wide-signatures | FileCheck %s --check-prefix=DEFAULT

// Two tensor arguments and two tensor results: 4 pairs, past 3. Each
// argument is read through to_tensor restrict writable, each result is
// the buffer of the returned tensor, and other types pass through.
// CHECK-LABEL: func.func @wide(
// CHECK-SAME: %[[X:.*]]: memref<4xf32> {tad.arg_name = "x"}, %[[N:.*]]: index, %[[Y:.*]]: memref<4xf32>)
// CHECK-SAME: -> (memref<4xf32>, index, memref<4xf32>)
// CHECK-DAG: %[[TX:.*]] = bufferization.to_tensor %[[X]] restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK-DAG: %[[TY:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK: %[[S:.*]] = tad.add %[[TX]], %[[TY]]
// CHECK: %[[B0:.*]] = bufferization.to_buffer %[[S]] : tensor<4xf32> to memref<4xf32>
// CHECK: %[[B1:.*]] = bufferization.to_buffer %[[TX]] : tensor<4xf32> to memref<4xf32>
// CHECK: return %[[B0]], %[[N]], %[[B1]]
func.func @wide(%x: tensor<4xf32> {tad.arg_name = "x"}, %n: index,
                %y: tensor<4xf32>) -> (tensor<4xf32>, index, tensor<4xf32>) {
  %s = tad.add %x, %y : tensor<4xf32>
  return %s, %n, %x : tensor<4xf32>, index, tensor<4xf32>
}

// A function that another calls keeps its tensor boundary: One-Shot's
// analysis of it informs the caller's.
// CHECK-LABEL: func.func @callee(
// CHECK-SAME: tensor<4xf32>
// CHECK-NOT: bufferization.to_tensor
func.func @callee(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  return %y, %x : tensor<4xf32>, tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a, %b = func.call @callee(%x, %x)
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a : tensor<4xf32>
}

// Below the default of 65536 pairs nothing changes: One-Shot bufferizes
// the boundary (test/Python/wide-boundaries.test runs functions of a
// record of 300 fields, past it).
// DEFAULT-LABEL: func.func @wide(
// DEFAULT-SAME: %{{.*}}: tensor<4xf32> {tad.arg_name = "x"}, %{{.*}}: index, %{{.*}}: tensor<4xf32>)
// DEFAULT-NOT: bufferization.to_tensor
