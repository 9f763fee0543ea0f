// RUN: tad-opt %s --split-input-file --tad-tile-gpu-matmuls | FileCheck %s

// A matmul becomes one kernel of 16x16-thread blocks, one per 64x64 tile
// of the output (ceil(N/64) * ceil(M/64) * batches in x, which allows
// 2^31 - 1 blocks); each thread computes 4x4 elements of the tile, its
// rows ty + 16r and columns tx + 16c, so that a warp's threads store
// neighbouring elements. Shared memory holds a 64x16 tile of A and a 16x64
// tile of B, each a column wider. The fill just before it is the sums'
// start, not a loop of its own. For each 16-wide step of k, each thread
// copies 4 elements of each tile (0 past the operands' ends), waits, adds
// the products of its rows and columns over the step (to K at most: no
// padding is added to a sum), and waits again; then it stores the
// elements inside the output.
// CHECK-LABEL: func.func @filled
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[COLUMNS:.*]] = arith.ceildivui %c29{{.*}}, %[[C64]]
// CHECK-DAG:     %[[ROWS:.*]] = arith.ceildivui %c37{{.*}}, %[[C64]]
// CHECK:         %[[TILES:.*]] = arith.muli %[[COLUMNS]], %[[ROWS]]
// CHECK:         %[[GRID:.*]] = arith.muli %[[TILES]], %c1
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[GRID]], {{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in ({{.*}} = %[[C16]], {{.*}} = %[[C16]], {{.*}}) workgroup(%[[A:.*]] : memref<64x17xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<16x65xf32, #gpu.address_space<workgroup>>)
// CHECK:           arith.remui %[[BX]], %[[COLUMNS]]
// CHECK:           %[[SUMS:.*]]:16 = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %[[DEPTH:.*]] iter_args(%{{.*}} = %[[ZERO]], {{.*}}) -> ({{(f32, )+}}f32)
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[A]][%{{.*}}, %[[TX]]]
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[B]][%[[TY]], %{{.*}}]
// CHECK:             gpu.barrier
// CHECK:             %[[LEFT:.*]] = arith.subi %{{.*}}, %[[K0]]
// CHECK:             %[[STEPS:.*]] = arith.minui %[[DEPTH]], %[[LEFT]]
// CHECK:             scf.for %[[KK:.*]] = %{{.*}} to %[[STEPS]]
// CHECK-COUNT-4:       memref.load %[[A]][%{{.*}}, %[[KK]]]
// CHECK-COUNT-4:       memref.load %[[B]][%[[KK]], %{{.*}}]
// CHECK-COUNT-16:      arith.mulf
// CHECK:             gpu.barrier
// CHECK-COUNT-16:  memref.store %[[SUMS]]#{{[0-9]+}}, %arg2
// CHECK-NOT:     linalg.matmul
func.func @filled(%a: memref<37x45xf32>, %b: memref<45x29xf32>, %c: memref<37x29xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<37x29xf32>)
  linalg.matmul ins(%a, %b : memref<37x45xf32>, memref<45x29xf32>) outs(%c : memref<37x29xf32>)
  return
}

// -----

// Without a fill, each sum starts from the output's element. Transposed
// operands are copied along their last dimension (a warp's loads are
// neighbours) into the tiles' columns. The batch is the block's index
// divided by the tiles of a matrix.
#mapA = affine_map<(b, m, n, k) -> (b, k, m)>
#mapB = affine_map<(b, m, n, k) -> (b, n, k)>
#mapC = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @accumulate_transposed
// CHECK:         %[[TILES:.*]] = arith.muli
// CHECK:         arith.muli %[[TILES]], %c2
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in
// CHECK:           %[[REST:.*]] = arith.divui %[[BX]]
// CHECK:           %[[BZ:.*]] = arith.divui %[[REST]]
// CHECK:           scf.if
// CHECK-NEXT:        memref.load %arg2[%[[BZ]],
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK-NEXT:          memref.load %arg0[%[[BZ]], %{{.*}}, %{{.*}}] : memref<2x45x37xf64>
// CHECK:             memref.store %{{.*}}[%{{.*}}, %[[TY]]] : memref<64x17xf64
// CHECK:             memref.load %arg1[%[[BZ]], %{{.*}}, %{{.*}}] : memref<2x29x45xf64>
// CHECK:             memref.store %{{.*}}[%[[TX]], %{{.*}}] : memref<16x65xf64
func.func @accumulate_transposed(%a: memref<2x45x37xf64>, %b: memref<2x29x45xf64>, %c: memref<2x37x29xf64>) {
  linalg.batch_matmul indexing_maps = [#mapA, #mapB, #mapC] ins(%a, %b : memref<2x45x37xf64>, memref<2x29x45xf64>) outs(%c : memref<2x37x29xf64>)
  return
}

// -----

// An elementwise op after the matmul (past frees) that reads its output
// element by element is computed by the thread that finished the element:
// here a bias added in place.
// CHECK-LABEL: func.func @bias
// CHECK:         %[[C:.*]] = memref.alloc()
// CHECK:         gpu.launch
// CHECK:           %[[SUM:[0-9]+]]:16 = scf.for
// CHECK:             gpu.barrier
// CHECK:           memref.store %[[SUM]]#0, %[[C]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT:        %[[BIAS:.*]] = memref.load %arg2[%[[J]]]
// CHECK-NEXT:        %[[ADDED:.*]] = arith.addf %[[SUM]]#0, %[[BIAS]]
// CHECK-NEXT:        memref.store %[[ADDED]], %[[C]][%[[I]], %[[J]]]
// CHECK:         memref.dealloc
// CHECK-NOT:     linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bias(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %bias: memref<8xf32>, %dead: memref<4xf32>) -> memref<8x8xf32> {
  %c = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  memref.dealloc %dead : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x8xf32>, memref<8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return %c : memref<8x8xf32>
}

// -----

// A transposed write is an epilogue too: the iteration whose read of the
// output is the thread's own element writes the element's transposed
// place, in a buffer that the kernel does not read.
// CHECK-LABEL: func.func @transposed_copy
// CHECK:         gpu.launch
// CHECK:           %[[SUM:[0-9]+]]:16 = scf.for
// CHECK:             gpu.barrier
// CHECK:           memref.store %[[SUM]]#0, %[[C:.*]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT:      memref.store %[[SUM]]#0, %[[D:.*]][%[[J]], %[[I]]]
// CHECK-NOT:     linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
func.func @transposed_copy(%a: memref<8x8xf32>, %b: memref<8x8xf32>) -> memref<8x8xf32> {
  %c = memref.alloc() : memref<8x8xf32>
  %d = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%d : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %c : memref<8x8xf32>
  return %d : memref<8x8xf32>
}

// -----

// Not fused: an elementwise op that writes a matmul operand (other blocks
// still read it), or that reads the output at two places (one of them
// another thread's element).
// CHECK-LABEL: func.func @not_epilogues
// CHECK:         gpu.launch
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
func.func @not_epilogues(%a: memref<8x8xf32>, %b: memref<8x8xf32>) -> memref<8x8xf32> {
  %c = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  %d = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%c, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %d : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<8x8xf32>
  return %d : memref<8x8xf32>
}

// -----

// Not fused either: an elementwise op whose other input is read at a
// constant index (a row's value as `[rows, 1]`, at 0), which is not an
// iteration's own index (it crashed the pass).
// CHECK-LABEL: func.func @constant_index
// CHECK:         gpu.launch
// CHECK:         linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#unit = affine_map<(i, j) -> (i, 0)>
func.func @constant_index(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %m: memref<8x1xf32>) -> memref<8x8xf32> {
  %c = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #unit, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : memref<8x8xf32>, memref<8x1xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  }
  return %c : memref<8x8xf32>
}

// -----

// Integer matmuls stay linalg ops (loops, one thread per element).
// CHECK-LABEL: func.func @integers
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.matmul
func.func @integers(%a: memref<4x5xi32>, %b: memref<5x6xi32>, %c: memref<4x6xi32>) {
  linalg.matmul ins(%a, %b : memref<4x5xi32>, memref<5x6xi32>) outs(%c : memref<4x6xi32>)
  return
}
