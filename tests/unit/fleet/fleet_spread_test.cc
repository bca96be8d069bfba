// Each parameter's spread across a fleet night (src/fleet/fleet_spread.h) and how the index page
// shows it: quartiles on the logarithm of the values, Tukey's fences, outliers named.
#include "src/fleet/fleet_spread.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frfit/fleet/fleet_run.h"
#include "frfit/report/fleet_index.h"

namespace frfit {
namespace {

FleetRobotOutcome Robot(const std::string& name, double k, double d,
                        const std::string& status = "ok") {
  FleetRobotOutcome r;
  r.name = name;
  r.status = status;
  r.parameter_names = {"k_z1", "d_z1"};
  r.parameters = {k, d};
  return r;
}

TEST(FleetSpread, QuartilesOnTheLogarithmAndTukeyOutliersNamed) {
  FleetReport report;
  // k_z1: e^1 … e^8 scaled by 1e6; one robot three decades below. d_z1: all alike but one skipped
  // robot whose (absurd) value must not count.
  const double e = std::exp(1.0);
  for (int i = 1; i <= 8; ++i)
    report.robots.push_back(Robot("r" + std::to_string(i), 1e6 * std::pow(e, i), 100.0));
  report.robots.push_back(Robot("low", 1e3, 100.0));
  report.robots.push_back(Robot("skipped", 1e12, 1e12, "skipped"));
  const std::vector<FleetParameterSpread> spread = FleetSpread(report);
  ASSERT_EQ(spread.size(), 2u);
  const FleetParameterSpread& k = spread[0];
  EXPECT_EQ(k.name, "k_z1");
  EXPECT_EQ(k.robots, 9);
  EXPECT_TRUE(k.log_scale);
  // ln(k / 1e6) sorted: ln(1e-3) = −6.91, 1, 2, …, 8. Quartile q at position q·8: q1 = the 3rd
  // value (2), median the 5th (4), q3 the 7th (6); IQR 4, fences 2 − 6 = −4 and 6 + 6 = 12.
  EXPECT_NEAR(std::log(k.q1 / 1e6), 2.0, 1e-12);
  EXPECT_NEAR(std::log(k.median / 1e6), 4.0, 1e-12);
  EXPECT_NEAR(std::log(k.q3 / 1e6), 6.0, 1e-12);
  EXPECT_NEAR(std::log(k.low_fence / 1e6), -4.0, 1e-12);
  EXPECT_NEAR(std::log(k.high_fence / 1e6), 12.0, 1e-12);
  EXPECT_EQ(k.min, 1e3);  // the extremes as fitted
  ASSERT_EQ(k.outliers.size(), 1u);
  EXPECT_EQ(k.outliers[0].first, "low");
  const FleetParameterSpread& d = spread[1];
  EXPECT_EQ(d.robots, 9);
  EXPECT_EQ(d.max, 100.0);
  EXPECT_TRUE(d.outliers.empty());
  // The index names the outlier beside its strip.
  const std::string html = RenderFleetIndex({}, spread);
  EXPECT_NE(html.find("Parameters across the fleet"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"outlier\">low 1000</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>low: 1000</title>"), std::string::npos);
}

TEST(FleetSpread, NoOutliersNamedInAFleetTooSmallForQuartiles) {
  FleetReport report;
  report.robots = {Robot("a", 1e6, 10), Robot("b", 1.1e6, 10), Robot("c", 1e9, 10)};
  const std::vector<FleetParameterSpread> spread = FleetSpread(report);
  ASSERT_EQ(spread.size(), 2u);
  EXPECT_LT(spread[0].robots, kFleetSpreadMinRobots);
  EXPECT_TRUE(spread[0].outliers.empty());
  EXPECT_EQ(spread[0].max, 1e9);
}

TEST(FleetSpread, ValuesNotAllPositiveSpreadLinearly) {
  FleetReport report;
  for (int i = 0; i < 5; ++i) report.robots.push_back(Robot("r" + std::to_string(i), 1e6, i * 1.0));
  const std::vector<FleetParameterSpread> spread = FleetSpread(report);
  const FleetParameterSpread& d = spread[1];
  EXPECT_FALSE(d.log_scale);
  EXPECT_DOUBLE_EQ(d.q1, 1.0);  // 0 1 2 3 4: positions 1, 2, 3
  EXPECT_DOUBLE_EQ(d.median, 2.0);
  EXPECT_DOUBLE_EQ(d.q3, 3.0);
  EXPECT_TRUE(d.outliers.empty());
}

}  // namespace
}  // namespace frfit
