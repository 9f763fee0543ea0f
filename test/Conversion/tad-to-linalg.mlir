// RUN: tad-opt %s --convert-tad-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

// Elementwise ops are linalg.generic ops with identity maps, so that
// elementwise fusion can merge them.
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tad.add %x, %y : tensor<2x3xf32>
  %1 = tad.sigmoid %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A stretched size-1 dimension reads index 0.
// CHECK: #[[BMAP:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BMAP]], #{{.*}}]
func.func @broadcast(%x: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = tad.broadcast %x dims [0, 1] : tensor<1x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmuls
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<5x6xf32>) outs(%[[Z]] : tensor<4x6xf32>)
// The batch dimensions collapse into one (through a flat view: reshapes
// are metadata-only once bufferized).
// CHECK: tensor.collapse_shape {{.*}} tensor<2x3x4x5xf32> into tensor<120xf32>
// CHECK: tensor.expand_shape {{.*}} tensor<120xf32> into tensor<6x4x5xf32>
// CHECK: linalg.batch_matmul {{.*}} -> tensor<6x4x6xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x4x6xf32>
func.func @matmuls(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x5x6xf32>) -> (tensor<4x6xf32>, tensor<2x3x4x6xf32>) {
  %0 = tad.matmul %a, %b : tensor<4x5xf32>, tensor<5x6xf32> -> tensor<4x6xf32>
  %1 = tad.matmul %c, %d : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> -> tensor<2x3x4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<2x3x4x6xf32>
}

// -----

// softmax subtracts the max (with -inf replaced by 0) before exp.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tad.softmax %x axis 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Dynamic indices are clamped into range.
// CHECK-LABEL: func.func @take
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
func.func @take(%x: tensor<3x4xf32>, %i: index) -> tensor<4xf32> {
  %0 = tad.take %x[%i] : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Each offset of a dynamic slice is clamped into [0, size - block size]:
// 6 - 2 = 4 along the second dimension, 0 along the first.
// CHECK-LABEL: func.func @dynamic_slice
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[LOW:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[K:.*]] = arith.minsi %[[LOW]], %[[C4]] : index
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, %[[K]]] [4, 2] [1, 1] : tensor<4x6xf32> to tensor<4x2xf32>
// CHECK: tensor.insert_slice %[[BLOCK]] into %{{.*}}[%{{.*}}, %{{.*}}] [4, 2] [1, 1] : tensor<4x2xf32> into tensor<4x6xf32>
func.func @dynamic_slice(%x: tensor<4x6xf32>, %k: index) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : index
  %b = tad.dynamic_slice %x[%c0, %k] : tensor<4x6xf32> -> tensor<4x2xf32>
  %r = tad.dynamic_update_slice %b into %x[%c0, %k] : tensor<4x2xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// Checkpoint regions are inlined; function attributes of tad are dropped.
// CHECK-LABEL: func.func @checkpoint
// CHECK-NOT: tad.
// CHECK: math.tanh
// CHECK: return
func.func @checkpoint(%x: tensor<3xf32>) -> tensor<3xf32> attributes {tad.checkpointed} {
  %0 = tad.checkpoint(%x) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %t = tad.tanh %a : tensor<3xf32>
    tad.yield %t : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tad.reduce_sum %x axes [0] : tensor<3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
// A derivative the AD pass did not generate cannot be lowered.
// expected-error @+1 {{derivative @g has no body: the tad-autodiff pass must generate it before lowering}}
func.func private @g(tensor<3xf32>) -> tensor<3xf32> attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}

// -----

// tad.empty is an uninitialized tensor: no fill, no constant to copy.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty() -> tensor<4x2xf32> {
  %0 = tad.empty : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A tape's start sits at the top of the function, as constants do; its
// tensor.empty goes just before the loop that writes it, where
// bufferization then allocates the buffer.
// CHECK-LABEL: func.func @empty_tape
// CHECK: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
func.func @empty_tape(%x: tensor<2xf32>) -> tensor<3x2xf32> {
  %e = tad.empty : tensor<3x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = tad.exp %x : tensor<2xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %e) -> (tensor<3x2xf32>) {
    %u = tad.update %y into %t[%i] : tensor<2xf32> into tensor<3x2xf32>
    scf.yield %u : tensor<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}
