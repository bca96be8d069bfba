// The model check when the noise variance is itself an estimate (fit/model_check_noise.h,
// docs/noise.md "When the noise is itself estimated"): the standardised residual of an H1
// estimate of n averages, |z|² = |Ĥ − H|²/σ̂² with σ̂² from its own coherence, follows
// (n − 2)/(n − 1)·F(2, 2n − 2), not the known variance's Exp(1); the map to the known-variance
// law makes it Exp(1) again. Checked on H1 estimates simulated here (force spectra varying from
// hit to hit, complex normal output noise) against the closed-form tails.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "frfit/results/model_check_noise.h"

namespace frfit {
namespace {

// |z|² of `trials` H1 estimates of n averages each.
std::vector<double> SimulatedZ2(int n, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const std::complex<double> h(2.0, -1.0);
  std::vector<double> out;
  for (int t = 0; t < trials; ++t) {
    std::complex<double> sxy = 0.0;
    double sxx = 0.0, syy = 0.0;
    for (int k = 0; k < n; ++k) {
      const std::complex<double> x(1.0 + 0.3 * normal(rng), 0.3 * normal(rng));
      const std::complex<double> y = h * x + 0.8 * std::complex<double>(normal(rng), normal(rng));
      sxy += std::conj(x) * y, sxx += std::norm(x), syy += std::norm(y);
    }
    const std::complex<double> estimate = sxy / sxx;
    out.push_back(std::norm(estimate - h) / VarianceFromCoherence(estimate, std::norm(sxy) / (sxx * syy), n));
  }
  return out;
}

// The fraction of `values` above t, and its binomial standard deviation under probability p.
double Above(const std::vector<double>& values, double t) {
  double count = 0;
  for (double v : values) count += v > t;
  return count / values.size();
}
double Spread(double p, size_t trials) { return std::sqrt(p * (1 - p) / trials); }

TEST(EstimatedNoise, StandardisedResidualFollowsTheFLawNotTheKnownVariancesOne) {
  const int trials = 200000;
  for (int n : {3, 5, 10}) {
    const std::vector<double> z2 = SimulatedZ2(n, trials, 11 + n);
    for (double t : {1.0, 4.0, 12.0}) {
      const double law = std::pow(1.0 + t / (n - 2), -(n - 1));
      EXPECT_NEAR(Above(z2, t), law, 5 * Spread(law, trials) + 1e-5) << n << " averages, t " << t;
    }
  }
  // The cause of the false alarms: at 5 averages |z|² > 12 happens 0.16 % of the time, where a
  // known variance gives 6e-6: among 2000 lines and entries three such lines, where none belongs.
  EXPECT_GT(Above(SimulatedZ2(5, trials, 3), 12.0), 100 * std::exp(-12.0));
}

TEST(EstimatedNoise, TheMapToTheKnownVarianceLawMakesItExponential) {
  const int trials = 200000;
  for (int n : {3, 4, 5, 10}) {
    std::vector<double> w2;
    double mean = 0.0;
    for (double z2 : SimulatedZ2(n, trials, 100 + n)) {
      w2.push_back(KnownVarianceEquivalent(z2, n));
      mean += w2.back() / trials;
    }
    EXPECT_NEAR(mean, 1.0, 0.01) << n << " averages";
    for (double t : {1.0, 3.0, 6.0, 9.0}) {
      const double law = std::exp(-t);
      EXPECT_NEAR(Above(w2, t), law, 5 * Spread(law, trials) + 1e-5) << n << " averages, t " << t;
    }
  }
  EXPECT_EQ(KnownVarianceEquivalent(7.5, 0), 7.5);  // a known variance: unchanged
}

// A set whose noise variance is the coherence formula with 4 averages in column x and 5 in the
// others, as frfit frf writes it when the directions kept different numbers of hits.
FrfSet CoherenceSet() {
  FrfSet set;
  set.frequency_hz = {1.0, 2.0, 3.0};
  set.H.assign(27, 0.0);
  set.coherence.assign(27, 0.0);
  set.noise_variance.assign(27, 0.0);
  set.present.fill(true);
  set.averages = 4;
  for (int k = 0; k < 3; ++k)
    for (int e = 0; e < 9; ++e) {
      const size_t i = k * 9 + e;
      set.H[i] = {1.0 + k + e, 0.5 * e - k};
      set.coherence[i] = 0.9 + 0.01 * (k + e);
      set.noise_variance[i] = VarianceFromCoherence(set.H[i], set.coherence[i], e % 3 == 0 ? 4 : 5);
    }
  return set;
}

TEST(EstimatedNoise, AveragesBehindEachEntrysVariance) {
  FrfSet set = CoherenceSet();
  set.noise_source = "variance";
  const std::array<int, 9> columns{4, 5, 5, 4, 5, 5, 4, 5, 5};
  EXPECT_EQ(VarianceAverages(set), columns);
  set.noise_source = "coherence";  // the file's averages for every entry
  EXPECT_EQ(VarianceAverages(set), (std::array<int, 9>{4, 4, 4, 4, 4, 4, 4, 4, 4}));
  set.noise_source = "estimated";
  EXPECT_EQ(VarianceAverages(set), (std::array<int, 9>{}));
  set.noise_source = "variance";  // a variance that is not the formula's on one line: known
  set.noise_variance[9 + 1] *= 1.5;
  std::array<int, 9> expected = columns;
  expected[1] = 0;
  EXPECT_EQ(VarianceAverages(set), expected);
  set.coherence.clear();  // a variance without coherence: known
  EXPECT_EQ(VarianceAverages(set), (std::array<int, 9>{}));
}

}  // namespace
}  // namespace frfit
