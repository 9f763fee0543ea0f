//===- JsonReader.h - a pull reader of JSON text ----------------*- C++ -*-===//
//
// Reads JSON one value at a time, without building a document: a graph of
// 10,000 nodes and 1.7 million links is 60 MB of text, and llvm::json's
// document of it (a hash map per link object) took 0.6 GB at 2,400 nodes.
// Private to lib/Remat (Graph.cpp reads node-link graphs with it).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_REMAT_JSONREADER_H
#define TAD_LIB_REMAT_JSONREADER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tad::remat {

/// A scalar JSON value: what the node-link fields hold.
struct JsonScalar {
  enum class Kind { null, boolean, number, string, other } kind = Kind::other;
  bool boolean = false;
  double number = 0;
  bool integral = false; // a number written without '.' or exponent
  int64_t integer = 0;   // its value, when integral
  std::string string;
};

class JsonReader {
public:
  explicit JsonReader(llvm::StringRef text) : text(text) {}

  /// Reads an object, calling `member` with each key; `member` must read
  /// the member's value (or skip it). False on invalid JSON or when
  /// `member` returns false.
  bool readObject(llvm::function_ref<bool(const std::string &)> member);
  /// Reads an array, calling `element` for each element, which must read
  /// it.
  bool readArray(llvm::function_ref<bool()> element);
  /// Reads a scalar; a nested object or array is skipped and reported as
  /// Kind::other.
  bool readScalar(JsonScalar &value);
  bool skipValue();
  /// Whether the next value is an object / an array.
  bool atObject();
  bool atArray();
  /// After the root value: only whitespace may follow.
  bool atEnd();

  /// What went wrong, with the line and column: "expected ':' at 3:14".
  std::string error() const { return message; }

private:
  void skipSpace();
  bool fail(const std::string &what);
  /// An object's or an array's items between `open` and `close`, separated
  /// by commas; `what` names the container in the error when `open` is
  /// missing.
  bool readSequence(char open, char close, const char *what,
                    llvm::function_ref<bool()> item);
  bool readString(std::string &out);
  bool readNumber(JsonScalar &value);
  bool readLiteral(llvm::StringRef word);

  llvm::StringRef text;
  size_t pos = 0;
  unsigned depth = 0;
  std::string message;
};

} // namespace tad::remat

#endif // TAD_LIB_REMAT_JSONREADER_H
