//===- Options.h - typed option values of tad's passes ----------*- C++ -*-===//
//
// The value types that tad's passes and pipeline take as options, with the
// llvm::cl parsers that let Passes.td declare them: a byte size (`65536`,
// `64KiB`, `1.5 MiB`) is checked where it is parsed, in tad-opt, in tadc and
// in a textual pipeline alike, instead of by each pass.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_OPTIONS_H
#define TAD_TRANSFORMS_OPTIONS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace tad {

/// A number of bytes, or none (a negative count).
struct ByteSize {
  int64_t bytes = -1;
  bool isSet() const { return bytes >= 0; }
  bool operator==(const ByteSize &other) const { return bytes == other.bytes; }
};

/// Printed as a plain count, which parses back to the same size.
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const ByteSize &size);

/// What the remat pass may recompute.
enum class RematPolicy {
  automatic,   // the solver decides
  saveAll,     // nothing is recomputed; the budget must hold store-all
  saveMatmuls, // matmul results are never recomputed
};

/// Where a pass prints what it did for people.
enum class ReportStream { none, standardOutput, standardError };

/// The command-line spellings of RematPolicy and ReportStream, for every
/// option that takes one (Passes.td, the pipeline).
llvm::cl::ValuesClass getRematPolicyValues();
llvm::cl::ValuesClass getReportStreamValues();

} // namespace tad

namespace llvm::cl {

/// Parses tad::ByteSize with tad::remat::parseByteSize.
template <> class parser<tad::ByteSize> : public basic_parser<tad::ByteSize> {
public:
  parser(Option &option) : basic_parser(option) {}
  bool parse(Option &option, StringRef argName, StringRef arg,
             tad::ByteSize &value);
  StringRef getValueName() const override { return "bytes"; }
  void printOptionDiff(const Option &option, const tad::ByteSize &value,
                       const OptVal &defaultValue, size_t globalWidth) const;
};

} // namespace llvm::cl

#endif // TAD_TRANSFORMS_OPTIONS_H
