// The remat cost model's price of each kind of op (MemoryModelOpInterface::
// getComputeCost, dialects/tad/TadMemoryModel.cpp), in cost units: one unit
// is an elementwise add on one element, a pass over memory; an op fused
// into its reader's loop pays its arithmetic alone (getFusedComputeCost);
// a math function costs what bench/remat/op_costs.py measured it at (tanh
// 4 units an element); a matmul its 2mnk flops at 8 flops a unit (4 in
// f64); a view nothing.

// RUN: tad-opt %s --tad-test-memory-model --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// 32 elements.
// CHECK: @add: {{.*}} cost 32.0 units
func.func @add(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.add %x, %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK: @tanh: {{.*}} cost 128.0 units
func.func @tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.tanh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// The stable functions: log1p 4, expm1 9, softplus 10, logsigmoid 9;
// in f64, 46, 94, 119 and 119. The first three fuse into the last, which
// pays the one pass over memory: a unit an element less each. 32 * 29 and
// 32 * 375.
// CHECK: @stable: {{.*}} cost 928.0 units
func.func @stable(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.log1p %x : tensor<4x8xf32>
  %1 = tad.expm1 %0 : tensor<4x8xf32>
  %2 = tad.softplus %1 : tensor<4x8xf32>
  %3 = tad.logsigmoid %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
// CHECK: @stable_f64: {{.*}} cost 12000.0 units
func.func @stable_f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.log1p %x : tensor<4x8xf64>
  %1 = tad.expm1 %0 : tensor<4x8xf64>
  %2 = tad.softplus %1 : tensor<4x8xf64>
  %3 = tad.logsigmoid %2 : tensor<4x8xf64>
  return %3 : tensor<4x8xf64>
}

// An add, then a sigmoid (3) and an exp (2), fused into one loop: the
// exp's pass over memory and the others' arithmetic (0 and 2), 32 * 4.
// CHECK: @chain: {{.*}} cost 128.0 units
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.add %x, %x : tensor<4x8xf32>
  %1 = tad.sigmoid %0 : tensor<4x8xf32>
  %2 = tad.exp %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// 2 * 4 * 8 * 66 flops at 8 a unit.
// CHECK: @matmul: {{.*}} cost 528.0 units
func.func @matmul(%a: tensor<4x66xf32>, %b: tensor<66x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.matmul %a, %b : tensor<4x66xf32>, tensor<66x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// 2 * 4 * 8 * 7 flops at 4 a unit.
// CHECK: @matmul_f64: {{.*}} cost 112.0 units
func.func @matmul_f64(%a: tensor<4x7xf64>, %b: tensor<7x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.matmul %a, %b : tensor<4x7xf64>, tensor<7x8xf64> -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// Per input element: a sum along the innermost dimension 6 (a chain of
// dependent adds), one over the outer dimension 1 (vectorized), a maximum 1,
// softmax 10. Along an innermost dimension that tad-split-reductions
// splits into 8 f64 lanes (16 elements here), a sum costs 1 and a softmax
// 6: 32 * (6 + 1 + 1 + 10) + 64 * (1 + 6) = 1024.
// CHECK: @reductions: {{.*}} cost 1024.0 units
func.func @reductions(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x16xf32>) {
  %0 = tad.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tad.reduce_sum %x axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  %2 = tad.reduce_max %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %3 = tad.softmax %x axis 1 : tensor<4x8xf32>
  %4 = tad.reduce_sum %y axes [1] : tensor<4x16xf32> -> tensor<4xf32>
  %5 = tad.softmax %y axis 1 : tensor<4x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x16xf32>
}

// A transpose that keeps the innermost dimension copies rows (1); one that
// moves it gathers (9); a reshape is a view (0).
// CHECK: @transposes: {{.*}} cost 320.0 units
func.func @transposes(%x: tensor<2x4x4xf32>) -> (tensor<4x2x4xf32>, tensor<4x4x2xf32>, tensor<8x4xf32>) {
  %0 = tad.transpose %x [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
  %1 = tad.transpose %x [2, 1, 0] : tensor<2x4x4xf32> -> tensor<4x4x2xf32>
  %2 = tad.reshape %x : tensor<2x4x4xf32> -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<4x2x4xf32>, tensor<4x4x2xf32>, tensor<8x4xf32>
}
