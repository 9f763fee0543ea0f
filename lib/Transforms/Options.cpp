//===- Options.cpp - typed option values of tad's passes ------------------===//

#include "tad/Transforms/Options.h"

#include "tad/Remat/ByteSize.h"

llvm::raw_ostream &tad::operator<<(llvm::raw_ostream &os,
                                   const ByteSize &size) {
  return os << size.bytes;
}

llvm::cl::ValuesClass tad::getRematPolicyValues() {
  return llvm::cl::values(
      clEnumValN(RematPolicy::automatic, "auto", "the solver decides"),
      clEnumValN(RematPolicy::saveAll, "save-all",
                 "nothing; the budget must hold store-all"),
      clEnumValN(RematPolicy::saveMatmuls, "save-matmuls",
                 "anything but a matmul"));
}

llvm::cl::ValuesClass tad::getReportStreamValues() {
  return llvm::cl::values(
      clEnumValN(ReportStream::none, "none", "nowhere"),
      clEnumValN(ReportStream::standardOutput, "stdout", "on standard output"),
      clEnumValN(ReportStream::standardError, "stderr", "on standard error"));
}

bool llvm::cl::parser<tad::ByteSize>::parse(Option &option, StringRef,
                                            StringRef arg,
                                            tad::ByteSize &value) {
  std::string error;
  if (tad::remat::parseByteSize(std::string_view(arg.data(), arg.size()),
                                value.bytes, error))
    return false;
  return option.error(error);
}

void llvm::cl::parser<tad::ByteSize>::printOptionDiff(
    const Option &option, const tad::ByteSize &value, const OptVal &,
    size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << value.bytes << "\n";
}
