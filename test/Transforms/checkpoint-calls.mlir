// RUN: tad-opt %s --split-input-file --tad-checkpoint-calls="functions=block" --verify-diagnostics | FileCheck %s

// Every call of @block becomes a checkpoint region around it; other calls,
// and a call that already is a region's whole body, stay as they are.
func.func @block(%h: tensor<4xf32>) -> tensor<4xf32> {
  %t = tad.tanh %h : tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @other(%h: tensor<4xf32>) -> tensor<4xf32> {
  return %h : tensor<4xf32>
}
// CHECK-LABEL: func.func @net
// CHECK:         %[[A:.*]] = tad.checkpoint(%arg0)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[R:.*]] = func.call @block(%[[X]])
// CHECK-NEXT:      tad.yield %[[R]]
// CHECK:         %[[B:.*]] = call @other(%[[A]])
// CHECK:         tad.checkpoint(%[[B]])
// CHECK:           func.call @block
// CHECK-NOT:     tad.checkpoint
// CHECK:         return
func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @block(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @other(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = tad.checkpoint(%b) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%y: tensor<4xf32>):
    %r = func.call @block(%y) : (tensor<4xf32>) -> tensor<4xf32>
    tad.yield %r : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}

// -----

// expected-error @below {{checkpoint-calls: no function 'block'; the functions with bodies are: f}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
