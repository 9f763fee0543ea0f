// RUN: tad-opt %s --tad-fuse-elementwise | FileCheck %s

// A chain of elementwise ops, the sum `s = s + x * x` over a record's fields,
// fuses into one op, whatever the order of fusion: the rounds of disjoint
// pairs (each op's body copied log N times, not N) give the same op as
// one producer at a time. The product of a value with itself reads it
// once.

// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8 :
// CHECK:         ^bb0(%[[X0:.*]]: f32, %[[X1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[X8:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG:       %[[Q0:.*]] = arith.mulf %[[X0]], %[[X0]]
// CHECK-DAG:       %[[Q1:.*]] = arith.mulf %[[X1]], %[[X1]]
// CHECK:           arith.addf %[[Q0]], %[[Q1]]
// CHECK:           %[[Q8:.*]] = arith.mulf %[[X8]], %[[X8]]
// CHECK-NEXT:      %[[S:.*]] = arith.addf %{{.*}}, %[[Q8]]
// CHECK-NEXT:      linalg.yield %[[S]]
// CHECK-NOT:     linalg.generic
#s = affine_map<() -> ()>
func.func @sum_of_squares(%x0: tensor<f32>, %x1: tensor<f32>, %x2: tensor<f32>, %x3: tensor<f32>, %x4: tensor<f32>, %x5: tensor<f32>, %x6: tensor<f32>, %x7: tensor<f32>, %x8: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %q0 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x0, %x0 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q1 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x1, %x1 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q2 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x2, %x2 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q3 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x3, %x3 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q4 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x4, %x4 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q5 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x5, %x5 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q6 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x6, %x6 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q7 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x7, %x7 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %q8 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%x8, %x8 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s1 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%q0, %q1 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s2 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s1, %q2 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s3 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s2, %q3 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s4 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s3, %q4 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s5 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s4, %q5 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s6 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s5, %q6 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s7 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s6, %q7 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s8 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []} ins(%s7, %q8 : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %s8 : tensor<f32>
}
