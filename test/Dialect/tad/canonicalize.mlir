// Folds and canonicalization patterns of the tad dialect.
// RUN: tad-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @fold_constant_arithmetic
func.func @fold_constant_arithmetic() -> (tensor<2xf32>, tensor<2xf32>) {
  // CHECK-DAG: %[[P:.*]] = tad.constant dense<[4.000000e+00, 1.000000e+01]> : tensor<2xf32>
  // CHECK-DAG: %[[Q:.*]] = tad.constant dense<[2.500000e-01, 4.000000e-01]> : tensor<2xf32>
  // CHECK-NEXT: return %[[P]], %[[Q]]
  %a = tad.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tad.constant dense<[4.0, 5.0]> : tensor<2xf32>
  %s = tad.sub %a, %b : tensor<2xf32>   // [-3, -3]
  %n = tad.neg %s : tensor<2xf32>       // [3, 3]
  %m = tad.mul %n, %a : tensor<2xf32>   // [3, 6]
  %x = tad.add %m, %a : tensor<2xf32>   // [4, 8]
  %y = tad.max %x, %b : tensor<2xf32>   // [4, 8]
  %z = tad.add %y, %a : tensor<2xf32>   // [5, 10]
  %w = tad.min %z, %b : tensor<2xf32>   // [4, 5]
  %u = tad.mul %w, %a : tensor<2xf32>   // [4, 10]
  %d = tad.div %a, %b : tensor<2xf32>   // [0.25, 0.4]
  return %u, %d : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_abs_and_splats
func.func @fold_abs_and_splats() -> tensor<3xf64> {
  // CHECK: %[[C:.*]] = tad.constant dense<6.000000e+00> : tensor<3xf64>
  // CHECK-NEXT: return %[[C]]
  %a = tad.constant dense<-2.0> : tensor<3xf64>
  %b = tad.constant dense<3.0> : tensor<3xf64>
  %p = tad.abs %a : tensor<3xf64>
  %q = tad.mul %p, %b : tensor<3xf64>
  return %q : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @exact_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @exact_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = tad.constant dense<1.0> : tensor<4xf32>
  %zero = tad.constant dense<0.0> : tensor<4xf32>
  %negzero = tad.constant dense<-0.0> : tensor<4xf32>
  %0 = tad.mul %x, %one : tensor<4xf32>
  %1 = tad.mul %one, %x : tensor<4xf32>
  %2 = tad.div %x, %one : tensor<4xf32>
  %3 = tad.sub %x, %zero : tensor<4xf32>
  %4 = tad.add %x, %negzero : tensor<4xf32>
  %5 = tad.pow %x, %one : tensor<4xf32>
  %6 = tad.max %x, %x : tensor<4xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// x + 0 turns -0.0 into +0.0 and x - (-0) does too: neither folds.
// CHECK-LABEL: func.func @inexact_identities_stay
func.func @inexact_identities_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = tad.constant dense<0.0> : tensor<4xf32>
  %negzero = tad.constant dense<-0.0> : tensor<4xf32>
  // CHECK: tad.add
  %0 = tad.add %x, %zero : tensor<4xf32>
  // CHECK: tad.sub
  %1 = tad.sub %x, %negzero : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Transcendental functions are not folded: the compiled code decides them.
// CHECK-LABEL: func.func @no_transcendental_folding
func.func @no_transcendental_folding() -> tensor<2xf32> {
  %a = tad.constant dense<1.0> : tensor<2xf32>
  // CHECK: tad.exp
  %e = tad.exp %a : tensor<2xf32>
  return %e : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @involutions_and_idempotence
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @involutions_and_idempotence(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tad.neg %x : tensor<4xf32>
  %1 = tad.neg %0 : tensor<4xf32>
  // CHECK: %[[A:.*]] = tad.abs %[[X]]
  %2 = tad.abs %x : tensor<4xf32>
  %3 = tad.abs %2 : tensor<4xf32>
  // CHECK: %[[R:.*]] = tad.relu %[[X]]
  %4 = tad.relu %x : tensor<4xf32>
  %5 = tad.relu %4 : tensor<4xf32>
  // CHECK: return %[[X]], %[[A]], %[[R]]
  return %1, %3, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_folds
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
func.func @select_folds(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %true = arith.constant dense<true> : tensor<4xi1>
  %false = arith.constant dense<false> : tensor<4xi1>
  %0 = tad.select %c, %x, %x : tensor<4xf32>
  %1 = tad.select %true, %x, %y : tensor<4xf32>
  %2 = tad.select %false, %x, %y : tensor<4xf32>
  // CHECK: return %[[X]], %[[X]], %[[Y]]
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
func.func @cast_folds(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf16>) {
  %0 = tad.cast %x : tensor<2xf32> -> tensor<2xf32>
  %c = tad.constant dense<[1.5, 65536.0]> : tensor<2xf32>
  // 65536 exceeds the f16 range and rounds to infinity.
  // CHECK: %[[H:.*]] = tad.constant dense<[1.500000e+00, 0x7C00]> : tensor<2xf16>
  %1 = tad.cast %c : tensor<2xf32> -> tensor<2xf16>
  // CHECK: return %[[X]], %[[H]]
  return %0, %1 : tensor<2xf32>, tensor<2xf16>
}

// -----

// CHECK-LABEL: func.func @transpose_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<4x3xf32>) {
  // CHECK: %[[C:.*]] = tad.constant dense<2.000000e+00> : tensor<4x3xf32>
  %0 = tad.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // CHECK: %[[T:.*]] = tad.transpose %[[X]] [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tad.transpose %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %2 = tad.transpose %1 [2, 0, 1] : tensor<4x2x3xf32> -> tensor<3x4x2xf32>
  %c = tad.constant dense<2.0> : tensor<3x4xf32>
  %3 = tad.transpose %c [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  // CHECK: return %[[X]], %[[T]], %[[C]]
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<4x3xf32>
}

// -----

// Transposing twice with inverse permutations is the identity.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @transpose_inverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tad.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tad.transpose %0 [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: return %[[X]]
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @reshape_folds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  // CHECK: %[[C:.*]] = tad.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %0 = tad.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R:.*]] = tad.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tad.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %2 = tad.reshape %1 : tensor<6xf32> -> tensor<3x2xf32>
  %c = tad.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %3 = tad.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  // CHECK: return %[[X]], %[[R]], %[[C]]
  return %0, %2, %3 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_folds
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
func.func @broadcast_folds(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<5x2x3xf32>, tensor<2x2xf32>) {
  // CHECK: %[[C:.*]] = tad.constant dense<7.000000e+00> : tensor<2x2xf32>
  %0 = tad.broadcast %x dims [0] : tensor<3xf32> -> tensor<3xf32>
  // CHECK: %[[B:.*]] = tad.broadcast %[[X]] dims [2] : tensor<3xf32> -> tensor<5x2x3xf32>
  %1 = tad.broadcast %x dims [1] : tensor<3xf32> -> tensor<2x3xf32>
  %2 = tad.broadcast %1 dims [1, 2] : tensor<2x3xf32> -> tensor<5x2x3xf32>
  %c = tad.constant dense<7.0> : tensor<2xf32>
  %3 = tad.broadcast %c dims [1] : tensor<2xf32> -> tensor<2x2xf32>
  // CHECK: return %[[X]], %[[B]], %[[C]]
  return %0, %2, %3 : tensor<3xf32>, tensor<5x2x3xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @slice_and_concat_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @slice_and_concat_folds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>) {
  // CHECK: %[[C:.*]] = tad.constant dense<3.000000e+00> : tensor<1x2xf32>
  %0 = tad.slice %x start [0, 0] limit [2, 3] step [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = tad.concat %x axis 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = tad.constant dense<3.0> : tensor<4x4xf32>
  %2 = tad.slice %c start [1, 0] limit [2, 4] step [1, 2] : tensor<4x4xf32> -> tensor<1x2xf32>
  // CHECK: return %[[X]], %[[X]], %[[C]]
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @trivial_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x3xf32>)
func.func @trivial_reductions(%x: tensor<2x1x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>) {
  %0 = tad.reduce_sum %x axes [] : tensor<2x1x3xf32> -> tensor<2x1x3xf32>
  %1 = tad.reduce_max %x axes [1] keepdims : tensor<2x1x3xf32> -> tensor<2x1x3xf32>
  // CHECK: %[[R:.*]] = tad.reshape %[[X]] : tensor<2x1x3xf32> -> tensor<2x3xf32>
  %2 = tad.reduce_mean %x axes [1] : tensor<2x1x3xf32> -> tensor<2x3xf32>
  // CHECK: %[[S:.*]] = tad.reduce_sum %[[X]] axes [0] keepdims
  %3 = tad.reduce_sum %x axes [0] keepdims : tensor<2x1x3xf32> -> tensor<1x1x3xf32>
  %4 = tad.broadcast %3 dims [0, 1, 2] : tensor<1x1x3xf32> -> tensor<2x1x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[R]]
  return %0, %1, %2, %4 : tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>
}

// -----

// CHECK-LABEL: func.func @stop_gradient_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
func.func @stop_gradient_folds(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // CHECK-DAG: %[[C:.*]] = tad.constant dense<1.000000e+00>
  // CHECK-DAG: %[[S:.*]] = tad.stop_gradient %[[X]]
  // CHECK-NOT: tad.stop_gradient
  %0 = tad.stop_gradient %x : tensor<2xf32>
  %1 = tad.stop_gradient %0 : tensor<2xf32>
  %c = tad.constant dense<1.0> : tensor<2xf32>
  %2 = tad.stop_gradient %c : tensor<2xf32>
  // CHECK: return %[[S]], %[[C]]
  return %1, %2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A transpose of the last two dimensions feeding a matmul becomes the
// matmul's flag, in place (other attributes stay); a transpose with other
// uses stays for them; a flag that is set already is cleared (two transposes
// cancel); one that moves a batch dimension is not folded.
// CHECK-LABEL: func.func @fold_transpose_into_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[V:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2x4x3xf32>, %[[C:.*]]: tensor<3x2x4xf32>)
func.func @fold_transpose_into_matmul(%x: tensor<4x3xf32>, %w: tensor<5x4xf32>,
    %v: tensor<3x2xf32>, %b: tensor<2x4x3xf32>, %c: tensor<3x2x4xf32>)
    -> (tensor<3x5xf32>, tensor<4x5xf32>, tensor<4x2xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>) {
  // CHECK: %[[WT:.*]] = tad.transpose %[[W]] [1, 0]
  // CHECK: tad.matmul %[[X]], %[[W]] {tad.forward, transpose_lhs, transpose_rhs} : tensor<4x3xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  // CHECK: tad.matmul %[[X]], %[[V]] : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  // CHECK: tad.matmul %[[B]], %[[B]] {transpose_lhs} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
  // CHECK: %[[CT:.*]] = tad.transpose %[[C]] [1, 0, 2]
  // CHECK: tad.matmul %[[CT]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
  // CHECK: return {{.*}}, %[[WT]],
  %xt = tad.transpose %x [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %wt = tad.transpose %w [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %y = tad.matmul %xt, %wt {tad.forward} : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  %xv = tad.matmul %xt, %v {transpose_lhs} : tensor<3x4xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %bt = tad.transpose %b [0, 2, 1] : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
  %bb = tad.matmul %bt, %b : tensor<2x3x4xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
  %ct = tad.transpose %c [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %cb = tad.matmul %ct, %b : tensor<2x3x4xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
  return %y, %wt, %xv, %bb, %cb : tensor<3x5xf32>, tensor<4x5xf32>, tensor<4x2xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>
}
