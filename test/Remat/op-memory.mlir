// Each tad op's declared memory behavior (MemoryModelOpInterface,
// dialects/tad/TadMemoryModel.cpp) against its lowering: for one function
// per op, or per producer and reader, the store-all peak of the remat
// pass's graph equals the peak that tad-buffer-peak plans for the lowered
// function. f32 sums accumulate in f64 and f16 ones in f32; an elementwise
// result is written into a dying input's buffer.

// RUN: tad-opt %s --tad-test-memory-model --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: @tanh: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.tanh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK: @sum_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @sum_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tad.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK: @softmax: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.softmax %x axis 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK: @softmax_f64: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @softmax_f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.softmax %x axis 1 : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// CHECK: @softmax_tail_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @softmax_tail_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.softmax %x axis 1 : tensor<4x8xf32>
  %1 = tad.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CHECK: @softmax_tail_f64: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @softmax_tail_f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.softmax %x axis 1 : tensor<4x8xf64>
  %1 = tad.tanh %0 : tensor<4x8xf64>
  return %1 : tensor<4x8xf64>
}

// CHECK: @lse_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @lse_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tad.logsumexp %x axis 1 : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK: @lse_f64: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @lse_f64(%x: tensor<4x8xf64>) -> tensor<4xf64> {
  %0 = tad.logsumexp %x axis 1 : tensor<4x8xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// CHECK: @lse_tail_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @lse_tail_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tad.logsumexp %x axis 1 : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tad.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// The one known difference: the elementwise reader of an f64 logsumexp
// whose last step fuses into it writes into the row sums' buffer, which the
// model counts as a buffer of its own (an over-count, never an under-count).
// CHECK: @lse_tail_f64: model peak 96 bytes, planned peak 64 bytes
func.func @lse_tail_f64(%x: tensor<4x8xf64>) -> tensor<4xf64> {
  %0 = tad.logsumexp %x axis 1 : tensor<4x8xf64> -> tensor<4xf64>
  %1 = tad.tanh %0 : tensor<4xf64>
  return %1 : tensor<4xf64>
}

// CHECK: @sum_tail_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @sum_tail_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tad.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tad.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK: @mean_f16: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @mean_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %0 = tad.reduce_mean %x axes [1] : tensor<4x8xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK: @max_f32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @max_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tad.reduce_max %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK: @sum_of_exp: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @sum_of_exp(%x: tensor<4x8xf64>) -> tensor<4xf64> {
  %0 = tad.exp %x : tensor<4x8xf64>
  %1 = tad.reduce_sum %0 axes [1] : tensor<4x8xf64> -> tensor<4xf64>
  return %1 : tensor<4xf64>
}

// CHECK: @transpose: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @transpose(%x: tensor<4x8xf64>) -> tensor<8x4xf64> {
  %0 = tad.transpose %x [1, 0] : tensor<4x8xf64> -> tensor<8x4xf64>
  %1 = tad.exp %0 : tensor<8x4xf64>
  return %1 : tensor<8x4xf64>
}

// CHECK: @matmul: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @matmul(%x: tensor<4x8xf64>, %w: tensor<8x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.matmul %x, %w : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// CHECK: @matmul_tanh: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @matmul_tanh(%x: tensor<4x8xf64>, %w: tensor<8x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.matmul %x, %w : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
  %1 = tad.tanh %0 : tensor<4x8xf64>
  return %1 : tensor<4x8xf64>
}

// CHECK: @concat: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @concat(%x: tensor<4x8xf64>) -> tensor<8x8xf64> {
  %0 = tad.concat %x, %x axis 0 : tensor<4x8xf64>, tensor<4x8xf64> -> tensor<8x8xf64>
  return %0 : tensor<8x8xf64>
}

// CHECK: @reshape: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @reshape(%x: tensor<4x8xf64>) -> tensor<32xf64> {
  %0 = tad.exp %x : tensor<4x8xf64>
  %1 = tad.reshape %0 : tensor<4x8xf64> -> tensor<32xf64>
  %2 = tad.tanh %1 : tensor<32xf64>
  return %2 : tensor<32xf64>
}

// CHECK: @broadcast: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @broadcast(%x: tensor<8xf64>) -> tensor<4x8xf64> {
  %0 = tad.broadcast %x dims [1] : tensor<8xf64> -> tensor<4x8xf64>
  %1 = tad.exp %0 : tensor<4x8xf64>
  return %1 : tensor<4x8xf64>
}

// CHECK: @cast: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @cast(%x: tensor<4x8xf32>) -> tensor<4x8xf16> {
  %0 = tad.exp %x : tensor<4x8xf32>
  %1 = tad.cast %0 : tensor<4x8xf32> -> tensor<4x8xf16>
  return %1 : tensor<4x8xf16>
}

// CHECK: @compare_select: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @compare_select(%x: tensor<4x8xf64>, %y: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %c = tad.compare lt, %x, %y : tensor<4x8xf64>
  %z = tad.select %c, %x, %y : tensor<4x8xf64>
  return %z : tensor<4x8xf64>
}

// CHECK: @compare: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @compare(%x: tensor<4x8xf64>, %y: tensor<4x8xf64>) -> tensor<4x8xi1> {
  %c = tad.compare lt, %x, %y : tensor<4x8xf64>
  return %c : tensor<4x8xi1>
}

// CHECK: @slice: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @slice(%x: tensor<4x8xf64>) -> tensor<2x3xf64> {
  %0 = tad.exp %x : tensor<4x8xf64>
  %1 = tad.slice %0 start [0, 1] limit [2, 4] step [1, 1] : tensor<4x8xf64> -> tensor<2x3xf64>
  %2 = tad.tanh %1 : tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}

// CHECK: @insert_slice: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @insert_slice(%s: tensor<2x2xf64>, %x: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %0 = tad.exp %x : tensor<2x4xf64>
  %r = tad.insert_slice %s into %0 start [0, 1] step [1, 2] : tensor<2x2xf64> into tensor<2x4xf64>
  return %r : tensor<2x4xf64>
}

// CHECK: @take_update: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @take_update(%ws: tensor<3x4x8xf64>, %i: index) -> tensor<3x4x8xf64> {
  %0 = tad.exp %ws : tensor<3x4x8xf64>
  %1 = tad.take %0[%i] : tensor<3x4x8xf64> -> tensor<4x8xf64>
  %2 = tad.tanh %1 : tensor<4x8xf64>
  %3 = tad.update %2 into %0[%i] : tensor<4x8xf64> into tensor<3x4x8xf64>
  return %3 : tensor<3x4x8xf64>
}

// CHECK: @stop_gradient: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @stop_gradient(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = tad.exp %x : tensor<4x8xf64>
  %1 = tad.stop_gradient %0 : tensor<4x8xf64>
  %2 = tad.tanh %1 : tensor<4x8xf64>
  return %2 : tensor<4x8xf64>
}

// A result whose only reader is an update in place is written straight into
// the destination's row (eliminate-empty-tensors): a loop filling a stacked
// gradient allocates only the stack.
// CHECK: @row_into_accumulator: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @row_into_accumulator(%x: tensor<4x8xf64>, %w: tensor<8x8xf64>) -> tensor<3x4x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = tad.constant dense<0.0> : tensor<3x4x8xf64>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z) -> (tensor<3x4x8xf64>) {
    %m = tad.matmul %x, %w : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
    %u = tad.update %m into %acc[%i] : tensor<4x8xf64> into tensor<3x4x8xf64>
    scf.yield %u : tensor<3x4x8xf64>
  }
  return %r : tensor<3x4x8xf64>
}

// Unless the result reads the destination itself: then bufferization
// writes it to a buffer of its own and copies it into the row.
// CHECK: @row_reads_accumulator: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @row_reads_accumulator(%w: tensor<8x8xf64>) -> tensor<3x4x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = tad.constant dense<1.0> : tensor<3x4x8xf64>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z) -> (tensor<3x4x8xf64>) {
    %row = tad.take %acc[%i] : tensor<3x4x8xf64> -> tensor<4x8xf64>
    %m = tad.matmul %row, %w : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
    %u = tad.update %m into %acc[%i] : tensor<4x8xf64> into tensor<3x4x8xf64>
    scf.yield %u : tensor<3x4x8xf64>
  }
  return %r : tensor<3x4x8xf64>
}

// A tape that starts as tad.empty: one uninitialized buffer, allocated
// before the loop and written in place by it, as a constant's copy is.
// CHECK: @empty_tape: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @empty_tape(%x: tensor<4x8xf64>, %w: tensor<8x8xf64>) -> (tensor<4x8xf64>, tensor<3x4x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tad.empty : tensor<3x4x8xf64>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x, %tape = %e) -> (tensor<4x8xf64>, tensor<3x4x8xf64>) {
    %t = tad.update %h into %tape[%i] : tensor<4x8xf64> into tensor<3x4x8xf64>
    %m = tad.matmul %h, %w : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
    %n = tad.tanh %m : tensor<4x8xf64>
    scf.yield %n, %t : tensor<4x8xf64>, tensor<3x4x8xf64>
  }
  return %r#0, %r#1 : tensor<4x8xf64>, tensor<3x4x8xf64>
}

// A collective's result is a buffer of its own; MPI reads the operand's
// in place, at any offset when it is a contiguous view (rows, a row of a
// stacked tensor, a reshape), and a copy of another view (a block of
// columns), made while the view's source is alive.
// CHECK: @all_reduce: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @all_reduce(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.tanh %x : tensor<4x8xf32>
  %1 = tad.all_reduce mean, %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CHECK: @all_reduce_rows: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @all_reduce_rows(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %t = tad.tanh %x : tensor<4x8xf32>
  %0 = tad.slice %t start [1, 0] limit [3, 8] step [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  %1 = tad.all_reduce sum, %0 : tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// CHECK: @all_reduce_columns: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @all_reduce_columns(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %t = tad.tanh %x : tensor<4x8xf32>
  %0 = tad.slice %t start [1, 2] limit [3, 6] step [1, 1] : tensor<4x8xf32> -> tensor<2x4xf32>
  %1 = tad.all_reduce sum, %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// CHECK: @all_reduce_row: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @all_reduce_row(%x: tensor<4xf64>) -> tensor<f64> {
  %t = tad.tanh %x : tensor<4xf64>
  %c = arith.constant 2 : index
  %0 = tad.take %t[%c] : tensor<4xf64> -> tensor<f64>
  %1 = tad.all_reduce mean, %0 : tensor<f64>
  return %1 : tensor<f64>
}

// CHECK: @all_reduce_reshape: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @all_reduce_reshape(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %t = tad.tanh %x : tensor<4x8xf32>
  %0 = tad.reshape %t : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tad.all_reduce sum, %0 : tensor<32xf32>
  return %1 : tensor<32xf32>
}

// Integers and token ids.

// CHECK: @sum_i32: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @sum_i32(%x: tensor<4x64xi32>) -> tensor<4xi32> {
  %0 = tad.reduce_sum %x axes [1] : tensor<4x64xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK: @cast_int: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @cast_int(%x: tensor<4x8xf32>) -> tensor<4x8xi64> {
  %0 = tad.exp %x : tensor<4x8xf32>
  %1 = tad.cast %0 : tensor<4x8xf32> -> tensor<4x8xi64>
  return %1 : tensor<4x8xi64>
}

// A gather fuses with its elementwise reader; the table stays whole.
// CHECK: @gather: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @gather(%t: tensor<50x8xf32>, %ids: tensor<4x6xi32>) -> tensor<4x6x8xf32> {
  %0 = tad.exp %t : tensor<50x8xf32>
  %1 = tad.gather %0[%ids] axis 0 : tensor<50x8xf32>, tensor<4x6xi32> -> tensor<4x6x8xf32>
  %2 = tad.tanh %1 : tensor<4x6x8xf32>
  return %2 : tensor<4x6x8xf32>
}

// CHECK: @gather_alone: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @gather_alone(%t: tensor<5x50x8xf64>, %ids: tensor<7xi64>) -> tensor<5x7x8xf64> {
  %1 = tad.gather %t[%ids] axis 1 : tensor<5x50x8xf64>, tensor<7xi64> -> tensor<5x7x8xf64>
  return %1 : tensor<5x7x8xf64>
}

// A scatter_add writes into its operand's buffer: a copy of the zeros.
// CHECK: @scatter_add: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @scatter_add(%d: tensor<4x6x8xf32>, %ids: tensor<4x6xi32>) -> tensor<50x8xf32> {
  %z = tad.constant dense<0.0> : tensor<50x8xf32>
  %0 = tad.exp %d : tensor<4x6x8xf32>
  %1 = tad.scatter_add %0 into %z[%ids] axis 0 : tensor<4x6x8xf32>, tensor<4x6xi32> into tensor<50x8xf32>
  return %1 : tensor<50x8xf32>
}

// CHECK: @scatter_add_dying: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @scatter_add_dying(%d: tensor<3x8xf64>, %t: tensor<10x8xf64>, %ids: tensor<3xi64>) -> tensor<10x8xf64> {
  %0 = tad.exp %t : tensor<10x8xf64>
  %1 = tad.scatter_add %d into %0[%ids] axis 0 : tensor<3x8xf64>, tensor<3xi64> into tensor<10x8xf64>
  return %1 : tensor<10x8xf64>
}

// CHECK: @iota_mask: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @iota_mask(%s: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %c = tad.constant dense<-1.0e9> : tensor<16x16xf32>
  %0 = tad.iota axis 0 : tensor<16x16xi32>
  %1 = tad.iota axis 1 : tensor<16x16xi32>
  %2 = tad.compare ge, %0, %1 : tensor<16x16xi32>
  %3 = tad.select %2, %s, %c : tensor<16x16xf32>
  return %3 : tensor<16x16xf32>
}

// CHECK: @argmax: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @argmax(%x: tensor<8x50xf32>) -> tensor<8xi32> {
  %0 = tad.exp %x : tensor<8x50xf32>
  %1 = tad.argmax %0 axis 1 : tensor<8x50xf32> -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// CHECK: @random: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @random(%key: tensor<i64>, %i: index) -> tensor<4x8xf32> {
  %k = tad.fold_in %key, %i : tensor<i64>, index
  %0 = tad.random %k uniform : tensor<i64> -> tensor<4x8xf32>
  %1 = tad.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CHECK: @fold_in_tensor: model peak [[P:[0-9]+]] bytes, planned peak [[P]] bytes
func.func @fold_in_tensor(%key: tensor<i64>, %n: tensor<i32>) -> tensor<4xf64> {
  %c = tad.constant dense<3> : tensor<i32>
  %s = tad.add %n, %c : tensor<i32>
  %k = tad.fold_in %key, %s : tensor<i64>, tensor<i32>
  %0 = tad.random %k normal : tensor<i64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
