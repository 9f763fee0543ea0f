//===- Options.h - typed option values of tad's passes ----------*- C++ -*-===//
//
// The value types that tad's passes and pipeline take as options, with the
// llvm::cl parsers that let Passes.td declare them: a budget (`65536`,
// `64KiB`, `1.5 MiB`, `60%`, `store-all`) is checked where it is parsed, in
// tad-opt, in tadc and in a textual pipeline alike, instead of by each pass.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_OPTIONS_H
#define TAD_TRANSFORMS_OPTIONS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace tad {

/// A memory budget, as users write it and parsed once (parseBudget): a
/// number of bytes (`65536`, `64KiB`, `1.5 MiB`), a share of the store-all
/// peak (`60%`), or `store-all` (plan and report, recompute nothing). It is
/// carried as this value from the command line to every pass. The passes
/// plan within bytes or store-all; a share names bytes only once the
/// program is differentiated, so it is resolved before them
/// (tad::resolveBudget, Pipeline/Plan.h).
struct Budget {
  /// `overhead`: each derivative's least peak whose schedule adds at most
  /// `percent` of its compute in recomputation (the remat pass searches
  /// it per function, docs/remat.md).
  enum class Kind { none, bytes, share, storeAll, overhead };
  Kind kind = Kind::none;
  int64_t bytes = 0;  // with Kind::bytes
  double percent = 0; // with Kind::share: of the store-all peak, above 0;
                      // with Kind::overhead: of the compute, 0 or more

  static Budget ofBytes(int64_t bytes) { return {Kind::bytes, bytes, 0}; }
  static Budget share(double percent) { return {Kind::share, 0, percent}; }
  static Budget storeAll() { return {Kind::storeAll, 0, 0}; }
  static Budget overhead(double percent) {
    return {Kind::overhead, 0, percent};
  }

  bool isSet() const { return kind != Kind::none; }
  bool isBytes() const { return kind == Kind::bytes; }
  bool isShare() const { return kind == Kind::share; }
  bool isStoreAll() const { return kind == Kind::storeAll; }
  bool isOverhead() const { return kind == Kind::overhead; }
  /// As it parses back: `65536`, `60%`, `store-all`, `overhead:1%`; ""
  /// when unset.
  std::string str() const;
  bool operator==(const Budget &other) const {
    return kind == other.kind && bytes == other.bytes &&
           percent == other.percent;
  }
};

/// The overhead bound of a compile that names no budget (tadc, the Python
/// package): each derivative at the least peak at which recomputation adds
/// at most this share of its compute, in percent (docs/remat.md). The
/// model is not exact either way: on examples/gpt's step
/// (bench/gpt/overhead.py), 2% holds 0.72 times PyTorch eager's peak at
/// store-all's time, 4% holds 0.65 times but measured 7-8% slower than
/// store-all for 3.9% predicted (docs/remat.md, "Why 2%").
constexpr double kDefaultRematOverhead = 2.0;

/// Parses a budget: bytes with an optional suffix B, KiB, MiB, GiB or TiB
/// (tad::remat::parseByteSize), P% with P above 0 (at most 1000000),
/// `store-all`, or `overhead:P%` with P from 0 to 1000000. The error says
/// what was expected.
bool parseBudget(llvm::StringRef text, Budget &budget, std::string &error);

/// Parses an overhead bound, P% with P from 0 to 1000000 (tadc's
/// --remat-overhead), into `percent`.
bool parseOverhead(llvm::StringRef text, double &percent, std::string &error);

/// Printed as it parses back: `65536`, `60%`, `store-all`, `overhead:1%`;
/// nothing when unset.
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Budget &budget);

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

/// Parses tad::Budget with tad::parseBudget.
template <> class parser<tad::Budget> : public basic_parser<tad::Budget> {
public:
  parser(Option &option) : basic_parser(option) {}
  bool parse(Option &option, StringRef argName, StringRef arg,
             tad::Budget &value);
  StringRef getValueName() const override { return "budget"; }
  void printOptionDiff(const Option &option, const tad::Budget &value,
                       const OptVal &defaultValue, size_t globalWidth) const;
};

} // namespace llvm::cl

#endif // TAD_TRANSFORMS_OPTIONS_H
