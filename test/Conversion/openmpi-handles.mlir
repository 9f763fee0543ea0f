// MLIR 22's MPIToLLVM names Open MPI's MPI_SUM `ompi_mpi_sum`; libmpi
// defines `ompi_mpi_op_sum`. tad-openmpi-handles renames the global and
// its uses, and leaves other globals alone.
// RUN: tad-opt %s --tad-openmpi-handles | FileCheck %s

// CHECK: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK-NOT: @ompi_mpi_sum
// CHECK: llvm.mlir.global external @ompi_mpi_float()
// CHECK: llvm.mlir.addressof @ompi_mpi_op_sum : !llvm.ptr
// CHECK: llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
module {
  llvm.mlir.global external @ompi_mpi_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
  llvm.mlir.global external @ompi_mpi_float() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
  llvm.func @handles() -> !llvm.ptr {
    %0 = llvm.mlir.addressof @ompi_mpi_sum : !llvm.ptr
    %1 = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
    llvm.return %0 : !llvm.ptr
  }
}
