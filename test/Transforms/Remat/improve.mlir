// tad-remat's `improve`: with it (the default) the schedule that fits is
// improved (the fast solver's windows, raised budgets); without it, the
// first schedule that fits is taken, as tad-choose-loop-snapshots's trials
// with the compile's own search do (they ask only whether a choice fits,
// which the improvements never decide). Both meet the budget; the first
// schedule recomputes more. The module is the derivative of program 14 of
// `test/Remat/random_budgets.py --count 200 --seed 0` before tad-remat, as
// `tadc --emit=ad --entry df --remat-budget=688` differentiates it
// (`--mlir-print-ir-before=tad-remat`), its loops' choice made.

// RUN: tad-opt %s --tad-remat="budget=688 entry=df summary=stderr" -o /dev/null 2>&1 | FileCheck %s --check-prefix=IMPROVE
// RUN: tad-opt %s --tad-remat="budget=688 entry=df improve=false summary=stderr" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIRST
// IMPROVE: remat @df: budget 688 B, predicted peak 680 B (store-all 944 B), recompute overhead 117.8% (fast solver)
// IMPROVE-NEXT: 5 forward values read by the backward sweep or recomputed: 2 stored, 3 recomputed
// FIRST: remat @df: budget 688 B, predicted peak 672 B (store-all 944 B), recompute overhead 190.6% (fast solver)
// FIRST-NEXT: 5 forward values read by the backward sweep or recomputed: 0 stored, 5 recomputed

module attributes {tad.loop_snapshot_choice = [{location = "p14.tad:19:3", residual_recompute = 25 : i64, residuals = true, snapshots = 0 : i64, trips = 2 : i64}, {location = "p14.tad:42:7", residual_recompute = 25 : i64, residuals = true, snapshots = 0 : i64, trips = 2 : i64}, {location = "p14.tad:48:5", residual_recompute = 25 : i64, residuals = true, snapshots = 0 : i64, trips = 2 : i64}]} {
  func.func @df(%arg0: tensor<2x3xf64> {tad.arg_name = "x"}, %arg1: tensor<3x3xf64> {tad.arg_name = "w"}, %arg2: tensor<2x3x3xf64> {tad.arg_name = "ws"}, %arg3: tensor<2x3xf64> {tad.arg_name = "u"}, %arg4: tensor<f64> {tad.arg_name = "s"}) -> (tensor<f64>, tensor<2x3xf64>, tensor<3x3xf64>, tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<f64>) attributes {tad.derivative = #tad.derivative<value_and_grad of @f wrt [0, 1, 2, 3, 4]>} {
    %0 = tad.constant dense<0.016666666666666666> : tensor<2x3xf64>
    %1 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
    %c1 = arith.constant {tad.recomputed} 1 : index
    %c2 = arith.constant {tad.recomputed} 2 : index
    %c0 = arith.constant {tad.recomputed} 0 : index
    %2 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
    %3 = tad.constant dense<0.000000e+00> : tensor<f64>
    %4 = tad.empty {tad.recomputed} : tensor<2x3x3xf64>
    %5 = tad.empty {tad.recomputed} : tensor<2x3x3xf64>
    %6 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
    %7 = tad.exp %arg0 {tad.forward} : tensor<2x3xf64>
    %8 = tad.add %7, %6 {tad.forward} : tensor<2x3xf64>
    %9 = tad.log %8 {tad.forward} : tensor<2x3xf64>
    %10 = tad.mul %9, %arg3 {tad.forward} : tensor<2x3xf64>
    %11 = tad.sigmoid %10 {tad.forward} : tensor<2x3xf64>
    %12 = tad.sub %11, %2 {tad.forward} : tensor<2x3xf64>
    %13:2 = tad.checkpoint(%12, %arg1, %arg4, %arg3, %3, %arg2) {tad.forward} : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<f64>, tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<f64>) {
    ^bb0(%arg5: tensor<2x3xf64>, %arg6: tensor<3x3xf64>, %arg7: tensor<f64>, %arg8: tensor<2x3xf64>, %arg9: tensor<f64>, %arg10: tensor<2x3x3xf64>):
      %79 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
      %80 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
      %81 = tad.exp %arg5 : tensor<2x3xf64>
      %82 = tad.add %81, %80 : tensor<2x3xf64>
      %83 = tad.log %82 : tensor<2x3xf64>
      %84 = tad.matmul %83, %arg6 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %85 = tad.tanh %84 : tensor<2x3xf64>
      %86 = tad.mul %85, %79 : tensor<2x3xf64>
      %87 = tad.mul %83, %79 : tensor<2x3xf64>
      %88 = tad.add %86, %87 : tensor<2x3xf64>
      %89 = tad.broadcast %arg7 dims [] : tensor<f64> -> tensor<2x3xf64>
      %90 = tad.mul %88, %89 : tensor<2x3xf64>
      %91 = tad.add %90, %arg8 : tensor<2x3xf64>
      %92 = tad.matmul %91, %arg6 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %93 = tad.tanh %92 : tensor<2x3xf64>
      %94 = tad.mul %93, %79 : tensor<2x3xf64>
      %95 = tad.mul %91, %79 : tensor<2x3xf64>
      %96 = tad.add %94, %95 : tensor<2x3xf64>
      %97:2 = tad.checkpoint(%arg9, %96, %arg6) : (tensor<f64>, tensor<2x3xf64>, tensor<3x3xf64>) -> (tensor<f64>, tensor<2x3xf64>) {
      ^bb0(%arg11: tensor<f64>, %arg12: tensor<2x3xf64>, %arg13: tensor<3x3xf64>):
        %99 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
        %100 = tad.constant dense<1.000000e-01> : tensor<f64>
        %101 = tad.mul %arg12, %arg12 : tensor<2x3xf64>
        %102 = tad.reduce_mean %101 axes [0, 1] : tensor<2x3xf64> -> tensor<f64>
        %103 = tad.mul %102, %100 : tensor<f64>
        %104 = tad.add %arg11, %103 : tensor<f64>
        %105 = tad.matmul %arg12, %arg13 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
        %106 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
        %107 = tad.exp %105 : tensor<2x3xf64>
        %108 = tad.add %107, %106 : tensor<2x3xf64>
        %109 = tad.log %108 : tensor<2x3xf64>
        %110 = tad.sub %109, %99 : tensor<2x3xf64>
        tad.yield %104, %110 : tensor<f64>, tensor<2x3xf64>
      }
      %98 = tad.checkpoint(%97#1, %arg10) : (tensor<2x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3xf64> {
      ^bb0(%arg11: tensor<2x3xf64>, %arg12: tensor<2x3x3xf64>):
        %99 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
        %c0_0 = arith.constant 0 : index
        %c2_1 = arith.constant 2 : index
        %c1_2 = arith.constant 1 : index
        %100 = scf.for %arg13 = %c0_0 to %c2_1 step %c1_2 iter_args(%arg14 = %arg11) -> (tensor<2x3xf64>) {
          %101 = tad.take %arg12[%arg13] : tensor<2x3x3xf64> -> tensor<3x3xf64>
          %102 = tad.matmul %arg14, %101 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
          %103 = tad.tanh %102 : tensor<2x3xf64>
          %104 = tad.sub %103, %99 : tensor<2x3xf64>
          scf.yield %104 : tensor<2x3xf64>
        }
        tad.yield %100 : tensor<2x3xf64>
      }
      tad.yield %98, %97#0 : tensor<2x3xf64>, tensor<f64>
    }
    %14 = tad.checkpoint(%13#0, %arg2) {tad.forward} : (tensor<2x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3xf64> {
    ^bb0(%arg5: tensor<2x3xf64>, %arg6: tensor<2x3x3xf64>):
      %79 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
      %c0_0 = arith.constant 0 : index
      %c2_1 = arith.constant 2 : index
      %c1_2 = arith.constant 1 : index
      %80 = scf.for %arg7 = %c0_0 to %c2_1 step %c1_2 iter_args(%arg8 = %arg5) -> (tensor<2x3xf64>) {
        %81 = tad.take %arg6[%arg7] : tensor<2x3x3xf64> -> tensor<3x3xf64>
        %82 = tad.matmul %arg8, %81 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
        %83 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
        %84 = tad.exp %82 : tensor<2x3xf64>
        %85 = tad.add %84, %83 : tensor<2x3xf64>
        %86 = tad.log %85 : tensor<2x3xf64>
        %87 = tad.sub %86, %79 : tensor<2x3xf64>
        scf.yield %87 : tensor<2x3xf64>
      }
      tad.yield %80 : tensor<2x3xf64>
    }
    %15 = tad.mul %14, %14 {tad.forward} : tensor<2x3xf64>
    %16 = tad.reduce_sum %15 axes [0, 1] {tad.forward} : tensor<2x3xf64> -> tensor<f64>
    %17 = tad.add %16, %13#1 {tad.forward} : tensor<f64>
    %18 = tad.add %14, %14 : tensor<2x3xf64>
    %19:2 = scf.for %arg5 = %c0 to %c2 step %c1 iter_args(%arg6 = %13#0, %arg7 = %5) -> (tensor<2x3xf64>, tensor<2x3x3xf64>) {
      %inserted_slice = tensor.insert_slice %arg6 into %arg7[%arg5, 0, 0] [1, 2, 3] [1, 1, 1] {tad.tape} : tensor<2x3xf64> into tensor<2x3x3xf64>
      %79 = tad.take %arg2[%arg5] : tensor<2x3x3xf64> -> tensor<3x3xf64>
      %80 = tad.matmul %arg6, %79 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %81 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
      %82 = tad.exp %80 : tensor<2x3xf64>
      %83 = tad.add %82, %81 : tensor<2x3xf64>
      %84 = tad.log %83 : tensor<2x3xf64>
      %85 = tad.sub %84, %2 : tensor<2x3xf64>
      scf.yield %85, %inserted_slice : tensor<2x3xf64>, tensor<2x3x3xf64>
    } {tad.recomputed, tad.reverse_reruns = 2 : i64}
    %20:2 = scf.for %arg5 = %c0 to %c2 step %c1 iter_args(%arg6 = %18, %arg7 = %19#1) -> (tensor<2x3xf64>, tensor<2x3x3xf64>) {
      %79 = arith.subi %c1, %arg5 : index
      %extracted_slice = tensor.extract_slice %arg7[%79, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<2x3x3xf64> to tensor<2x3xf64>
      %80 = tad.take %arg2[%79] : tensor<2x3x3xf64> -> tensor<3x3xf64>
      %81 = tad.matmul %extracted_slice, %80 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %82 = tad.sigmoid %81 : tensor<2x3xf64>
      %83 = tad.mul %arg6, %82 : tensor<2x3xf64>
      %84 = tad.matmul %extracted_slice, %83 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
      %85 = tad.matmul %83, %80 {transpose_rhs} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %86 = tad.update %84 into %arg7[%79] : tensor<3x3xf64> into tensor<2x3x3xf64>
      scf.yield %85, %86 : tensor<2x3xf64>, tensor<2x3x3xf64>
    }
    %21 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
    %22 = tad.exp %12 : tensor<2x3xf64>
    %23 = tad.add %22, %21 : tensor<2x3xf64>
    %24 = tad.log %23 : tensor<2x3xf64>
    %25 = tad.matmul %24, %arg1 {tad.recomputed} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %26 = tad.tanh %25 {tad.recomputed} : tensor<2x3xf64>
    %27 = tad.mul %26, %2 {tad.recomputed} : tensor<2x3xf64>
    %28 = tad.mul %24, %2 {tad.recomputed} : tensor<2x3xf64>
    %29 = tad.add %27, %28 {tad.recomputed} : tensor<2x3xf64>
    %30 = tad.broadcast %arg4 dims [] {tad.recomputed} : tensor<f64> -> tensor<2x3xf64>
    %31 = tad.mul %29, %30 {tad.recomputed} : tensor<2x3xf64>
    %32 = tad.add %31, %arg3 {tad.recomputed} : tensor<2x3xf64>
    %33 = tad.matmul %32, %arg1 {tad.recomputed} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %34 = tad.tanh %33 {tad.recomputed} : tensor<2x3xf64>
    %35 = tad.mul %34, %2 {tad.recomputed} : tensor<2x3xf64>
    %36 = tad.mul %32, %2 {tad.recomputed} : tensor<2x3xf64>
    %37 = tad.add %35, %36 {tad.recomputed} : tensor<2x3xf64>
    %38:2 = tad.checkpoint(%3, %37, %arg1) {tad.recomputed} : (tensor<f64>, tensor<2x3xf64>, tensor<3x3xf64>) -> (tensor<f64>, tensor<2x3xf64>) {
    ^bb0(%arg5: tensor<f64>, %arg6: tensor<2x3xf64>, %arg7: tensor<3x3xf64>):
      %79 = tad.constant dense<5.000000e-01> : tensor<2x3xf64>
      %80 = tad.constant dense<1.000000e-01> : tensor<f64>
      %81 = tad.mul %arg6, %arg6 : tensor<2x3xf64>
      %82 = tad.reduce_mean %81 axes [0, 1] : tensor<2x3xf64> -> tensor<f64>
      %83 = tad.mul %82, %80 : tensor<f64>
      %84 = tad.add %arg5, %83 : tensor<f64>
      %85 = tad.matmul %arg6, %arg7 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %86 = tad.constant dense<1.000000e+00> : tensor<2x3xf64>
      %87 = tad.exp %85 : tensor<2x3xf64>
      %88 = tad.add %87, %86 : tensor<2x3xf64>
      %89 = tad.log %88 : tensor<2x3xf64>
      %90 = tad.sub %89, %79 : tensor<2x3xf64>
      tad.yield %84, %90 : tensor<f64>, tensor<2x3xf64>
    }
    %39:2 = scf.for %arg5 = %c0 to %c2 step %c1 iter_args(%arg6 = %38#1, %arg7 = %4) -> (tensor<2x3xf64>, tensor<2x3x3xf64>) {
      %inserted_slice = tensor.insert_slice %arg6 into %arg7[%arg5, 0, 0] [1, 2, 3] [1, 1, 1] {tad.tape} : tensor<2x3xf64> into tensor<2x3x3xf64>
      %79 = tad.take %arg2[%arg5] : tensor<2x3x3xf64> -> tensor<3x3xf64>
      %80 = tad.matmul %arg6, %79 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %81 = tad.tanh %80 : tensor<2x3xf64>
      %82 = tad.sub %81, %2 : tensor<2x3xf64>
      scf.yield %82, %inserted_slice : tensor<2x3xf64>, tensor<2x3x3xf64>
    } {tad.recomputed, tad.reverse_reruns = 2 : i64}
    %40:2 = scf.for %arg5 = %c0 to %c2 step %c1 iter_args(%arg6 = %20#0, %arg7 = %39#1) -> (tensor<2x3xf64>, tensor<2x3x3xf64>) {
      %79 = arith.subi %c1, %arg5 : index
      %extracted_slice = tensor.extract_slice %arg7[%79, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<2x3x3xf64> to tensor<2x3xf64>
      %80 = tad.take %arg2[%79] : tensor<2x3x3xf64> -> tensor<3x3xf64>
      %81 = tad.matmul %extracted_slice, %80 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %82 = tad.tanh %81 : tensor<2x3xf64>
      %83 = tad.mul %82, %82 : tensor<2x3xf64>
      %84 = tad.sub %1, %83 : tensor<2x3xf64>
      %85 = tad.mul %arg6, %84 : tensor<2x3xf64>
      %86 = tad.matmul %extracted_slice, %85 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
      %87 = tad.matmul %85, %80 {transpose_rhs} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
      %88 = tad.update %86 into %arg7[%79] : tensor<3x3xf64> into tensor<2x3x3xf64>
      scf.yield %87, %88 : tensor<2x3xf64>, tensor<2x3x3xf64>
    }
    %41 = tad.matmul %37, %arg1 {tad.recomputed} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %42 = tad.sigmoid %41 : tensor<2x3xf64>
    %43 = tad.mul %40#0, %42 : tensor<2x3xf64>
    %44 = tad.matmul %37, %43 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
    %45 = tad.matmul %43, %arg1 {transpose_rhs} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %46 = tad.mul %37, %0 : tensor<2x3xf64>
    %47 = tad.add %45, %46 : tensor<2x3xf64>
    %48 = tad.add %47, %46 : tensor<2x3xf64>
    %49 = tad.mul %48, %2 : tensor<2x3xf64>
    %50 = tad.mul %34, %34 : tensor<2x3xf64>
    %51 = tad.sub %1, %50 : tensor<2x3xf64>
    %52 = tad.mul %49, %51 : tensor<2x3xf64>
    %53 = tad.matmul %32, %52 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
    %54 = tad.matmul %52, %arg1 {transpose_rhs} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %55 = tad.add %49, %54 : tensor<2x3xf64>
    %56 = tad.add %44, %53 : tensor<3x3xf64>
    %57 = tad.mul %55, %30 : tensor<2x3xf64>
    %58 = tad.mul %55, %29 : tensor<2x3xf64>
    %59 = tad.reduce_sum %58 axes [0, 1] : tensor<2x3xf64> -> tensor<f64>
    %60 = tad.mul %57, %2 : tensor<2x3xf64>
    %61 = tad.mul %26, %26 : tensor<2x3xf64>
    %62 = tad.sub %1, %61 : tensor<2x3xf64>
    %63 = tad.mul %60, %62 : tensor<2x3xf64>
    %64 = tad.matmul %24, %63 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
    %65 = tad.matmul %63, %arg1 {transpose_rhs} : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %66 = tad.add %60, %65 : tensor<2x3xf64>
    %67 = tad.add %56, %64 : tensor<3x3xf64>
    %68 = tad.sigmoid %12 : tensor<2x3xf64>
    %69 = tad.mul %66, %68 : tensor<2x3xf64>
    %70 = tad.add %20#1, %40#1 : tensor<2x3x3xf64>
    %71 = tad.sub %1, %11 : tensor<2x3xf64>
    %72 = tad.mul %11, %71 : tensor<2x3xf64>
    %73 = tad.mul %69, %72 : tensor<2x3xf64>
    %74 = tad.mul %73, %arg3 : tensor<2x3xf64>
    %75 = tad.mul %73, %9 : tensor<2x3xf64>
    %76 = tad.add %55, %75 : tensor<2x3xf64>
    %77 = tad.sigmoid %arg0 : tensor<2x3xf64>
    %78 = tad.mul %74, %77 : tensor<2x3xf64>
    return %17, %78, %67, %70, %76, %59 : tensor<f64>, tensor<2x3xf64>, tensor<3x3xf64>, tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<f64>
  }
}


