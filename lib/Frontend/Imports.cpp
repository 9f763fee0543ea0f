//===- Imports.cpp - import "file.tad" ------------------------------------===//
//
// `import "nn.tad";` adds the declarations of another file to the program:
// one namespace, as if the files were one, with every file loaded once
// (an import of a file already loaded adds nothing) and a cycle an error.
// A path is looked up relative to the importing file's folder, then in
// each folder of the search path (tadc's --import-path, then tad's own
// library, stdlib/). Errors in an imported file name that file.
//
//===----------------------------------------------------------------------===//

#include "tad/Frontend/Frontend.h"
#include "tad/Frontend/Parser.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace tad::lang;

namespace {
class ImportLoader {
public:
  ImportLoader(llvm::SourceMgr &sourceMgr, DiagnosticEngine &diag,
               llvm::ArrayRef<std::string> searchPath)
      : sourceMgr(sourceMgr), diag(diag), searchPath(searchPath) {}

  /// Loads what `module` (the file `path`) imports, depth first: the
  /// declarations of a file's imports come before its own.
  bool load(Module &module, llvm::StringRef path);

  std::vector<std::unique_ptr<Decl>> decls;
  std::vector<llvm::StringRef> sources;

private:
  std::string find(llvm::StringRef path, llvm::StringRef importer);

  llvm::SourceMgr &sourceMgr;
  DiagnosticEngine &diag;
  llvm::ArrayRef<std::string> searchPath;
  /// The files being loaded (the importer of each is the one before it),
  /// and those done, by real path.
  std::vector<std::string> stack;
  llvm::StringSet<> done;
};
} // namespace

/// The file `path` names, from the folder of `importer`, else from the
/// search path; empty when there is none.
std::string ImportLoader::find(llvm::StringRef path, llvm::StringRef importer) {
  auto isFile = [](const llvm::Twine &p) {
    return llvm::sys::fs::is_regular_file(p);
  };
  if (llvm::sys::path::is_absolute(path))
    return isFile(path) ? path.str() : "";
  llvm::SmallString<256> candidate(llvm::sys::path::parent_path(importer));
  llvm::sys::path::append(candidate, path);
  if (isFile(candidate))
    return candidate.str().str();
  for (const std::string &folder : searchPath) {
    candidate = folder;
    llvm::sys::path::append(candidate, path);
    if (isFile(candidate))
      return candidate.str().str();
  }
  return "";
}

static std::string realPath(llvm::StringRef path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real))
    return path.str();
  return real.str().str();
}

bool ImportLoader::load(Module &module, llvm::StringRef path) {
  stack.push_back(realPath(path));
  for (const Import &import : module.imports) {
    std::string file = find(import.path, path);
    if (file.empty()) {
      std::string where =
          "the folder of " + llvm::sys::path::filename(path).str();
      for (const std::string &folder : searchPath)
        where += ", " + folder;
      return diag.error(import.loc, "cannot find '" + import.path +
                                        "' to import; looked in " + where);
    }
    std::string real = realPath(file);
    if (llvm::is_contained(stack, real)) {
      std::string cycle;
      auto first = llvm::find(stack, real);
      for (auto it = first; it != stack.end(); ++it)
        cycle += llvm::sys::path::filename(*it).str() + " imports ";
      return diag.error(import.loc, "import cycle: " + cycle +
                                        llvm::sys::path::filename(real).str());
    }
    if (done.contains(real))
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
    if (!buffer)
      return diag.error(import.loc, "cannot read '" + file +
                                        "': " + buffer.getError().message());
    unsigned id = sourceMgr.AddNewSourceBuffer(std::move(*buffer), import.loc);
    Parser parser(sourceMgr.getMemoryBuffer(id)->getBuffer(), diag);
    std::unique_ptr<Module> imported = parser.parseModule();
    if (!imported || !load(*imported, file))
      return false;
    done.insert(real);
    for (auto &decl : imported->decls)
      decls.push_back(std::move(decl));
    llvm::append_range(sources, imported->sources);
  }
  stack.pop_back();
  return true;
}

bool tad::lang::resolveImports(Module &module, llvm::SourceMgr &sourceMgr,
                               unsigned bufferId, DiagnosticEngine &diag,
                               llvm::ArrayRef<std::string> searchPath) {
  if (module.imports.empty())
    return true;
  ImportLoader loader(sourceMgr, diag, searchPath);
  llvm::StringRef path =
      sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  if (!loader.load(module, path))
    return false;
  // The imported declarations first, so that a redefinition is reported at
  // the importing file's.
  for (auto &decl : module.decls)
    loader.decls.push_back(std::move(decl));
  module.decls = std::move(loader.decls);
  llvm::append_range(module.sources, loader.sources);
  return true;
}
