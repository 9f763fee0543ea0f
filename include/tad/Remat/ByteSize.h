//===- ByteSize.h - memory budgets written by users -------------*- C++ -*-===//
//
// Budgets are given in bytes, optionally with a binary suffix: `65536`,
// `64KiB`, `1.5 MiB`, `14.8 MiB`, `2GiB`. The same syntax serves `tad-remat --budget`
// and the remat pass's `budget=` option.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_BYTESIZE_H
#define TAD_REMAT_BYTESIZE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace tad::remat {

/// Parses a byte count with an optional suffix B, KiB, MiB, GiB or TiB (a
/// fractional number needs a suffix, and counts the whole bytes it
/// reaches: `14.8 MiB`, as the remat report prints, is 15518924). On
/// failure returns false with `error` saying what is wrong.
bool parseByteSize(std::string_view text, int64_t &bytes, std::string &error);

} // namespace tad::remat

#endif // TAD_REMAT_BYTESIZE_H
