//===- Instances.cpp - sizes for generic entries --------------------------===//
//
// Parses --dim and --instantiate, and reads the sizes of a generic entry
// off the shapes of its .npy inputs for `tadc run`.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/Instances.h"

#include "tad/runtime/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace tad;
using llvm::StringRef;

llvm::Error
driver::parseSizes(StringRef text,
                   std::vector<std::pair<std::string, std::string>> &sizes) {
  llvm::SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  if (items.empty())
    return llvm::createStringError("expected NAME=SIZE, got '" + text + "'");
  for (StringRef item : items) {
    auto [name, value] = item.trim().split('=');
    if (name.trim().empty() || value.trim().empty())
      return llvm::createStringError("expected NAME=SIZE, got '" + item.trim() +
                                     "'");
    for (const auto &[other, _] : sizes)
      if (other == name.trim())
        return llvm::createStringError("dimension " + name.trim() +
                                       " is given twice");
    sizes.push_back({name.trim().str(), value.trim().str()});
  }
  return llvm::Error::success();
}

llvm::Expected<lang::InstanceRequest>
driver::parseInstanceSpec(StringRef spec) {
  size_t open = spec.find('[');
  if (open == StringRef::npos || open == 0 || !spec.ends_with("]"))
    return llvm::createStringError("expected FUNCTION[NAME=SIZE,...], got '" +
                                   spec + "'");
  lang::InstanceRequest request;
  request.function = spec.take_front(open).trim().str();
  if (llvm::Error error =
          parseSizes(spec.drop_front(open + 1).drop_back(), request.sizes))
    return std::move(error);
  return request;
}

/// The generic function behind `name`, and for a derivative request the
/// positions of its parameters that are the primal's (all of them: vjp's
/// cotangents come after, and their sizes follow from the primal's).
static const lang::FunctionDecl *findGeneric(const lang::Module &module,
                                             StringRef name) {
  auto find = [&](StringRef n) -> const lang::Decl * {
    for (const auto &decl : module.decls)
      if (decl->getName() == n && !llvm::isa<lang::RuleDecl>(decl.get()))
        return decl.get();
    return nullptr;
  };
  const lang::Decl *decl = find(name);
  if (auto *request = llvm::dyn_cast_or_null<lang::DerivativeDecl>(decl))
    decl = find(request->primal.name);
  auto *fn = llvm::dyn_cast_or_null<lang::FunctionDecl>(decl);
  return fn && fn->isGeneric() ? fn : nullptr;
}

bool driver::isGenericEntry(const lang::Module &module, StringRef name) {
  return findGeneric(module, name) != nullptr;
}

llvm::Error
driver::addInstanceRequests(const lang::Module *parsed,
                            const InstanceOptions &options,
                            std::vector<lang::InstanceRequest> &requests,
                            bool &entryRequested) {
  entryRequested = false;
  const std::string &entry = options.entry;
  bool generic = parsed && !entry.empty() && isGenericEntry(*parsed, entry);
  if (generic && options.dims.empty() && options.readInputs) {
    auto inferred = inferSizesFromInputs(*parsed, entry, options.inputFiles,
                                         options.inputDir);
    if (!inferred)
      return inferred.takeError();
    requests.push_back(std::move(*inferred));
    entryRequested = true;
  }
  if (!options.dims.empty()) {
    if (entry.empty())
      return llvm::createStringError(
          "--dim gives sizes to the dimensions of --entry; name the entry, "
          "or use --instantiate 'F[B=64]'");
    lang::InstanceRequest request;
    request.function = entry;
    for (const std::string &text : options.dims)
      if (llvm::Error error = parseSizes(text, request.sizes))
        return llvm::createStringError("--dim: " +
                                       llvm::toString(std::move(error)));
    requests.push_back(std::move(request));
    entryRequested = true;
  } else if (generic && !entryRequested) {
    return llvm::createStringError(
        "'" + entry +
        "' is generic: give the sizes of its dimensions with --dim "
        "NAME=SIZE, or inputs of those sizes with --input / --inputs");
  }
  for (const std::string &spec : options.instantiations) {
    auto request = parseInstanceSpec(spec);
    if (!request)
      return llvm::createStringError("--instantiate: " +
                                     llvm::toString(request.takeError()));
    requests.push_back(std::move(*request));
  }
  return llvm::Error::success();
}

/// The element kind of an array's dtype: what an element type parameter is
/// when the array gives it (Sema says whether the kind may be one).
static lang::ElemKind getElemKind(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::f32: return lang::ElemKind::f32;
  case rt::DType::f64: return lang::ElemKind::f64;
  case rt::DType::f16: return lang::ElemKind::f16;
  case rt::DType::bf16: return lang::ElemKind::bf16;
  case rt::DType::i32: return lang::ElemKind::i32;
  case rt::DType::i64: return lang::ElemKind::i64;
  }
  return lang::ElemKind::f32;
}

llvm::Expected<lang::InstanceRequest> driver::inferSizesFromInputs(
    const lang::Module &module, StringRef name,
    const std::map<std::string, std::string> &inputFiles, StringRef inputDir) {
  const lang::FunctionDecl *fn = findGeneric(module, name);
  if (!fn)
    return llvm::createStringError("'" + name + "' is not generic");
  if (llvm::any_of(fn->dims,
                   [](const lang::GenericParam &p) { return p.isPack; }))
    return llvm::createStringError(
        "'" + name + "' has leading dimensions '...', which only a call in "
        "the program binds; run a function of fixed sizes that calls it");
  std::vector<int64_t> sizes(fn->dims.size(), lang::kSymbolicDim);
  std::vector<std::string> from(fn->dims.size());
  auto indexOf = [&](StringRef dim) {
    return size_t(llvm::find_if(fn->dims,
                                [&](const lang::GenericParam &p) {
                                  return p.name == dim;
                                }) -
                  fn->dims.begin());
  };
  // The folder is read only for the parameters that give sizes: a missing
  // one would read as "no input gives its dimension".
  if (!inputDir.empty() && !llvm::sys::fs::is_directory(inputDir))
    return llvm::createStringError(
        "--inputs " + inputDir.str() +
        (llvm::sys::fs::exists(inputDir) ? ": not a folder"
                                         : ": no such folder"));
  for (const lang::Param &param : fn->params) {
    if (param.dims.empty() && param.elemParam.empty())
      continue;
    std::string path;
    if (auto it = inputFiles.find(param.name); it != inputFiles.end())
      path = it->second;
    else if (!inputDir.empty()) {
      llvm::SmallString<256> candidate(inputDir);
      llvm::sys::path::append(candidate, param.name + ".npy");
      if (llvm::sys::fs::exists(candidate))
        path = candidate.str().str();
    }
    if (path.empty())
      continue;
    rt::NpyArray array;
    std::string error;
    // The header is what is needed; the runner reads the file again.
    if (!rt::readNpy(path, array, error))
      return llvm::createStringError(error);
    if (!param.elemParam.empty()) {
      size_t k = indexOf(param.elemParam);
      int64_t elem = int64_t(getElemKind(array.dtype));
      if (sizes[k] == lang::kSymbolicDim) {
        sizes[k] = elem;
        from[k] = path;
      } else if (sizes[k] != elem) {
        return llvm::createStringError(
            "element type " + param.elemParam + " of '" + fn->getName() +
            "' is " + lang::getElemKindName(lang::ElemKind(sizes[k])) + " in " +
            from[k] + " but " + lang::getElemKindName(lang::ElemKind(elem)) +
            " in " + path);
      }
    }
    if (param.dims.empty())
      continue;
    if (array.shape.size() != param.dims.size())
      return llvm::createStringError(
          path + " holds " + rt::describeArray(array.dtype, array.shape) +
          " but parameter '" + param.name + "' of '" + fn->getName() + "' is " +
          lang::formatGenericType(param));
    for (auto [d, dim] : llvm::enumerate(param.dims)) {
      if (dim.empty())
        continue;
      size_t k = indexOf(dim);
      if (sizes[k] == lang::kSymbolicDim) {
        sizes[k] = array.shape[d];
        from[k] = path;
      } else if (sizes[k] != array.shape[d]) {
        return llvm::createStringError(
            "dimension " + dim + " of '" + fn->getName() + "' is " +
            std::to_string(sizes[k]) + " in " + from[k] + " but " +
            std::to_string(array.shape[d]) + " in " + path);
      }
    }
  }
  lang::InstanceRequest request;
  request.function = name.str();
  for (auto [dim, size] : llvm::zip(fn->dims, sizes)) {
    if (size == lang::kSymbolicDim)
      return llvm::createStringError(
          "'" + name + "' is generic and no input gives its " +
          (dim.isType ? "element type " : "dimension ") + dim.name +
          "; give it with --dim " + dim.name + "=" +
          (dim.isType ? "f32" : "SIZE"));
    request.sizes.push_back(
        {dim.name, dim.isType
                       ? lang::getElemKindName(lang::ElemKind(size)).str()
                       : std::to_string(size)});
  }
  return request;
}
