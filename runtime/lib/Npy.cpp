//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format: the magic "\x93NUMPY", a version, a header length, and a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (2, 3), } padded with spaces, followed by the raw data. Every way a file
// can be malformed gets its own message.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>

using namespace tad::rt;

const char *tad::rt::getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::f32: return "f32";
  case DType::f64: return "f64";
  case DType::f16: return "f16";
  case DType::bf16: return "bf16";
  case DType::i32: return "i32";
  case DType::i64: return "i64";
  }
  return "?";
}

size_t tad::rt::getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::f32: return 4;
  case DType::f64: return 8;
  case DType::f16: return 2;
  case DType::bf16: return 2;
  case DType::i32: return 4;
  case DType::i64: return 8;
  }
  return 0;
}

const char *tad::rt::getNpyDescr(DType dtype) {
  switch (dtype) {
  case DType::f32: return "<f4";
  case DType::f64: return "<f8";
  case DType::f16: return "<f2";
  case DType::bf16: return "<u2";
  case DType::i32: return "<i4";
  case DType::i64: return "<i8";
  }
  return "?";
}

bool tad::rt::isIntegerDType(DType dtype) {
  switch (dtype) {
  case DType::f32:
  case DType::f64:
  case DType::f16:
  case DType::bf16: return false;
  case DType::i32:
  case DType::i64: return true;
  }
  return false;
}

int64_t NpyArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string tad::rt::describeArray(DType dtype,
                                   const std::vector<int64_t> &shape) {
  std::string s = getDTypeName(dtype);
  if (!shape.empty()) {
    s += "[";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    s += "]";
  }
  return s;
}

namespace {

/// Finds the value text of `key` in the header dict. A key given twice
/// takes its last value, as the Python dict literal that NumPy evaluates
/// does.
bool findValue(const std::string &header, const std::string &key,
               std::string &value) {
  size_t pos = header.rfind("'" + key + "'");
  if (pos == std::string::npos)
    return false;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  size_t end = pos;
  if (pos < header.size() && (header[pos] == '(' || header[pos] == '[')) {
    // A tuple, or a list (the descr of a structured dtype), which may nest.
    int depth = 0;
    for (end = pos; end < header.size(); ++end) {
      char c = header[end];
      depth += (c == '(' || c == '[') - (c == ')' || c == ']');
      if (depth == 0)
        break;
    }
    if (end == header.size())
      return false;
    ++end;
  } else if (pos < header.size() && header[pos] == '\'') {
    end = header.find('\'', pos + 1);
    if (end == std::string::npos)
      return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}')
      ++end;
  }
  value = header.substr(pos, end - pos);
  return true;
}

/// The dtype of a quoted descr ('<f4'). Only little-endian descrs: the data
/// is used as it is, and every machine tad runs on is little endian.
bool parseDescr(const std::string &descr, DType &dtype) {
  for (DType candidate : {DType::f32, DType::f64, DType::f16, DType::bf16,
                          DType::i32, DType::i64})
    if (descr == "'" + std::string(getNpyDescr(candidate)) + "'") {
      dtype = candidate;
      return true;
    }
  return false;
}

} // namespace

/// Parses the header in `bytes` (at least the whole header, when the file
/// has it) of a file of `fileSize` bytes, and checks that the data that
/// follows has the size the header implies, before anything reads it.
/// Sets `out`'s dtype and shape, and `dataStart`.
static bool parseNpyHeader(const std::string &name, const uint8_t *bytes,
                           size_t size, uint64_t fileSize, NpyArray &out,
                           size_t &dataStart, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  static const char magic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(bytes, magic, 6) != 0)
    return fail("not a .npy file (the magic string \\x93NUMPY is missing)");
  int major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fail("truncated .npy header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (headerStart + headerLength > size)
    return fail("truncated .npy header: it claims " +
                std::to_string(headerLength) + " bytes");
  std::string header(reinterpret_cast<const char *>(bytes) + headerStart,
                     headerLength);

  std::string descr, fortran, shapeText;
  if (!findValue(header, "descr", descr) ||
      !findValue(header, "fortran_order", fortran) ||
      !findValue(header, "shape", shapeText))
    return fail("malformed .npy header (descr, fortran_order or shape is "
                "missing): " + header);
  if (!parseDescr(descr, out.dtype))
    return fail("unsupported dtype " + descr +
                "; tad reads '<f4' (f32), '<f8' (f64), '<f2' (f16), "
                "'<u2' (bf16 bit patterns), '<i4' (i32) and '<i8' (i64)");
  if (fortran != "False")
    return fail("Fortran-order arrays are not supported; save a C-order "
                "array (np.ascontiguousarray)");
  if (shapeText.size() < 2 || shapeText.front() != '(' ||
      shapeText.back() != ')')
    return fail("malformed shape " + shapeText);
  out.shape.clear();
  std::string inner = shapeText.substr(1, shapeText.size() - 2);
  std::stringstream stream(inner);
  std::string item;
  const int64_t maxElements = int64_t(1) << 40;
  int64_t elements = 1;
  while (std::getline(stream, item, ',')) {
    size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    if (b == std::string::npos)
      continue; // the trailing comma of a 1-tuple
    item = item.substr(b, e - b + 1);
    if (item.empty() || item.size() > 13 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return fail("malformed shape " + shapeText);
    int64_t dim = std::stoll(item);
    if (dim != 0 && elements > maxElements / dim)
      return fail("shape " + shapeText + " has more than 2^40 elements");
    elements *= dim;
    out.shape.push_back(dim);
  }
  dataStart = headerStart + headerLength;
  uint64_t expected = uint64_t(elements) * getDTypeSize(out.dtype);
  if (fileSize - dataStart != expected)
    return fail("the header says " + describeArray(out.dtype, out.shape) +
                " (" + std::to_string(expected) +
                " bytes of data) but the file has " +
                std::to_string(fileSize - dataStart) + " bytes of data");
  return true;
}

bool tad::rt::parseNpy(const std::string &name, const uint8_t *bytes,
                       size_t size, NpyArray &out, std::string &error) {
  size_t dataStart = 0;
  if (!parseNpyHeader(name, bytes, size, size, out, dataStart, error))
    return false;
  out.data.assign(bytes + dataStart, bytes + size);
  return true;
}

namespace {
/// Closes a FILE on every path out of readNpy.
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
} // namespace

bool tad::rt::readNpy(const std::string &path, NpyArray &out,
                      std::string &error) {
  auto fail = [&](const std::string &message) {
    error = path + ": " + message;
    return false;
  };
  // What the path is, before opening it: a folder opens as a stream on
  // Linux and fails only when read.
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return fail(errno == ENOENT
                    ? "cannot open file: no such file"
                    : std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return fail("is a directory, not a .npy file");
  if (!S_ISREG(info.st_mode))
    return fail("is not a regular file");
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return fail(std::string("cannot open file: ") + std::strerror(errno));
  uint64_t fileSize = uint64_t(info.st_size);
  auto readExactly = [&](uint8_t *into, size_t n) {
    return std::fread(into, 1, n, file.get()) == n;
  };
  // The header first: its length is in the first 12 bytes (10 for version
  // 1), and the data is read only once the header says how much to expect,
  // so a file of the wrong size costs nothing.
  std::vector<uint8_t> head(std::min<uint64_t>(fileSize, 12));
  if (!readExactly(head.data(), head.size()))
    return fail("read failed");
  size_t headerEnd = head.size();
  bool versioned = head.size() >= 10 &&
                   std::memcmp(head.data(), "\x93NUMPY", 6) == 0 &&
                   head[6] >= 1 && head[6] <= 3;
  if (versioned) {
    uint64_t length; // of the prefix and the header
    if (head[6] == 1)
      length = 10 + (head[8] | (uint64_t(head[9]) << 8));
    else if (head.size() < 12)
      length = 12; // truncated, which parseNpyHeader reports
    else
      length = 12 + (head[8] | (uint64_t(head[9]) << 8) |
                     (uint64_t(head[10]) << 16) | (uint64_t(head[11]) << 24));
    constexpr uint64_t kMaxHeader = uint64_t(1) << 20;
    if (length > kMaxHeader && length <= fileSize)
      return fail("the .npy header claims " + std::to_string(length) +
                  " bytes; tad reads headers of at most 1 MiB");
    headerEnd = size_t(std::min(length, fileSize));
  }
  head.resize(std::max(headerEnd, head.size()));
  if (headerEnd > 12 && !readExactly(head.data() + 12, headerEnd - 12))
    return fail("read failed");
  size_t dataStart = 0;
  if (!parseNpyHeader(path, head.data(), head.size(), fileSize, out, dataStart,
                      error))
    return false;
  // The header's own sizes were checked (at most 2^40 elements), but the
  // data may still not fit in memory.
  try {
    out.data.resize(size_t(fileSize - dataStart));
  } catch (const std::bad_alloc &) {
    return fail("cannot allocate " + std::to_string(fileSize - dataStart) +
                " bytes for its data");
  }
  if (std::fseek(file.get(), long(dataStart), SEEK_SET) != 0 ||
      !readExactly(out.data.data(), out.data.size()))
    return fail(std::string("read failed: ") + std::strerror(errno));
  return true;
}

bool tad::rt::writeNpy(OutputFile &file, const NpyArray &array,
                       std::string &error) {
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.resize(shape.size() - 1); // "(3,)"
  shape += ")";
  std::string dict = std::string("{'descr': '") + getNpyDescr(array.dtype) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end the header with a newline, as NumPy does.
  auto pad = [&](size_t prefixSize) {
    size_t total = prefixSize + dict.size() + 1;
    return dict + std::string((64 - total % 64) % 64, ' ') + '\n';
  };
  // Version 1.0 gives the header's length 2 bytes; a longer header (of
  // thousands of dimensions) takes version 2.0's 4, as NumPy writes it.
  std::string header = pad(10);
  char version = 1;
  if (header.size() > 0xffff) {
    header = pad(12);
    version = 2;
  }
  std::string prefix = std::string("\x93NUMPY") + version + '\0';
  for (int byte = 0; byte < (version == 1 ? 2 : 4); ++byte)
    prefix += char((header.size() >> (8 * byte)) & 0xff);
  return file.write(prefix, error) && file.write(header, error) &&
         file.write(array.data.data(), array.data.size(), error);
}

bool tad::rt::writeNpy(const std::string &path, const NpyArray &array,
                       std::string &error) {
  OutputFile file;
  return file.open(path, error) && writeNpy(file, array, error) &&
         file.finish(error) && file.commit(error);
}
