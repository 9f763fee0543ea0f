// A chain of elementwise ops becomes one loop nest: after conversion and
// linalg's elementwise fusion, one linalg.generic computes it all.
// RUN: tad-opt %s --pass-pipeline="builtin.module(convert-tad-to-linalg,canonicalize,linalg-fuse-elementwise-ops)" | FileCheck %s

// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %one = tad.constant dense<1.0> : tensor<1024xf32>
  %e = tad.exp %x : tensor<1024xf32>
  %m = tad.mul %e, %x : tensor<1024xf32>
  %a = tad.add %m, %one : tensor<1024xf32>
  %t = tad.tanh %a : tensor<1024xf32>
  return %t : tensor<1024xf32>
}

// Sums accumulate in a wider type: f32 in f64.
// CHECK-LABEL: func.func @wide_sum
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<f64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @wide_sum(%x: tensor<8xf32>) -> tensor<f32> {
  %s = tad.reduce_sum %x axes [0] : tensor<8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
