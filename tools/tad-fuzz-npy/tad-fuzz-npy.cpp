//===- tad-fuzz-npy.cpp - libFuzzer target for the .npy reader ------------===//
//
// Feeds arbitrary bytes to the runtime's .npy reader, both as bytes in
// memory (parseNpy) and as a file (readNpy, which reads the header first and
// the data only once the header and the file's size agree). A finding is a
// crash, a sanitizer report, a hang, an accepted file whose data does not
// match its header, or one that does not round-trip: written back with
// writeNpy, it must read as the same array, whatever its dtype. `make fuzz`
// builds it with clang and runs it; docs/fuzzing.md has details.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Npy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

/// An accepted array must hold exactly the bytes its header describes.
static void checkConsistent(const tad::rt::NpyArray &array) {
  if (uint64_t(array.getNumElements()) * tad::rt::getDTypeSize(array.dtype) !=
      array.data.size())
    std::abort();
}

namespace {
/// A folder of this process's own to write arrays back to (OutputFile
/// writes a temporary beside the file and renames it), removed with the
/// array in it when the process exits.
class ScratchFolder {
public:
  ScratchFolder() {
    char name[] = "/tmp/tad-fuzz-npy.XXXXXX";
    if (!mkdtemp(name))
      std::abort();
    folder = name;
    path = folder + "/roundtrip.npy";
  }
  ScratchFolder(const ScratchFolder &) = delete;
  ScratchFolder &operator=(const ScratchFolder &) = delete;
  ~ScratchFolder() {
    std::remove(path.c_str());
    rmdir(folder.c_str());
  }

  /// The file that arrays are written back to.
  const std::string &getPath() const { return path; }

private:
  std::string folder;
  std::string path;
};
} // namespace

/// The scratch file, in a folder made on the first call.
static const std::string &getScratchPath() {
  static const ScratchFolder scratch;
  return scratch.getPath();
}

/// An accepted array, written back and read again, is the same array.
static void checkRoundTrip(const tad::rt::NpyArray &array) {
  std::string error;
  tad::rt::NpyArray again;
  if (!tad::rt::writeNpy(getScratchPath(), array, error) ||
      !tad::rt::readNpy(getScratchPath(), again, error) ||
      again.dtype != array.dtype || again.shape != array.shape ||
      again.data != array.data)
    std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tad::rt::NpyArray fromBytes, fromFile;
  std::string error;
  bool parsed = tad::rt::parseNpy("fuzz.npy", data, size, fromBytes, error);
  if (parsed) {
    checkConsistent(fromBytes);
    checkRoundTrip(fromBytes);
  }

  // The same bytes as a file, in memory (memfd): both readers must agree.
  int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) == ssize_t(size)) {
    bool read = tad::rt::readNpy("/proc/self/fd/" + std::to_string(fd),
                                 fromFile, error);
    if (read)
      checkConsistent(fromFile);
    if (read != parsed || (read && (fromFile.shape != fromBytes.shape ||
                                    fromFile.dtype != fromBytes.dtype ||
                                    fromFile.data != fromBytes.data)))
      std::abort();
  }
  close(fd);
  return 0;
}
