// Tests for ParameterSpace (u <-> physical maps, validation) and the unit-interval reflection.
#include "frfit/optim/parameter_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/common/rng.h"

namespace frfit {
namespace {

ParameterSpace Example() {
  ParameterSpace space;
  space.Add("k1", 1e3, 1e7);
  space.Add("d1", 0.5, 20.0);
  space.Add("offset", -2.0, 3.0, ParameterScale::kLinear);
  return space;
}

TEST(ParameterSpaceTest, EndPointsAndMidpointOfLogScale) {
  const ParameterSpace space = Example();
  EXPECT_EQ(space.ToPhysical(0, 0.0), 1e3);
  EXPECT_EQ(space.ToPhysical(0, 1.0), 1e7);
  EXPECT_NEAR(space.ToPhysical(0, 0.5), 1e5, 1e5 * 1e-12);  // geometric mean
  EXPECT_NEAR(space.ToPhysical(2, 0.5), 0.5, 1e-15);        // arithmetic mean
  EXPECT_EQ(space.ToPhysical(2, 1.0), 3.0);
}

TEST(ParameterSpaceTest, RoundTripAndBoundsHold) {
  const ParameterSpace space = Example();
  Rng rng(3);
  std::vector<double> u(space.dim() * 1000);
  for (double& x : u) x = rng.Uniform();
  const std::vector<double> physical = space.ToPhysical(u);
  for (std::size_t k = 0; k < u.size(); ++k) {
    const ParameterBounds& b = space.bounds(k % space.dim());
    ASSERT_GE(physical[k], b.lower);
    ASSERT_LE(physical[k], b.upper);
  }
  const std::vector<double> back = space.ToNormalized(physical);
  for (std::size_t k = 0; k < u.size(); ++k) EXPECT_NEAR(back[k], u[k], 1e-13);
}

TEST(ParameterSpaceTest, OutOfRangeInputsAreClamped) {
  const ParameterSpace space = Example();
  EXPECT_EQ(space.ToPhysical(0, -0.5), 1e3);
  EXPECT_EQ(space.ToPhysical(0, 1.5), 1e7);
  EXPECT_EQ(space.ToNormalized(1, 100.0), 1.0);
  EXPECT_EQ(space.ToNormalized(1, 0.0), 0.0);
}

TEST(ParameterSpaceTest, PackedBatchSizesAreChecked) {
  const ParameterSpace space = Example();
  std::vector<double> u(4), out(4);
  EXPECT_THROW(space.ToPhysical(u, out), Error);
  std::vector<double> u6(6), out5(5);
  EXPECT_THROW(space.ToPhysical(u6, out5), Error);
}

TEST(ParameterSpaceTest, IsValidAcceptsGoodBounds) {
  std::string error;
  EXPECT_TRUE(Example().IsValid(&error)) << error;
}

TEST(ParameterSpaceTest, IsValidRejectsNonPositiveLowerBoundForLogScale) {
  ParameterSpace space = Example();
  space.Add("k2", 0.0, 10.0);
  std::string error;
  EXPECT_FALSE(space.IsValid(&error));
  EXPECT_NE(error.find("parameter 3"), std::string::npos) << error;
  EXPECT_NE(error.find("k2"), std::string::npos) << error;
  EXPECT_NE(error.find("> 0"), std::string::npos) << error;
}

TEST(ParameterSpaceTest, IsValidRejectsInvertedAndNaNBounds) {
  std::string error;
  ParameterSpace inverted;
  inverted.Add("a", 5.0, 5.0);
  EXPECT_FALSE(inverted.IsValid(&error));
  EXPECT_NE(error.find("parameter 0 (a)"), std::string::npos) << error;

  ParameterSpace nan;
  nan.Add("b", 1.0, std::nan(""), ParameterScale::kLinear);
  EXPECT_FALSE(nan.IsValid(&error));
  EXPECT_NE(error.find("finite"), std::string::npos) << error;

  ParameterSpace linear_negative;  // negative bounds are fine when linear
  linear_negative.Add("c", -3.0, -1.0, ParameterScale::kLinear);
  EXPECT_TRUE(linear_negative.IsValid(&error)) << error;
}

TEST(ReflectIntoUnitIntervalTest, IsATriangleWave) {
  EXPECT_EQ(ReflectIntoUnitInterval(0.3), 0.3);
  EXPECT_EQ(ReflectIntoUnitInterval(1.0), 1.0);
  EXPECT_EQ(ReflectIntoUnitInterval(0.0), 0.0);
  EXPECT_DOUBLE_EQ(ReflectIntoUnitInterval(1.25), 0.75);
  EXPECT_DOUBLE_EQ(ReflectIntoUnitInterval(-0.25), 0.25);
  EXPECT_DOUBLE_EQ(ReflectIntoUnitInterval(2.5), 0.5);
  EXPECT_DOUBLE_EQ(ReflectIntoUnitInterval(-3.75), 0.25);
  EXPECT_TRUE(std::isnan(ReflectIntoUnitInterval(INFINITY)));
  Rng rng(11);
  for (int k = 0; k < 10000; ++k) {
    const double v = (rng.Uniform() - 0.5) * 1e3;
    const double u = ReflectIntoUnitInterval(v);
    ASSERT_GE(u, 0.0);
    ASSERT_LE(u, 1.0);
    // Continuity: a small step in v moves u by at most the same amount (up to rounding).
    EXPECT_LE(std::fabs(ReflectIntoUnitInterval(v + 1e-6) - u), 1e-6 + 1e-12);
  }
}

}  // namespace
}  // namespace frfit
