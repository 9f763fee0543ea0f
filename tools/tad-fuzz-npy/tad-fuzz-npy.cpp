//===- tad-fuzz-npy.cpp - libFuzzer target for the .npy reader ------------===//
//
// Feeds arbitrary bytes to the runtime's .npy reader, both as bytes in
// memory (parseNpy) and as a file (readNpy, which reads the header first and
// the data only once the header and the file's size agree). A finding is a
// crash, a sanitizer report, a hang, or an accepted file whose data does not
// match its header. `make fuzz` builds it with clang and runs it;
// docs/fuzzing.md has details.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Npy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

/// An accepted array must hold exactly the bytes its header describes.
static void checkConsistent(const tad::rt::NpyArray &array) {
  if (uint64_t(array.getNumElements()) * tad::rt::getDTypeSize(array.dtype) !=
      array.data.size())
    std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tad::rt::NpyArray fromBytes, fromFile;
  std::string error;
  bool parsed = tad::rt::parseNpy("fuzz.npy", data, size, fromBytes, error);
  if (parsed)
    checkConsistent(fromBytes);

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
