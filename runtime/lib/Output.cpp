//===- Output.cpp - files that appear whole or not at all -----------------===//
//
// For tests, TAD_RT_WRITE_LIMIT=N makes every write fail with ENOSPC once
// this process has written N bytes through OutputFile: the behavior on a
// full disk, without needing one.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace tad::rt;

namespace {

/// The bytes left before the injected full disk, or -1 for none.
int64_t &writeBudget() {
  static int64_t budget = [] {
    const char *limit = std::getenv("TAD_RT_WRITE_LIMIT");
    return limit ? std::strtoll(limit, nullptr, 10) : int64_t(-1);
  }();
  return budget;
}

} // namespace

OutputFile::~OutputFile() {
  if (file)
    std::fclose(file);
  if (!temporary.empty() && !committed)
    std::remove(temporary.c_str());
}

bool OutputFile::fail(const std::string &what, std::string &error) {
  error = path + ": " + what + ": " + std::strerror(errno);
  return false;
}

bool OutputFile::open(const std::string &target, std::string &error) {
  path = target;
  // A device or a pipe (--stats-json=/dev/stdout) is written in place:
  // renaming a file over it would replace it.
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    file = std::fopen(path.c_str(), "wb");
    return file ? true : fail("cannot open", error);
  }
  temporary = path + ".tmp" + std::to_string(::getpid());
  file = std::fopen(temporary.c_str(), "wb");
  if (!file) {
    temporary.clear();
    return fail("cannot create file", error);
  }
  return true;
}

bool OutputFile::write(const void *data, size_t size, std::string &error) {
  int64_t &budget = writeBudget();
  if (budget >= 0 && int64_t(size) > budget) {
    errno = ENOSPC;
    return fail("write failed", error);
  }
  if (budget >= 0)
    budget -= int64_t(size);
  if (size && std::fwrite(data, 1, size, file) != size)
    return fail("write failed", error);
  return true;
}

bool OutputFile::finish(std::string &error) {
  bool flushed = std::fflush(file) == 0;
  int saved = errno;
  bool closed = std::fclose(file) == 0;
  file = nullptr;
  if (!flushed)
    errno = saved;
  if (!flushed || !closed)
    return fail("write failed", error);
  return true;
}

bool OutputFile::commit(std::string &error) {
  if (temporary.empty()) // written in place
    return true;
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return fail("cannot create file", error);
  committed = true;
  return true;
}

bool tad::rt::writeTextFile(const std::string &path, const std::string &text,
                            std::string &error) {
  OutputFile file;
  return file.open(path, error) && file.write(text, error) &&
         file.finish(error) && file.commit(error);
}

bool tad::rt::makeFolders(const std::string &folder, std::string &error) {
  // Each prefix ending before a '/', then the whole path.
  for (size_t end = folder.find('/', 1);; end = folder.find('/', end + 1)) {
    std::string prefix = folder.substr(0, end);
    struct stat info;
    if (!prefix.empty() && ::stat(prefix.c_str(), &info) != 0) {
      if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
        error = prefix + ": cannot create folder: " + std::strerror(errno);
        return false;
      }
    } else if (!prefix.empty() && !S_ISDIR(info.st_mode)) {
      error = prefix + ": cannot create folder: " + std::strerror(ENOTDIR);
      return false;
    }
    if (end == std::string::npos)
      return true;
  }
}

bool tad::rt::makeParentFolders(const std::string &file, std::string &error) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos || slash == 0)
    return true;
  return makeFolders(file.substr(0, slash), error);
}
