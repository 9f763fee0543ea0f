//===- Output.h - files that appear whole or not at all ---------*- C++ -*-===//
//
// Results, statistics and traces are written under a temporary name in
// their folder and renamed onto their name only once complete: a failed
// write (a full disk) leaves no file, never a truncated one, and every
// failure says why. A path that names a device or a pipe (/dev/stdout) is
// written in place.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_OUTPUT_H
#define TAD_RUNTIME_OUTPUT_H

#include <cstddef>
#include <cstdio>
#include <string>

namespace tad::rt {

class OutputFile {
public:
  OutputFile() = default;
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Removes the temporary unless it was committed.
  ~OutputFile();

  /// Creates the temporary for `path`.
  bool open(const std::string &path, std::string &error);
  bool write(const void *data, size_t size, std::string &error);
  bool write(const std::string &text, std::string &error) {
    return write(text.data(), text.size(), error);
  }
  /// Flushes and closes the temporary: a write that failed late (the
  /// buffered end of the file) fails here.
  bool finish(std::string &error);
  /// Renames the finished temporary onto the path.
  bool commit(std::string &error);

private:
  bool fail(const std::string &what, std::string &error);

  std::string path, temporary;
  std::FILE *file = nullptr;
  bool committed = false;
};

/// Creates `folder` and the folders above it that are missing (mkdir -p);
/// false, with the reason, when one cannot be made or is not a folder.
bool makeFolders(const std::string &folder, std::string &error);

/// makeFolders of the folder that `file` is in.
bool makeParentFolders(const std::string &file, std::string &error);

/// Writes `text` to `path` whole or not at all.
bool writeTextFile(const std::string &path, const std::string &text,
                   std::string &error);

} // namespace tad::rt

#endif // TAD_RUNTIME_OUTPUT_H
