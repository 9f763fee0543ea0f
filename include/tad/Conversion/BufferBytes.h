//===- BufferBytes.h - what an allocation or a free counts ------*- C++ -*-===//
//
// The buffer plan (tad-buffer-peak), the GPU passes that move allocations
// and frees around kernels (HostPeak), and the runtime's allocator must
// count the same bytes for each buffer: one definition here, below both.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_BUFFERBYTES_H
#define TAD_CONVERSION_BUFFERBYTES_H

#include "mlir/IR/Value.h"

#include <cstdint>

namespace tad {

/// The bytes the runtime allocates for a memref of this type (an i1 takes
/// a byte), or -1 for a dynamic shape or a type that is not a memref.
int64_t getMemRefByteSize(mlir::Type type);

/// The buffer that `value` views, through views of views (subviews,
/// reshapes, casts), or `value` when it is no view: what a free of
/// `value` releases.
mlir::Value getViewedBuffer(mlir::Value value);

} // namespace tad

#endif // TAD_CONVERSION_BUFFERBYTES_H
