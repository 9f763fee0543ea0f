// The remat graph's store-all peak against the buffer plan's where regions
// make them part (docs/remat-model.md): a loop's results are freed each
// after its own last reader, one that nothing reads as the loop ends; a
// nested block runs as written, so a buffer that a later op of it writes
// into is allocated where its producer is; loops that fill one tape
// (tad.empty) in turn share its buffer. Each function peaks where the
// model used to part from the plan (each by 48 to 96 bytes).

// RUN: tad-opt %s --tad-test-memory-model --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: tad-opt %s --tad-test-memory-model=explain --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// The add writes into the matmul's buffer, with two ops between them: the
// matmul's buffer lives from where it is, and the loop's carried value
// dies at it.
// CHECK: @nested_reuse: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @nested_reuse(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>, %v: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v2 = tad.matmul %v, %w : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%g = %x, %acc = %v2) -> (tensor<2x3xf64>, tensor<3x3xf64>) {
    %m = tad.matmul %g, %g {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
    %n = tad.matmul %x, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %e = tad.tanh %n : tensor<2x3xf64>
    %acc2 = tad.add %acc, %m : tensor<3x3xf64>
    scf.yield %e, %acc2 : tensor<2x3xf64>, tensor<3x3xf64>
  }
  return %r#1 : tensor<3x3xf64>
}

// One-Shot Bufferize gives both loops the one tape buffer: it is live
// between them, beside the matmuls there.
// CHECK: @shared_tape: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
// EXPLAIN-LABEL: @shared_tape: model peak 288 bytes, planned peak 288 bytes
// EXPLAIN:      the model holds at its peak:
// EXPLAIN-NEXT:   96 v{{[0-9]+}} tad.empty at
// EXPLAIN-NEXT:   72 v{{[0-9]+}} tad.matmul at
// EXPLAIN-NEXT:   72 v{{[0-9]+}} tad.matmul at
// EXPLAIN-NEXT:   48 v{{[0-9]+}} scf.for at
// EXPLAIN-NEXT: the plan holds at its peak:
// EXPLAIN-NEXT:   96 loc(
// EXPLAIN-NEXT:   72 loc(
// EXPLAIN-NEXT:   72 loc(
// EXPLAIN-NEXT:   48 loc(
func.func @shared_tape(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> (tensor<2x3xf64>, tensor<2x2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %tape = tad.empty : tensor<2x2x3xf64>
  %a:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%h = %x, %t = %tape) -> (tensor<2x3xf64>, tensor<2x2x3xf64>) {
    %u = tad.update %h into %t[%i] {tad.tape} : tensor<2x3xf64> into tensor<2x2x3xf64>
    %m = tad.matmul %h, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %n = tad.tanh %m : tensor<2x3xf64>
    scf.yield %n, %u : tensor<2x3xf64>, tensor<2x2x3xf64>
  }
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%g = %a#0) -> (tensor<2x3xf64>) {
    %r = tad.take %a#1[%i] : tensor<2x2x3xf64> -> tensor<2x3xf64>
    %p = tad.mul %g, %r : tensor<2x3xf64>
    scf.yield %p : tensor<2x3xf64>
  }
  %k1 = tad.matmul %w, %w : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %k2 = tad.matmul %k1, %w : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %big = tad.matmul %s, %k2 : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
  %b:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%h = %big, %t = %tape) -> (tensor<2x3xf64>, tensor<2x2x3xf64>) {
    %u = tad.update %h into %t[%i] {tad.tape} : tensor<2x3xf64> into tensor<2x2x3xf64>
    %m = tad.matmul %h, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %n = tad.tanh %m : tensor<2x3xf64>
    scf.yield %n, %u : tensor<2x3xf64>, tensor<2x2x3xf64>
  }
  return %b#0, %b#1 : tensor<2x3xf64>, tensor<2x2x3xf64>
}

// The reverse loop's gradient is freed after its one reader, although the
// loop also fills the tape that is returned; the forward loop's carried
// value, which nothing reads, is freed as the loop ends.
// CHECK: @loop_results: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @loop_results(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<2x2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %tape = tad.empty : tensor<2x2x3xf64>
  %f:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%h = %x, %t = %tape) -> (tensor<2x3xf64>, tensor<2x2x3xf64>) {
    %u = tad.update %h into %t[%i] {tad.tape} : tensor<2x3xf64> into tensor<2x2x3xf64>
    %m = tad.matmul %h, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %n = tad.tanh %m : tensor<2x3xf64>
    scf.yield %n, %u : tensor<2x3xf64>, tensor<2x2x3xf64>
  }
  %g0 = tad.matmul %x, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%g = %g0, %t = %f#1) -> (tensor<2x3xf64>, tensor<2x2x3xf64>) {
    %j = arith.subi %c1, %i : index
    %row = tad.take %t[%j] : tensor<2x2x3xf64> -> tensor<2x3xf64>
    %p = tad.mul %g, %row : tensor<2x3xf64>
    %q = tad.matmul %p, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
    %t2 = tad.update %p into %t[%j] : tensor<2x3xf64> into tensor<2x2x3xf64>
    scf.yield %q, %t2 : tensor<2x3xf64>, tensor<2x2x3xf64>
  }
  %k = tad.matmul %r#0, %r#0 {transpose_lhs} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<3x3xf64>
  %k1 = tad.matmul %k, %w : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %k2 = tad.matmul %k1, %k : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  return %k2, %r#1 : tensor<3x3xf64>, tensor<2x2x3xf64>
}
