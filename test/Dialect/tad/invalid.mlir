// One failing input for every verifier rule of the tad dialect.
// RUN: tad-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Operand and result types
//===----------------------------------------------------------------------===//

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f32, f64, f16 or bf16 values}}
  %0 = tad.exp %x : tensor<?xf32>
  return
}

// -----

func.func @integer_math(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f32, f64, f16 or bf16 values}}
  %0 = tad.exp %x : tensor<4xi32>
  return
}

// -----

func.func @integer_width(%x: tensor<4xi16>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f32, f64, f16, bf16, i32 or i64 values}}
  %0 = tad.add %x, %x : tensor<4xi16>
  return
}

// -----

func.func @integer_mean(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f32, f64, f16 or bf16 values}}
  %0 = tad.reduce_mean %x axes [0] : tensor<4xi32> -> tensor<i32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f32, f64, f16, bf16, i32 or i64 values, but got 'tensor<*xf32>'}}
  %0 = "tad.neg"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @elementwise_type_mismatch(%x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "tad.mul"(%x, %y) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @elementwise_result_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tad.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

//===----------------------------------------------------------------------===//
// tad.constant
//===----------------------------------------------------------------------===//

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "tad.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_index() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of f32, f64, f16, bf16, i32, i64 or i1 values}}
  %0 = tad.constant dense<1> : tensor<2xindex>
  return
}

//===----------------------------------------------------------------------===//
// tad.empty
//===----------------------------------------------------------------------===//

// -----

func.func @empty_dynamic() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of f32, f64, f16, bf16, i32, i64 or i1 values}}
  %0 = tad.empty : tensor<?x2xf32>
  return
}

// -----

func.func @empty_complex() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of f32, f64, f16, bf16, i32, i64 or i1 values}}
  %0 = tad.empty : tensor<2xcomplex<f32>>
  return
}

//===----------------------------------------------------------------------===//
// tad.compare and tad.select
//===----------------------------------------------------------------------===//

// -----

func.func @compare_operand_mismatch(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "tad.compare"(%x, %y) <{predicate = 2 : i32}> : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that the result is an i1 tensor of the operand shape}}
  %0 = "tad.compare"(%x, %x) <{predicate = 2 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xi1>
  return
}

// -----

func.func @compare_bad_predicate(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tad.compare 7, %x, %x : tensor<4xf32>
  return
}

// -----

func.func @select_value_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "tad.select"(%c, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @select_condition_shape(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that the condition is an i1 tensor of the value shape}}
  %0 = "tad.select"(%c, %x, %x) : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{operand element types differ: 'f32' and 'f16'}}
  %0 = tad.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_rank_one(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operands must have rank >= 2, lhs has rank 1}}
  %0 = tad.matmul %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
  return
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{lhs has rank 3 but rhs has rank 2; batch dimensions are not broadcast}}
  %0 = tad.matmul %a, %b : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<5x2x3xf32>, %b: tensor<6x3x4xf32>) {
  // expected-error @+1 {{batch dimension 0 differs: lhs has 5, rhs has 6}}
  %0 = tad.matmul %a, %b : tensor<5x2x3xf32>, tensor<6x3x4xf32> -> tensor<5x2x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{contracted dimensions differ: lhs dimension 1 is 3, rhs dimension 0 is 4}}
  %0 = tad.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // The dimensions named are the operands' own: a transposed lhs contracts
  // its first.
  // expected-error @+1 {{contracted dimensions differ: lhs dimension 0 is 2, rhs dimension 0 is 3}}
  %0 = tad.matmul %a, %b {transpose_lhs} : tensor<2x3xf32>, tensor<3x5xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @matmul_transposed_result(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected 'tensor<2x5xf32>'}}
  %0 = tad.matmul %a, %b {transpose_rhs} : tensor<2x3xf32>, tensor<5x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{result type 'tensor<2x4xf32>' does not match the expected 'tensor<2x5xf32>'}}
  %0 = tad.matmul %a, %b : tensor<2x3xf32>, tensor<3x5xf32> -> tensor<2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation has 3 entries but the operand has rank 2}}
  %0 = tad.transpose %x [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation entry 2 is out of range for rank 2}}
  %0 = tad.transpose %x [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation entry -1 is out of range for rank 2}}
  %0 = tad.transpose %x [-1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation entry 1 appears twice}}
  %0 = tad.transpose %x [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected 'tensor<3x2xf32>'}}
  %0 = tad.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'f16'; use tad.cast}}
  %0 = tad.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{operand has 6 elements but the result has 8}}
  %0 = tad.reshape %x : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.broadcast
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'f64'}}
  %0 = tad.broadcast %x dims [0] : tensor<3xf32> -> tensor<3x2xf64>
  return
}

// -----

func.func @broadcast_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{has 2 dimensions but the operand has rank 1}}
  %0 = tad.broadcast %x dims [0, 1] : tensor<3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @broadcast_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{dimension 2 is out of range for rank 2}}
  %0 = tad.broadcast %x dims [2] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_order(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{dimensions must be strictly increasing, but 0 follows 1}}
  %0 = tad.broadcast %x dims [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{operand dimension 0 has size 3 but result dimension 1 has size 4; only size 1 broadcasts}}
  %0 = tad.broadcast %x dims [1] : tensor<3xf32> -> tensor<2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_entries(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{start, limit and step need 2 entries each (the operand rank), got 1, 2 and 2}}
  %0 = tad.slice %x start [0] limit [2, 2] step [1, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<4xf32>) {
  // expected-error @+1 {{dimension 0: need 0 <= start <= limit <= 4, got start -1 and limit 2}}
  %0 = tad.slice %x start [-1] limit [2] step [1] : tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @slice_start_after_limit(%x: tensor<4xf32>) {
  // expected-error @+1 {{dimension 0: need 0 <= start <= limit <= 4, got start 3 and limit 2}}
  %0 = tad.slice %x start [3] limit [2] step [1] : tensor<4xf32> -> tensor<0xf32>
  return
}

// -----

func.func @slice_limit_past_end(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dimension 1: need 0 <= start <= limit <= 4, got start 0 and limit 5}}
  %0 = tad.slice %x start [0, 0] limit [4, 5] step [1, 1] : tensor<4x4xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<4xf32>) {
  // expected-error @+1 {{dimension 0: step must be >= 1, got 0}}
  %0 = tad.slice %x start [0] limit [4] step [0] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<5xf32>) {
  // expected-error @+1 {{result type 'tensor<2xf32>' does not match the expected 'tensor<3xf32>'}}
  %0 = tad.slice %x start [0] limit [5] step [2] : tensor<5xf32> -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.take and tad.update
//===----------------------------------------------------------------------===//

// -----

func.func @take_scalar(%x: tensor<f32>, %i: index) {
  // expected-error @+1 {{needs a stacked operand of rank >= 1, got 'tensor<f32>'}}
  %0 = tad.take %x[%i] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @take_result(%x: tensor<4x3xf32>, %i: index) {
  // expected-error @+1 {{result type 'tensor<4xf32>' does not match the expected 'tensor<3xf32>'}}
  %0 = tad.take %x[%i] : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_slice_offsets(%x: tensor<4x3xf32>, %i: index) {
  // expected-error @+1 {{takes one offset per dimension (2), not 1}}
  %0 = tad.dynamic_slice %x[%i] : tensor<4x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_slice_rank(%x: tensor<4x3xf32>, %i: index) {
  // expected-error @+1 {{result rank 1 differs from the operand's 2}}
  %0 = tad.dynamic_slice %x[%i, %i] : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @dynamic_slice_size(%x: tensor<4x3xf32>, %i: index) {
  // expected-error @+1 {{result dimension 1 (5) is larger than the operand's (3)}}
  %0 = tad.dynamic_slice %x[%i, %i] : tensor<4x3xf32> -> tensor<1x5xf32>
  return
}

// -----

func.func @dynamic_update_slice_type(%x: tensor<4x3xf32>, %v: tensor<1x3xf64>, %i: index) {
  // expected-error @+1 {{value element type 'f64' differs from the operand's 'f32'}}
  %0 = tad.dynamic_update_slice %v into %x[%i, %i] : tensor<1x3xf64> into tensor<4x3xf32>
  return
}

// -----

func.func @update_value(%x: tensor<4x3xf32>, %v: tensor<3xf64>, %i: index) {
  // expected-error @+1 {{value type 'tensor<3xf64>' does not match the expected 'tensor<3xf32>'}}
  %0 = tad.update %v into %x[%i] : tensor<3xf64> into tensor<4x3xf32>
  return
}

// -----

func.func @update_index_type(%x: tensor<4x3xf32>, %v: tensor<3xf32>, %i: i32) {
  // expected-error @+1 {{operand #2 must be index}}
  %0 = "tad.update"(%v, %x, %i) : (tensor<3xf32>, tensor<4x3xf32>, i32) -> tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_empty() {
  // expected-error @+1 {{needs at least one input}}
  %0 = "tad.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2xf32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %0 = tad.concat %x, %x axis 1 : tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concat_element_type(%x: tensor<2xf32>, %y: tensor<2xf64>) {
  // expected-error @+1 {{input 1 has element type 'f64' but input 0 has 'f32'}}
  %0 = tad.concat %x, %y axis 0 : tensor<2xf32>, tensor<2xf64> -> tensor<4xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<2xf32>, %y: tensor<2x1xf32>) {
  // expected-error @+1 {{input 1 has rank 2 but input 0 has rank 1}}
  %0 = tad.concat %x, %y axis 0 : tensor<2xf32>, tensor<2x1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concat_other_dimension(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{input 1 has size 4 in dimension 1 but input 0 has 3}}
  %0 = tad.concat %x, %y axis 0 : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_result(%x: tensor<2x3xf32>, %y: tensor<5x3xf32>) {
  // expected-error @+1 {{result type 'tensor<6x3xf32>' does not match the expected 'tensor<7x3xf32>'}}
  %0 = tad.concat %x, %y axis 0 : tensor<2x3xf32>, tensor<5x3xf32> -> tensor<6x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.cast
//===----------------------------------------------------------------------===//

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{changes the shape from 'tensor<4xf32>' to 'tensor<2x2xf16>'; only the element type may change}}
  %0 = tad.cast %x : tensor<4xf32> -> tensor<2x2xf16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions, softmax, logsumexp
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tad.reduce_sum %x axes [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 0 appears twice}}
  %0 = tad.reduce_mean %x axes [0, 0] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_result_keepdims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2xf32>' does not match the expected 'tensor<2x1xf32>'}}
  %0 = tad.reduce_max %x axes [1] keepdims : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<3xf32>' does not match the expected 'tensor<2xf32>'}}
  %0 = tad.reduce_sum %x axes [1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = tad.softmax %x axis -1 : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tad.softmax"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @logsumexp_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tad.logsumexp %x axis 2 : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @logsumexp_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2xf32>' does not match the expected 'tensor<3xf32>'}}
  %0 = tad.logsumexp %x axis 0 : tensor<2x3xf32> -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.stop_gradient
//===----------------------------------------------------------------------===//

// -----

func.func @stop_gradient_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tad.stop_gradient"(%x) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// tad.checkpoint and tad.yield
//===----------------------------------------------------------------------===//

// -----

func.func @checkpoint_argument_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{body has 0 arguments but the op has 1 inputs}}
  %0 = tad.checkpoint(%x) : (tensor<2xf32>) -> tensor<2xf32> {
    %c = tad.constant dense<1.0> : tensor<2xf32>
    tad.yield %c : tensor<2xf32>
  }
  return
}

// -----

func.func @checkpoint_argument_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{body argument 0 has type 'tensor<3xf32>' but input 0 has type 'tensor<2xf32>'}}
  %0 = tad.checkpoint(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<3xf32>):
    %c = tad.constant dense<1.0> : tensor<2xf32>
    tad.yield %c : tensor<2xf32>
  }
  return
}

// -----

func.func @checkpoint_yield_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{body yields 2 values but the op has 1 results}}
  %0 = tad.checkpoint(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tad.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @checkpoint_yield_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{body yields 'tensor<2xf32>' as value 0 but result 0 has type 'tensor<2xf64>'}}
  %0 = tad.checkpoint(%x) : (tensor<2xf32>) -> tensor<2xf64> {
  ^bb0(%a: tensor<2xf32>):
    tad.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @checkpoint_captures(%x: tensor<2xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tad.checkpoint() : () -> tensor<2xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %e = tad.exp %x : tensor<2xf32>
    tad.yield %e : tensor<2xf32>
  }
  return
}

// -----

func.func @checkpoint_terminator(%x: tensor<2xf32>) {
  // expected-error @+1 {{body must end with tad.yield}}
  %0 = "tad.checkpoint"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    llvm.unreachable
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @checkpoint_two_blocks(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects region #0 to have 0 or 1 blocks}}
  %0 = "tad.checkpoint"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    "tad.yield"(%a) : (tensor<2xf32>) -> ()
  ^bb1:
    "tad.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @checkpoint_no_terminator(%x: tensor<2xf32>) {
  %0 = tad.checkpoint(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{block with no terminator}}
    %e = tad.exp %a : tensor<2xf32>
  }
  return
}

// -----

func.func @yield_outside_checkpoint(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects parent op 'tad.checkpoint'}}
  tad.yield %x : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// tad.derivative, tad.custom_rule, tad.checkpointed, tad.loop_snapshots
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tad.derivative' belongs on a func.func}}
module attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>} {}

// -----

// expected-error @+1 {{'tad.derivative' must be a #tad.derivative attribute}}
func.func private @g(tensor<f32>) -> tensor<f32> attributes {tad.derivative = 1 : i32}

// -----

// expected-error @+1 {{primal @missing is not a function}}
func.func private @g(tensor<f32>) -> tensor<f32> attributes {tad.derivative = #tad.derivative<grad of @missing wrt [0]>}

// -----

// expected-error @+1 {{is the derivative of itself}}
func.func private @g(tensor<f32>) -> tensor<f32> attributes {tad.derivative = #tad.derivative<grad of @g wrt [0]>}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
// expected-error @+1 {{wrt position 1 is not a parameter of a function with 1 parameters}}
func.func private @g(tensor<f32>) -> tensor<f32> attributes {tad.derivative = #tad.derivative<grad of @f wrt [1]>}

// -----

func.func private @f(tensor<f32>, tensor<f32>) -> tensor<f32>
// expected-error @+1 {{wrt position 0 appears twice}}
func.func private @g(tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {tad.derivative = #tad.derivative<grad of @f wrt [0, 0]>}

// -----

func.func private @f(tensor<3xf32>) -> tensor<3xf32>
// expected-error @+1 {{grad needs a function that returns one float scalar; use value_and_grad or vjp for several results}}
func.func private @g(tensor<3xf32>) -> tensor<3xf32> attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}

// -----

func.func private @f(tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
// expected-error @+1 {{value_and_grad needs a function whose first result is a float scalar}}
func.func private @g(tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<3xf32>) attributes {tad.derivative = #tad.derivative<value_and_grad of @f wrt [0]>}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
// expected-error @+1 {{has type '(tensor<3xf32>) -> tensor<f32>' but the requested derivative has type '(tensor<3xf32>, tensor<f32>) -> tensor<3xf32>'}}
func.func private @g(tensor<3xf32>) -> tensor<f32> attributes {tad.derivative = #tad.derivative<vjp of @f wrt [0]>}

// -----

func.func private @fwd(tensor<2xf32>) -> tensor<2xf32>
func.func private @pb(tensor<2xf32>) -> tensor<2xf32>
// expected-error @+1 {{forward takes 'tensor<2xf32>' but the primal takes 'tensor<3xf32>'}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb>}

// -----

func.func private @fwd(tensor<3xf32>) -> tensor<2xf32>
func.func private @pb(tensor<3xf32>) -> tensor<3xf32>
// expected-error @+1 {{forward must return the primal's results 'tensor<3xf32>' before its saved values, but returns 'tensor<2xf32>'}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb>}

// -----

func.func private @fwd(tensor<3xf32>) -> (tensor<3xf32>, tensor<5xf32>)
func.func private @pb(tensor<3xf32>) -> tensor<3xf32>
// expected-error @+1 {{pullback must take the saved values, the saved parameters and one cotangent per primal result 'tensor<5xf32>', 'tensor<3xf32>', but takes 'tensor<3xf32>'}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb>}

// -----

// A saved parameter comes after the forward's saved results.
func.func private @fwd(tensor<3xf32>, tensor<2xf32>) -> (tensor<3xf32>, tensor<5xf32>)
func.func private @pb(tensor<2xf32>, tensor<5xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<2xf32>)
// expected-error @+1 {{pullback must take the saved values, the saved parameters and one cotangent per primal result 'tensor<5xf32>', 'tensor<2xf32>', 'tensor<3xf32>', but takes 'tensor<2xf32>', 'tensor<5xf32>', 'tensor<3xf32>'}}
func.func private @f(tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb, saved_params = [1]>}

// -----

func.func private @fwd(tensor<3xf32>) -> tensor<3xf32>
func.func private @pb(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// expected-error @+1 {{saved_params names parameter 1 of a primal with 1}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb, saved_params = [1]>}

// -----

func.func private @fwd(tensor<3xf32>) -> tensor<3xf32>
func.func private @pb(tensor<3xf32>) -> tensor<4xf32>
// expected-error @+1 {{pullback must return one cotangent per primal parameter 'tensor<3xf32>', but returns 'tensor<4xf32>'}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @fwd, pullback = @pb>}

// -----

func.func private @pb(tensor<3xf32>) -> tensor<3xf32>
// expected-error @+1 {{forward @nofwd is not a function}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = #tad.custom_rule<forward = @nofwd, pullback = @pb>}

// -----

// expected-error @+1 {{'tad.custom_rule' must be a #tad.custom_rule attribute}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.custom_rule = "rule"}

// -----

// expected-error @+1 {{'tad.checkpointed' must be a unit attribute}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.checkpointed = 1 : i32}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'tad.recomputed' must be a unit attribute}}
  %0 = tad.tanh %x {tad.recomputed = 1 : i32} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+1 {{unknown tad attribute 'tad.frobnicate'}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.frobnicate}

// -----

// An unknown attribute is unknown wherever it is.
// expected-error @+1 {{unknown tad attribute 'tad.frobnicate'}}
module attributes {tad.frobnicate} {}

// -----

// expected-error @+1 {{'tad.loop_snapshots' belongs on an scf.for}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32> attributes {tad.loop_snapshots = 2 : i64}

// -----

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tad.loop_snapshots' must be an integer of 0 or more, got -1 : i64}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<f32>) {
    scf.yield %h : tensor<f32>
  } {tad.loop_snapshots = -1 : i64}
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{'tad.reverse_reruns' belongs on an scf.for}}
func.func private @g(tensor<3xf32>) -> tensor<3xf32> attributes {tad.reverse_reruns = 4 : i64}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tad.reverse_reruns' must be an integer of 0 or more, got "four"}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<f32>) {
    scf.yield %h : tensor<f32>
  } {tad.reverse_reruns = "four"}
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{'tad.case_counts' belongs on an scf.index_switch}}
func.func private @g(tensor<3xf32>) -> tensor<3xf32> attributes {tad.case_counts = array<i64: 1>}

// -----

func.func @g(%x: tensor<f32>, %k: index) -> tensor<f32> {
  // expected-error @+1 {{'tad.case_counts' must be an array of 2 counts of 0 or more (one per case, the default last), got array<i64: 3, -1>}}
  %r = scf.index_switch %k {tad.case_counts = array<i64: 3, -1>} -> tensor<f32>
  case 0 {
    scf.yield %x : tensor<f32>
  }
  default {
    scf.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A revolve dispatcher's cases run as often as the loop around them does.
func.func @g(%x: tensor<f32>, %k: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<f32>) {
    // expected-error @+1 {{'tad.case_counts' must sum to the trip count of the loop around it, 4}}
    %s = scf.index_switch %k {tad.case_counts = array<i64: 3, 0>} -> tensor<f32>
    case 0 {
      scf.yield %h : tensor<f32>
    }
    default {
      scf.yield %h : tensor<f32>
    }
    scf.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @all_reduce_bf16(%x: tensor<4xbf16>) {
  // expected-error @+1 {{reduces f32 and f64 tensors only, not 'bf16'; cast to f32 first}}
  %0 = tad.all_reduce sum, %x : tensor<4xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Token ids: tad.gather, tad.scatter_add, tad.iota, tad.argmax
//===----------------------------------------------------------------------===//

// -----

func.func @gather_float_ids(%t: tensor<5x2xf32>, %ids: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of i32 or i64 values}}
  %0 = tad.gather %t[%ids] axis 0 : tensor<5x2xf32>, tensor<3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<5x2xf32>, %ids: tensor<3xi32>) {
  // expected-error @+1 {{axis 2 is out of range for an operand of rank 2}}
  %0 = tad.gather %t[%ids] axis 2 : tensor<5x2xf32>, tensor<3xi32> -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_shape(%t: tensor<5x2xf32>, %ids: tensor<3xi32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected 'tensor<3x2xf32>'}}
  %0 = tad.gather %t[%ids] axis 0 : tensor<5x2xf32>, tensor<3xi32> -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_add_updates(%t: tensor<5x2xf32>, %ids: tensor<3xi32>, %d: tensor<3x3xf32>) {
  // expected-error @+1 {{updates type 'tensor<3x3xf32>' does not match the expected 'tensor<3x2xf32>'}}
  %0 = tad.scatter_add %d into %t[%ids] axis 0 : tensor<3x3xf32>, tensor<3xi32> into tensor<5x2xf32>
  return
}

// -----

func.func @iota_axis() {
  // expected-error @+1 {{axis 1 is out of range for a result of rank 1}}
  %0 = tad.iota axis 1 : tensor<4xi32>
  return
}

// -----

func.func @iota_float() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of i32 or i64 values}}
  %0 = tad.iota axis 0 : tensor<4xf32>
  return
}

// -----

func.func @argmax_shape(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result type 'tensor<6xi32>' does not match the expected 'tensor<4xi32>'}}
  %0 = tad.argmax %x axis 1 : tensor<4x6xf32> -> tensor<6xi32>
  return
}

// -----

// expected-error @+1 {{'tad.budget' must be an integer of 0 or more}}
func.func private @b(tensor<3xf32>) -> tensor<3xf32> attributes {tad.budget = -1 : i64}

// -----

func.func @b(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tad.budget' belongs on a function}}
  %y = tad.neg %x {tad.budget = 64 : i64} : tensor<f32>
  return %y : tensor<f32>
}

// -----

// expected-error @+1 {{'tad.loop_choice_minimum' must be a positive integer (bytes)}}
module attributes {tad.loop_choice_minimum = 0 : i64} {
}

// -----

// expected-error @+1 {{'tad.loop_choice_minimum' belongs on a module}}
func.func private @m(tensor<3xf32>) -> tensor<3xf32> attributes {tad.loop_choice_minimum = 64 : i64}

// -----

// expected-error @+1 {{'tad.host_peaks' must be an array of i64, one per region}}
func.func @host_peaks_per_region() attributes {tad.host_peaks = array<i64: 1, 2>} {
  return
}
