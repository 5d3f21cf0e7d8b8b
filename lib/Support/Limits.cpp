//===- Limits.cpp - process-wide limits on inputs and runs ----------------===//

#include "strata/Support/Limits.h"

#include <cctype>

namespace strata {

Limits &limits() {
  static Limits instance;
  return instance;
}

std::string formatBytes(uint64_t bytes) {
  std::string s = std::to_string(bytes) + " bytes";
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  uint64_t scaled = bytes;
  int unit = -1;
  while (scaled >= 1024 && scaled % 1024 == 0 && unit < 3) {
    scaled /= 1024;
    ++unit;
  }
  if (unit >= 0)
    s += " (" + std::to_string(scaled) + " " + units[unit] + ")";
  return s;
}

std::string formatElementLimit() {
  int64_t n = limits().maxElements;
  if (n > 0 && (n & (n - 1)) == 0) {
    int log = 0;
    while ((int64_t(1) << log) != n)
      ++log;
    return "2^" + std::to_string(log);
  }
  return std::to_string(n);
}

std::string describe(const TensorAllocationError &e) {
  if (!e.overLimit)
    return "out of memory allocating " + formatBytes(e.bytes);
  std::string n = e.elements < 0 ? std::string("more than 2^63")
                                 : std::to_string(e.elements);
  return "a tensor of " + n + " elements is over the element limit of " +
         formatElementLimit() + " (--max-elements raises it)";
}

bool parseByteSize(const std::string &text, uint64_t &bytes) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
       ++i) {
    unsigned digit = text[i] - '0';
    if (value > (UINT64_MAX - digit) / 10)
      return false;
    value = value * 10 + digit;
  }
  unsigned shift = 0;
  if (i < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: return false;
    }
    ++i;
  }
  if (i != text.size() || (shift && value > (UINT64_MAX >> shift)))
    return false;
  bytes = value << shift;
  return true;
}

} // namespace strata
