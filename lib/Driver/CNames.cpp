//===- CNames.cpp - the C names of a compiled library ---------------------===//

#include "tad/Driver/CNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <dlfcn.h>
#include <set>

using namespace tad;

bool driver::isCKeyword(llvm::StringRef name) {
  static const llvm::StringSet<> keywords = {
      // C (through C23).
      "auto", "bool", "break", "case", "char", "const", "constexpr",
      "continue", "default", "do", "double", "else", "enum", "extern", "false",
      "float", "for", "goto", "if", "inline", "int", "long", "nullptr",
      "register", "restrict", "return", "short", "signed", "sizeof", "static",
      "static_assert", "struct", "switch", "thread_local", "true", "typedef",
      "typeof", "typeof_unqual", "union", "unsigned", "void", "volatile",
      "while", "alignas", "alignof",
      // C++.
      "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t",
      "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield",
      "compl", "concept", "consteval", "constinit", "const_cast", "decltype",
      "delete", "dynamic_cast", "explicit", "export", "friend", "mutable",
      "namespace", "new", "noexcept", "not", "not_eq", "operator", "or",
      "or_eq", "private", "protected", "public", "reinterpret_cast",
      "requires", "static_cast", "template", "this", "throw", "try", "typeid",
      "typename", "using", "virtual", "wchar_t", "xor", "xor_eq"};
  return keywords.contains(name);
}

std::vector<std::string> driver::getCNames(const rt::EntrySpec &entry) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  auto add = [&](const rt::TensorSpec &spec) {
    std::string name = spec.name;
    std::replace(name.begin(), name.end(), '.', '_');
    if (isCKeyword(name))
      name += "_";
    while (!taken.insert(name).second)
      name += "_";
    names.push_back(name);
  };
  llvm::for_each(entry.params, add);
  llvm::for_each(entry.results, add);
  return names;
}

/// Whether the C library or libm (as loaded into tadc, the libraries every
/// program links) defines `name`.
static bool isCLibraryName(llvm::StringRef name) {
  std::string symbol = name.str();
  for (const char *library : {"libc.so.6", "libm.so.6"}) {
    void *handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
      continue;
    bool found = dlsym(handle, symbol.c_str()) != nullptr;
    dlclose(handle);
    if (found)
      return true;
  }
  return false;
}

/// Why `name` is reserved for tad's runtime and glue, or empty.
static std::string reservedFor(llvm::StringRef name) {
  if (name.starts_with("tad_"))
    return "names beginning with tad_ are tad's runtime's and its library "
           "glue's";
  if (name.starts_with("_mlir_") || name.starts_with("mgpu") ||
      name == "memrefCopy")
    return "the compiled code calls the runtime function of that name";
  if (name.starts_with("__"))
    return "names beginning with __ are reserved in C";
  if (name == "main")
    return "a library exporting main takes the program's entry point";
  return "";
}

mlir::LogicalResult
driver::checkLibraryNames(mlir::ModuleOp module,
                          llvm::ArrayRef<rt::EntrySpec> entries) {
  // The header's other identifiers: each entry's `f_x_shape`.
  llvm::StringMap<std::string> shapeNames;
  for (const rt::EntrySpec &entry : entries)
    for (const std::string &name : getCNames(entry))
      shapeNames[entry.function + "_" + name + "_shape"] = entry.function;
  bool ok = true;
  for (const rt::EntrySpec &entry : entries) {
    llvm::StringRef name = entry.function;
    std::string why;
    if (isCKeyword(name))
      why = "it is a C or C++ keyword";
    else if (std::string reserved = reservedFor(name); !reserved.empty())
      why = "it is reserved: " + reserved;
    else if (isCLibraryName(name))
      why = "the C library defines " + entry.function +
            ", which the library's would replace in every program linked "
            "with it";
    else if (auto it = shapeNames.find(name); it != shapeNames.end())
      why = "the header names a shape of '" + it->second + "' so";
    if (why.empty())
      continue;
    std::string message = "cannot export '" + entry.function +
                          "' from a C library: " + why + "; rename it";
    if (auto fn = module.lookupSymbol<mlir::func::FuncOp>(name))
      fn.emitError(message);
    else
      mlir::emitError(mlir::UnknownLoc::get(module.getContext()), message);
    ok = false;
  }
  return mlir::success(ok);
}
