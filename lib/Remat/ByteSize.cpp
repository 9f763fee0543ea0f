//===- ByteSize.cpp - memory budgets written by users ---------------------===//

#include "tad/Remat/ByteSize.h"

#include <cctype>
#include <cmath>

using namespace tad::remat;

bool tad::remat::parseByteSize(std::string_view text, int64_t &bytes,
                               std::string &error) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  // The number: digits with at most one decimal point.
  size_t i = 0;
  bool seenDigit = false, seenPoint = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c)))
      seenDigit = true;
    else if (c == '.' && !seenPoint)
      seenPoint = true;
    else
      break;
  }
  if (!seenDigit) {
    error = "expected a number of bytes, such as 65536 or 64KiB, got '" +
            std::string(text) + "'";
    return false;
  }
  std::string number(s.substr(0, i));
  std::string_view suffix = s.substr(i);
  while (!suffix.empty() && suffix.front() == ' ')
    suffix.remove_prefix(1);

  double scale;
  if (suffix.empty() || suffix == "B")
    scale = 1;
  else if (suffix == "KiB")
    scale = 1024.0;
  else if (suffix == "MiB")
    scale = 1024.0 * 1024;
  else if (suffix == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "TiB") // the report prints sizes up to TiB
    scale = 1024.0 * 1024 * 1024 * 1024;
  else {
    error = "unknown unit '" + std::string(suffix) + "' in '" +
            std::string(text) + "' (use B, KiB, MiB, GiB or TiB)";
    return false;
  }
  if (number.size() > 18) {
    error = "'" + std::string(text) + "' is too large";
    return false;
  }
  double value = std::stod(number) * scale;
  if (value >= 9.0e18) {
    error = "'" + std::string(text) + "' is too large";
    return false;
  }
  // A count of bytes is whole; a size in a unit may be fractional, as the
  // remat report prints it (`14.8 MiB`): it stands for the bytes it
  // reaches, rounded down, since a budget is a bound.
  if (scale == 1 && value != std::floor(value)) {
    error = "'" + std::string(text) + "' is not a whole number of bytes";
    return false;
  }
  bytes = static_cast<int64_t>(std::floor(value));
  return true;
}
