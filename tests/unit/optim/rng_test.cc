// Tests for frfit::Rng: reproducibility, state restore, ranges and moments of its deviates.
#include "frfit/common/rng.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "frfit/common/error.h"

namespace frfit {
namespace {

std::vector<double> Draw(Rng& rng, int n) {
  std::vector<double> out;
  for (int k = 0; k < n; ++k) {
    out.push_back(rng.Uniform());
    out.push_back(rng.Normal());
    out.push_back(static_cast<double>(rng.UniformInt(7)));
  }
  return out;
}

TEST(RngTest, SameSeedGivesSameSequence) {
  Rng a(42), b(42);
  EXPECT_EQ(Draw(a, 1000), Draw(b, 1000));
}

TEST(RngTest, DifferentSeedsGiveDifferentSequences) {
  Rng a(1), b(2);
  EXPECT_NE(Draw(a, 10), Draw(b, 10));
}

TEST(RngTest, UniformMatchesTheDocumentedMapping) {
  // The mapping is part of the contract (results must not depend on the standard library).
  std::mt19937_64 engine(7);
  Rng rng(7);
  for (int k = 0; k < 100; ++k) {
    const double expected = static_cast<double>(engine() >> 11) * 0x1p-53;
    EXPECT_EQ(rng.Uniform(), expected);
  }
}

TEST(RngTest, RestoredStateContinuesIdentically) {
  Rng a(123);
  Draw(a, 17);
  a.Normal();  // leaves a spare normal deviate pending, which must be part of the state
  const std::string state = a.SaveState();
  const std::vector<double> expected = Draw(a, 500);

  Rng b(999);
  b.RestoreState(state);
  EXPECT_EQ(Draw(b, 500), expected);
}

TEST(RngTest, RestoreRejectsGarbage) {
  Rng a(1);
  EXPECT_THROW(a.RestoreState("not a state"), Error);
}

TEST(RngTest, UniformStaysInHalfOpenUnitInterval) {
  Rng rng(5);
  double lo = 1.0, hi = 0.0;
  for (int k = 0; k < 100000; ++k) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_LT(lo, 1e-3);
  EXPECT_GT(hi, 1.0 - 1e-3);
}

TEST(RngTest, NormalHasUnitVarianceAndZeroMean) {
  Rng rng(2024);
  const int n = 100000;
  double sum = 0.0, sum_sq = 0.0;
  for (int k = 0; k < n; ++k) {
    const double z = rng.Normal();
    sum += z;
    sum_sq += z * z;
  }
  const double mean = sum / n;
  const double variance = sum_sq / n - mean * mean;
  // Standard errors: 1/sqrt(n) ≈ 0.0032 for the mean, sqrt(2/n) ≈ 0.0045 for the variance.
  EXPECT_NEAR(mean, 0.0, 0.015);
  EXPECT_NEAR(variance, 1.0, 0.02);
}

TEST(RngTest, UniformIntCoversRangeEvenly) {
  Rng rng(9);
  std::vector<int> counts(5, 0);
  for (int k = 0; k < 50000; ++k) {
    const std::uint64_t v = rng.UniformInt(5);
    ASSERT_LT(v, 5u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // ~4.5 sigma
  EXPECT_EQ(rng.UniformInt(1), 0u);
  EXPECT_THROW(rng.UniformInt(0), Error);
}

}  // namespace
}  // namespace frfit
