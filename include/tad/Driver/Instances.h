//===- Instances.h - sizes for generic entries ------------------*- C++ -*-===//
//
// A generic function (`fn layer[B, D](...)`) compiles as an entry once
// sizes are given to its dimension parameters: on the command line
// (`--dim B=64`, `--instantiate 'layer[B=64,D=128]'`) or, for `tadc run`,
// by the shapes of the .npy files its parameters are read from.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_INSTANCES_H
#define TAD_DRIVER_INSTANCES_H

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Sema.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace tad::driver {

/// Parses `B=64,D=128` or `E=f64` (what --dim takes) and appends to
/// `sizes`; Sema checks the values against the parameters.
llvm::Error parseSizes(llvm::StringRef text,
                       std::vector<std::pair<std::string, std::string>> &sizes);

/// Parses `F[B=64,D=128]` (what --instantiate takes).
llvm::Expected<lang::InstanceRequest> parseInstanceSpec(llvm::StringRef spec);

/// Whether `name` is a generic function of `module`, or a derivative
/// request of one (parsed, not yet checked).
bool isGenericEntry(const lang::Module &module, llvm::StringRef name);

/// The sizes and element types of the generic parameters of the generic
/// entry `name`, read from the shapes and dtypes of the .npy files its
/// parameters come from: `inputFiles` by parameter name, else
/// `inputDir`/NAME.npy. A parameter without a file contributes nothing; a
/// dimension no file determines is an error, as are two files that
/// disagree about one.
llvm::Expected<lang::InstanceRequest>
inferSizesFromInputs(const lang::Module &module, llvm::StringRef name,
                     const std::map<std::string, std::string> &inputFiles,
                     llvm::StringRef inputDir);

/// What the command line says about instances: --entry, --dim, each
/// --instantiate, and where inputs come from.
struct InstanceOptions {
  std::string entry;
  std::vector<std::string> dims, instantiations;
  std::map<std::string, std::string> inputFiles;
  std::string inputDir;
  /// Whether the entry's sizes may be read off its inputs when --dim is
  /// not given: tadc run always reads them; other stages given inputs do.
  bool readInputs = false;
};

/// Appends the instances `options` asks for to `requests`: the entry's at
/// --dim's sizes (without --dim, at its inputs' shapes), then each
/// --instantiate. `parsed` is the program, parsed (null when it does not
/// parse: the compile reports why). `entryRequested` says whether the
/// first request is the entry's, which the compile then renames.
llvm::Error addInstanceRequests(const lang::Module *parsed,
                                const InstanceOptions &options,
                                std::vector<lang::InstanceRequest> &requests,
                                bool &entryRequested);

} // namespace tad::driver

#endif // TAD_DRIVER_INSTANCES_H
