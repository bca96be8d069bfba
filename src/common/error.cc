#include "frfit/common/error.h"

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

void Require(bool ok, const std::string& file, const std::string& field,
             const std::string& expected, const std::string& got) {
  if (!ok) throw Error(file, field, "expected " + expected + ", got " + got);
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // The shortest of the fixed and the exponent notation that reads back as the same double:
  // "10" and "1200", not "1e+01" and "1.2e+03"; "1e-07", not "0.0000001".
  char buf[64];
  std::string best;
  for (int precision = 1; precision <= 17 && best.empty(); ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) best = buf;
  }
  for (int decimals = 0; decimals <= 17; ++decimals) {
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    if (std::strtod(buf, nullptr) == value) {
      if (std::string(buf).size() <= best.size()) best = buf;
      break;
    }
  }
  return best;
}

}  // namespace frfit
