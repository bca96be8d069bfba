// html::Coord writes printf's "%.1f" itself (a report's plots have tens of thousands of
// coordinates); tested against snprintf over pixel values, exact and inexact halves, both signs,
// tiny and large values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "src/report/svg_parts.h"

namespace frfit {
namespace {

std::string Printf(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

TEST(SvgCoord, WritesWhatPrintfWrites) {
  std::vector<double> values = {0.0,
                                -0.0,
                                0.05,
                                0.15,
                                0.25,
                                0.35,
                                0.45,
                                -0.05,
                                -0.25,
                                1.05,
                                2.5,
                                -2.25,
                                999.95,
                                1e14,
                                -1e14,
                                1e20,
                                4.9999999999999989e-2,
                                123456789.25,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300000; ++i) {
    const double hundredths =
        static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000) / 100.0;
    values.push_back(hundredths);  // halves of a tenth, exact or just off in binary
    values.push_back(hundredths + (static_cast<double>(rng() % 1000) - 500.0) * 1e-15);
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 80)));
  }
  int differ = 0;
  for (double v : values)
    if (html::Coord(v) != Printf(v) && differ++ < 5)
      ADD_FAILURE() << v << ": " << html::Coord(v) << " vs " << Printf(v);
  EXPECT_EQ(differ, 0);
}

}  // namespace
}  // namespace frfit
