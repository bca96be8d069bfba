// FormatDouble starts its searches where a shorter text cannot read back; tested against the
// plain searches from 1 digit and 0 decimals on, which it replaces, over every kind of double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "frfit/common/error.h"

namespace frfit {
namespace {

std::string PlainFormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
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

TEST(FormatDouble, MatchesThePlainSearchesForEveryKindOfDouble) {
  std::mt19937_64 rng(2026);
  std::vector<double> values = {0.0,    -0.0,   1.0,   -1.0,   10.0,  1200.0, 1e-7, 0.1,
                                0.3,    1e22,   1e23,  5e-324, 1e308, 0.5,    2.5,  123456789012345678.0,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  for (int e = -30; e <= 30; ++e) {  // powers of 10 and their neighbours
    const double p = std::pow(10.0, e);
    values.insert(values.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 1e300), -p,
                                 9.5 * p, 9.95 * p, 9.999999999999999 * p, 0.95 * p});
  }
  for (int k = 0; k < 20000; ++k) {
    std::uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);  // every exponent
    values.push_back(static_cast<double>(rng() % 2000001) / 1000.0 - 1000.0);  // few digits
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -53) *
                     std::pow(10.0, static_cast<int>(rng() % 41) - 20));  // full digits, any scale
  }
  for (double v : values) ASSERT_EQ(FormatDouble(v), PlainFormatDouble(v)) << std::hexfloat << v;
}

}  // namespace
}  // namespace frfit
