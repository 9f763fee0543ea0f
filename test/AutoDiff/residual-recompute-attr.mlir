// A loop's tad.loop_residual_recompute (tadc sets it under a budget,
// docs/remat-loops.md#residual-tapes-with-a-share-computed-again) is the share, in percent, of the
// bytes of the residuals that cost memory (here: with tapes of their own;
// docs/autodiff.md names the others) that each reverse step
// computes again instead of reading, the cheapest to compute per byte
// first. The body's residuals: m (a matmul with K = 64: dear per byte) and
// e (an exp, cheap per byte); t, which the body yields, is the next row of
// the carried value's tape and costs nothing.
// RUN: tad-opt %s --tad-autodiff --canonicalize --cse | FileCheck %s --check-prefix=ALL
// RUN: sed 's/recompute = 0/recompute = 50/' %s | tad-opt --tad-autodiff --canonicalize --cse | FileCheck %s --check-prefix=HALF
// RUN: sed 's/recompute = 0/recompute = 100/' %s | tad-opt --tad-autodiff --canonicalize --cse | FileCheck %s --check-prefix=NONE
// RUN: sed 's/recompute = 0/recompute = 101/' %s | not tad-opt 2>&1 | FileCheck %s --check-prefix=BAD

func.func @f(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %a = scf.for %i = %c0 to %c8 step %c1 iter_args(%h = %x) -> (tensor<4x64xf32>) {
    %m = tad.matmul %h, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
    %s = tad.mul %m, %m : tensor<4x64xf32>
    %e = tad.exp %s : tensor<4x64xf32>
    %t = tad.tanh %e : tensor<4x64xf32>
    scf.yield %t : tensor<4x64xf32>
  } {tad.loop_residual_recompute = 0 : i64}
  return %a : tensor<4x64xf32>
}
func.func private @df(tensor<4x64xf32>, tensor<64x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    attributes {tad.derivative = #tad.derivative<vjp of @f wrt [0]>}

// 0%: the carried values' tape (9 rows: t of the last step too) and a tape
// each for m and e; the reverse step runs neither the matmul nor the exp.
// ALL-LABEL: func.func @df
// ALL: scf.for {{.*}} -> (tensor<4x64xf32>, tensor<9x4x64xf32>, tensor<8x4x64xf32>, tensor<8x4x64xf32>)
// ALL: scf.for
// ALL-NOT: tad.exp
// ALL: tad.matmul {{.*}} {transpose_rhs}
// ALL-NOT: tad.exp

// 50%: e's tape goes (half the bytes), and the reverse step computes e
// again from m's tape; the matmul is not run again.
// HALF-LABEL: func.func @df
// HALF: scf.for {{.*}} -> (tensor<4x64xf32>, tensor<9x4x64xf32>, tensor<8x4x64xf32>)
// HALF: scf.for
// HALF-NOT: tad.matmul {{%.*}}, %arg1 :
// HALF: tad.exp
// HALF: tad.matmul {{.*}} {transpose_rhs}

// 100%: only the carried values' tape; the reverse step runs the matmul
// and the exp again.
// NONE-LABEL: func.func @df
// NONE: scf.for {{.*}} -> (tensor<4x64xf32>, tensor<9x4x64xf32>)
// NONE: scf.for
// NONE: tad.matmul {{%.*}}, %arg1 :
// NONE: tad.exp
// NONE: tad.matmul {{.*}} {transpose_rhs}

// BAD: 'tad.loop_residual_recompute' must be an integer percentage (0 to 100), got 101 : i64
