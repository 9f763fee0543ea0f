//===- Options.cpp - typed option values of tad's passes ------------------===//

#include "tad/Transforms/Options.h"

#include "tad/Remat/ByteSize.h"

llvm::raw_ostream &tad::operator<<(llvm::raw_ostream &os,
                                   const ByteSize &size) {
  return os << size.bytes;
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
