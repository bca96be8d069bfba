// The one weight rule (cost/residual_weight.h) against the variances it claims: sampled noise on a
// measured H gives a log residual whose variance is 1/InverseNoiseVariance under the log costs and
// a linear one whose variance is 1/InverseNoiseVariance under normalized_complex.
#include "frfit/cost/residual_weight.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

namespace frfit {
namespace {

// E|δ|² of the residual of H + noise (complex circular, E|noise|² = variance) against H.
double SampledVariance(std::complex<double> h, double variance, bool log_residual) {
  std::mt19937_64 rng(7);
  auto uniform = [&](double offset) { return (static_cast<double>(rng() >> 11) + offset) / 0x1p53; };
  auto gaussian = [&] { return std::sqrt(-2.0 * std::log(uniform(0.5))) * std::cos(2.0 * M_PI * uniform(0.0)); };
  const double scale = std::sqrt(variance / 2.0);  // per component
  const int n = 200000;
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    const std::complex<double> noisy = h + std::complex<double>(scale * gaussian(), scale * gaussian());
    sum += std::norm(log_residual ? std::log(noisy) - std::log(h) : noisy - h);
  }
  return sum / n;
}

TEST(ResidualWeight, IsTheInverseVarianceOfEachCostsResidual) {
  const std::complex<double> h(3.0, -4.0);  // |H|² = 25
  const double variance = 0.25e-2;          // σ/|H| = 1 %: first order holds
  for (CostType type : {CostType::kLogComplex, CostType::kNormalizedComplex}) {
    const double sampled = SampledVariance(h, variance, type != CostType::kNormalizedComplex);
    EXPECT_NEAR(InverseNoiseVariance(type, h, variance) * sampled, 1.0, 0.01) << ToString(type);
  }
}

TEST(ResidualWeight, WeightUnderAnotherCostCarriesTheSameKnowledge) {
  const std::complex<double> h(3.0, -4.0);
  const double variance = 0.5;
  EXPECT_DOUBLE_EQ(WeightUnder(CostType::kLogComplex, CostType::kNormalizedComplex, h,
                               InverseNoiseVariance(CostType::kNormalizedComplex, h, variance)),
                   InverseNoiseVariance(CostType::kLogComplex, h, variance));
  EXPECT_DOUBLE_EQ(WeightUnder(CostType::kNormalizedComplex, CostType::kLogMagnitude, h, 50.0), 2.0);
}

TEST(ResidualWeight, OnlyNonNoiseWeightsOfAnFrfSetAreNormalized) {
  CostOptions cost;
  cost.type = CostType::kNormalizedComplex;
  cost.weights.mode = WeightMode::kPeaks;
  EXPECT_TRUE(NormalizesWeights(cost, false));
  EXPECT_FALSE(NormalizesWeights(cost, true));
  cost.weights.mode = WeightMode::kNoise;
  EXPECT_FALSE(NormalizesWeights(cost, false));
  cost.type = CostType::kLogComplex;
  cost.weights.mode = WeightMode::kPeaks;
  EXPECT_FALSE(NormalizesWeights(cost, false));
}

}  // namespace
}  // namespace frfit
