#include "frfit/common/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace frfit {
namespace {

std::string Compose(const std::string& file, const std::string& field,
                    const std::string& message) {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

}  // namespace

Error::Error(const std::string& file, const std::string& field, const std::string& message)
    : std::runtime_error(Compose(file, field, message)), file_(file), field_(field) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

bool Invalid(std::string* error, const std::string& why) {
  if (error) *error = why;
  return false;
}

void Require(bool ok, const std::string& file, const std::string& field,
             const std::string& expected, const std::string& got) {
  if (!ok) throw Error(file, field, "expected " + expected + ", got " + got);
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // The shortest of the fixed and the exponent notation that reads back as the same double:
  // "10" and "1200", not "1e+01" and "1.2e+03"; "1e-07", not "0.0000001".
  // Both searches start where a shorter text cannot read back: below the digits of the shortest
  // exact text (std::to_chars), and for the fixed notation 2 decimals below what those digits
  // need (log10 may be off by one at a power of 10). From there on they are the plain searches,
  // snprintf and strtod, which took up to 35 rounds a number: a fleet's HTML reports, full of
  // exact values, spent a tenth of a night here.
  char buf[64];
  const std::to_chars_result shortest =
      std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  int digits = 0;  // significant digits of the shortest text: "d.ddde+XX"
  for (const char* c = buf; c < shortest.ptr && *c != 'e'; ++c) digits += *c >= '0' && *c <= '9';
  std::string best;
  for (int precision = std::max(1, digits); precision <= 17 && best.empty(); ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) best = buf;
  }
  const int integer_digits =
      value == 0.0 ? 1 : static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1;
  for (int decimals = std::max(0, digits - integer_digits - 2); decimals <= 17; ++decimals) {
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    if (std::strtod(buf, nullptr) == value) {
      if (std::string(buf).size() <= best.size()) best = buf;
      break;
    }
  }
  return best;
}

}  // namespace frfit
