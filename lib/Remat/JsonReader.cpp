//===- JsonReader.cpp - a pull reader of JSON text ------------------------===//

#include "JsonReader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace tad::remat;

/// Nested objects and arrays deeper than this are rejected, so that no
/// input can exhaust the stack.
static constexpr unsigned kMaxDepth = 512;

void JsonReader::skipSpace() {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                               text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
}

bool JsonReader::fail(const std::string &what) {
  if (!message.empty())
    return false; // the first error is the one reported
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  message = what + " at " + std::to_string(line) + ":" + std::to_string(column);
  return false;
}

bool JsonReader::atObject() {
  skipSpace();
  return pos < text.size() && text[pos] == '{';
}

bool JsonReader::atArray() {
  skipSpace();
  return pos < text.size() && text[pos] == '[';
}

bool JsonReader::atEnd() {
  skipSpace();
  return pos == text.size() || fail("text after the end of the document");
}

bool JsonReader::readSequence(char open, char close, const char *what,
                              llvm::function_ref<bool()> item) {
  skipSpace();
  if (pos >= text.size() || text[pos] != open)
    return fail(std::string("expected ") + what);
  if (++depth > kMaxDepth)
    return fail("values nested too deep");
  ++pos;
  skipSpace();
  if (pos < text.size() && text[pos] == close) {
    ++pos, --depth;
    return true;
  }
  while (true) {
    if (!item())
      return false;
    skipSpace();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == close) {
      ++pos, --depth;
      return true;
    }
    return fail(std::string("expected ',' or '") + close + "'");
  }
}

bool JsonReader::readObject(
    llvm::function_ref<bool(const std::string &)> member) {
  return readSequence('{', '}', "an object", [&] {
    skipSpace();
    std::string key;
    if (!readString(key))
      return false;
    skipSpace();
    if (pos >= text.size() || text[pos] != ':')
      return fail("expected ':'");
    ++pos;
    return member(key);
  });
}

bool JsonReader::readArray(llvm::function_ref<bool()> element) {
  return readSequence('[', ']', "an array", element);
}

bool JsonReader::skipValue() {
  JsonScalar ignored;
  return readScalar(ignored);
}

bool JsonReader::readScalar(JsonScalar &value) {
  skipSpace();
  value = JsonScalar();
  if (pos >= text.size())
    return fail("expected a value");
  switch (text[pos]) {
  case '{':
    value.kind = JsonScalar::Kind::other;
    return readObject([&](const std::string &) { return skipValue(); });
  case '[':
    value.kind = JsonScalar::Kind::other;
    return readArray([&] { return skipValue(); });
  case '"':
    value.kind = JsonScalar::Kind::string;
    return readString(value.string);
  case 't':
    value.kind = JsonScalar::Kind::boolean;
    value.boolean = true;
    return readLiteral("true");
  case 'f':
    value.kind = JsonScalar::Kind::boolean;
    return readLiteral("false");
  case 'n':
    value.kind = JsonScalar::Kind::null;
    return readLiteral("null");
  default:
    return readNumber(value);
  }
}

bool JsonReader::readLiteral(llvm::StringRef word) {
  if (!text.substr(pos).starts_with(word))
    return fail("invalid value");
  pos += word.size();
  return true;
}

bool JsonReader::readNumber(JsonScalar &value) {
  size_t start = pos;
  auto digits = [&] {
    size_t from = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    return pos > from;
  };
  if (pos < text.size() && text[pos] == '-')
    ++pos;
  if (pos < text.size() && text[pos] == '0')
    ++pos;
  else if (!digits())
    return fail("invalid value");
  bool integral = true;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    integral = false;
    if (!digits())
      return fail("expected digits after '.'");
  }
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    integral = false;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
      ++pos;
    if (!digits())
      return fail("expected digits in the exponent");
  }
  std::string token = text.substr(start, pos - start).str();
  value.kind = JsonScalar::Kind::number;
  value.number = std::strtod(token.c_str(), nullptr);
  if (integral) {
    errno = 0;
    long long parsed = std::strtoll(token.c_str(), nullptr, 10);
    value.integral = errno == 0;
    value.integer = parsed;
  } else if (value.number == double(int64_t(value.number)) &&
             std::abs(value.number) < 9.2e18) {
    // 3.0 names the same node as 3, as llvm::json's getAsInteger had it.
    value.integral = true;
    value.integer = int64_t(value.number);
  }
  return true;
}

static void appendUtf8(std::string &out, uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xc0 | (c >> 6));
    out += char(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += char(0xe0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3f));
    out += char(0x80 | (c & 0x3f));
  } else {
    out += char(0xf0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3f));
    out += char(0x80 | ((c >> 6) & 0x3f));
    out += char(0x80 | (c & 0x3f));
  }
}

bool JsonReader::readString(std::string &out) {
  if (pos >= text.size() || text[pos] != '"')
    return fail("expected a string");
  ++pos;
  out.clear();
  auto hex4 = [&](uint32_t &c) {
    if (pos + 4 > text.size())
      return false;
    c = 0;
    for (int k = 0; k < 4; ++k) {
      char h = text[pos++];
      c <<= 4;
      if (h >= '0' && h <= '9')
        c |= h - '0';
      else if (h >= 'a' && h <= 'f')
        c |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        c |= h - 'A' + 10;
      else
        return false;
    }
    return true;
  };
  while (pos < text.size()) {
    // Plain characters are copied a run at a time: a dense graph's links
    // are millions of short names.
    size_t run = pos;
    while (run < text.size() && text[run] != '"' && text[run] != '\\' &&
           static_cast<unsigned char>(text[run]) >= 0x20)
      ++run;
    out.append(text.data() + pos, run - pos);
    pos = run;
    if (pos >= text.size())
      break;
    char c = text[pos++];
    if (c == '"')
      return true;
    if (c != '\\')
      return fail("a control character in a string");
    if (pos >= text.size())
      break;
    switch (char e = text[pos++]) {
    case '"': case '\\': case '/': out += e; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'u': {
      uint32_t code;
      if (!hex4(code))
        return fail("invalid \\u escape");
      if (code >= 0xd800 && code < 0xdc00 && pos + 1 < text.size() &&
          text[pos] == '\\' && text[pos + 1] == 'u') {
        size_t back = pos;
        pos += 2;
        uint32_t low;
        if (hex4(low) && low >= 0xdc00 && low < 0xe000)
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        else
          pos = back;
      }
      appendUtf8(out, code);
      break;
    }
    default:
      return fail("invalid escape in a string");
    }
  }
  return fail("a string without its closing '\"'");
}
