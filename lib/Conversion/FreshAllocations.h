//===- FreshAllocations.h - buffers that no other argument overlaps -*- C++
//-*-===//
//
// A loop nest outlined into a function for the CPU (tad-outline-loop-nests)
// and a kernel outlined for the GPU (tad-gpu-noalias-arguments) both pass
// their buffers as pointer arguments, and LLVM, which no longer sees the
// allocations, assumes any two of them may overlap: a reduction's
// accumulator is then stored at every step, since a load of another
// buffer might read it. Where an argument views an allocation of its own,
// its pointer may be `noalias`. Both ask the same question here.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_FRESHALLOCATIONS_H
#define TAD_LIB_CONVERSION_FRESHALLOCATIONS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace tad {

/// The value `memref` views, through view-like ops.
mlir::Value viewRoot(mlir::Value memref);

/// For each of `values` (the arguments that one function or kernel gets),
/// whether it is a memref that views an allocation (`memref.alloc`) of
/// its own: no other of `values` views that allocation, and every other
/// memref among them is another allocation or an argument of a function's
/// entry block, which a fresh allocation cannot overlap. (A buffer chosen
/// by a select, a branch or a loop might be this one.)
llvm::SmallVector<bool> ownAllocations(llvm::ArrayRef<mlir::Value> values);

/// Where `values` are passed as LLVM arguments in the memref descriptor
/// convention (a memref of rank r is 3 + 2r of them: two pointers, the
/// offset, the sizes and the strides; anything else is one): the positions
/// of the aligned pointers, through which a buffer is read and written, of
/// the memrefs that ownAllocations finds. `count` receives the number of
/// LLVM arguments.
llvm::SmallVector<int64_t> noaliasPointers(llvm::ArrayRef<mlir::Value> values,
                                           int64_t &count);

/// The positions (as noaliasPointers gives them) of the aligned pointers
/// of the memrefs among `values` that view a `memref.alloc`, or an input of
/// an entry point (a public function that the module does not call, whose
/// inputs the GPU runtime copies into allocations of its own), with an
/// aligned pointer moved by multiples of `alignment` bytes only (a
/// `memref.view`'s constant shift; the other views keep the pointer):
/// where the runtime's allocations are aligned to `alignment` (the GPU's
/// are to 256 bytes), so are these pointers.
llvm::SmallVector<int64_t> alignedPointers(llvm::ArrayRef<mlir::Value> values,
                                           int64_t alignment, int64_t &count);

} // namespace tad

#endif // TAD_LIB_CONVERSION_FRESHALLOCATIONS_H
