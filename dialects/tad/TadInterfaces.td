//===- TadInterfaces.td - tad's op interfaces --------------*- tablegen -*-===//

#ifndef TAD_INTERFACES_TD
#define TAD_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tad_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::tad";
  let description = [{
    The reverse-mode derivative of an op: its vector-Jacobian product. Every
    tad op with a derivative implements it in TadVJPs.cpp, grouped by op
    family; the AD pass (lib/Transforms/AutoDiff) knows no op by name.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits, at the builder's insertion point, the cotangents of the
        operands given the cotangents of the results. A null result
        cotangent is zero; a null operand cotangent means zero (or no
        derivative, as for an index operand). The op's operands and results
        are the forward values the product may read.
      }],
      "void", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
    InterfaceMethod<[{
        Appends the forward values that buildVJP reads (its residuals):
        what the backward sweep needs kept or recomputed.
      }],
      "void", "getResiduals",
      (ins "::llvm::SmallVectorImpl<::mlir::Value> &":$residuals)>
  ];
}

def Tad_MemoryModelOpInterface : OpInterface<"MemoryModelOpInterface"> {
  let cppNamespace = "::tad";
  let description = [{
    How an op's CPU lowering uses memory and time, declared next to the op
    (TadMemoryModel.cpp) so that nothing else re-derives it: the remat
    pass's graph (lib/Transforms/Remat/RematGraph.cpp) reads these answers
    and names no tad op. The lowering is held to them by
    test/Remat/op-memory.mlir, which checks for one function per op that
    the graph's store-all peak equals the peak of the buffers that the
    lowering plans (tad-buffer-peak).

    The defaults describe an op that writes a fresh buffer of its results'
    size: elementwise when it has the `Elementwise` trait.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether the lowering is one all-parallel `linalg.generic`, which
        tad-fuse-elementwise fuses into a consumer that is its only reader:
        the op then has no buffer of its own.
      }],
      "bool", "isFusableLoop", (ins), "",
      [{ return $_op->template hasTrait<::mlir::OpTrait::Elementwise>(); }]>,
    InterfaceMethod<[{
        Whether the lowering reads the operands in one `linalg.generic`
        into which a fusable producer that it alone reads is fused.
      }],
      "bool", "absorbsProducers", (ins), "",
      [{ return $_op.isFusableLoop(); }]>,
    InterfaceMethod<[{
        Whether the lowering reads every operand element at the index of
        the result element it writes (as elementwise ops do), so that the
        result may be written into a dying operand's buffer.
      }],
      "bool", "readsAtResultIndex", (ins), "",
      [{ return $_op->template hasTrait<::mlir::OpTrait::Elementwise>(); }]>,
    InterfaceMethod<[{
        Whether the lowering writes the result into a buffer of its own with
        a linalg op (not a view, a reshape, or slices inserted into one), so
        that an elementwise reader that it dies in may write its own result
        there (tad-reuse-operand-buffers).
      }],
      "bool", "writesFreshBuffer", (ins), "",
      [{ return $_op.isFusableLoop(); }]>,
    InterfaceMethod<[{
        The operand whose buffer the result views (a reshape, a slice, a
        row of a stacked tensor), or none: a view has no bytes of its own,
        and its source stays alive while it is read.
      }],
      "std::optional<unsigned>", "getViewedOperand", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The operand that the result overwrites in place when nothing reads
        that operand after the op (a tape row's update), or none.
      }],
      "std::optional<unsigned>", "getUpdatedOperand", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The bytes of the buffers the lowering allocates besides its
        results, all alive at once at most while the op runs (a sum's wide
        accumulator, softmax's exponentials). With `tailFused`, those
        besides the ones that getFusableTailBytes names.
      }],
      "int64_t", "getTransientBytes", (ins "bool":$tailFused), "",
      [{ return 0; }]>,
    InterfaceMethod<[{
        When the lowering ends in an all-parallel step that fuses into the
        result's readers (a wide sum's rounding, softmax's division), the
        bytes that the earlier steps then leave alive instead of the
        result; none when it does not end so.
      }],
      "std::optional<int64_t>", "getFusableTailBytes", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The time the lowering takes per element of the largest operand or
        result, in cost units: one unit is the time of one fused elementwise
        add per element. Measured on the CPU by bench/remat/op_costs.py
        (docs/remat-model.md, docs/results.md); transcendental functions are
        scalar libm calls and cost tens of units.
      }],
      "double", "getElementCost", (ins), "",
      [{ return 1.0; }]>,
    InterfaceMethod<[{
        An estimate of the time of running the op once, in cost units (one
        unit: a fused elementwise add on one element): getElementCost per
        element of the largest operand or result; a matmul's 2mnk at the
        BLAS rate; nothing for a view; the row for a row's write.
      }],
      "double", "getComputeCost", (ins), "",
      [{
        double elements = 0;
        auto count = [&](::mlir::Type type) {
          auto tensor = ::llvm::dyn_cast<::mlir::RankedTensorType>(type);
          double n = tensor && tensor.hasStaticShape()
                         ? double(tensor.getNumElements()) : 1.0;
          elements = std::max(elements, n);
        };
        for (::mlir::Type type : $_op->getOperandTypes())
          count(type);
        for (::mlir::Type type : $_op->getResultTypes())
          count(type);
        return elements * $_op.getElementCost();
      }]>,
    InterfaceMethod<[{
        The time of the op fused into its reader's loop (an all-parallel
        op that tad-fuse-elementwise fuses, isFusableLoop): its arithmetic
        alone. One unit per element of getElementCost is the loop's pass
        over memory, which the reader's loop pays: a fused add or multiply
        costs nothing more (bench/remat/op_costs.py: four ops fused cost
        what one add costs alone), a tanh 3 units of its 4.
      }],
      "double", "getFusedComputeCost", (ins), "",
      [{
        double cost = $_op.getElementCost();
        return cost > 1 ? $_op.getComputeCost() * (cost - 1) / cost : 0.0;
      }]>
  ];
}

#endif // TAD_INTERFACES_TD
