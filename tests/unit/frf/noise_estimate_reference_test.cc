// The noise estimate's fast paths against the code they replaced: the local rational model's
// written-out QR against Eigen's HouseholderQR (the version before, copied here) bit for bit, and
// the pooled likelihood's Newton steps against the golden section of the version before, to the
// golden section's own precision.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "src/frf/exp_likelihood.h"
#include "src/frf/local_rational.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

std::uint64_t Bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The local rational sample as it was computed before (noise_estimate.cc until November 2026).
bool EigenLocalSample(const FrfSet& set, int entry, int centre, int half_window, double* variance,
                      double* magnitude2) {
  const int lines = set.num_lines(), width = 2 * half_window + 1;
  const int first = std::clamp(centre - half_window, 0, lines - width);
  const double scale = 0.5 * (set.frequency_hz[first + width - 1] - set.frequency_hz[first]);
  Eigen::MatrixXcd x(width, 5);
  Eigen::VectorXcd y(width);
  for (int r = 0; r < width; ++r) {
    const int l = first + r;
    const double s = (set.frequency_hz[l] - set.frequency_hz[centre]) / scale;
    const std::complex<double> h = set.H[l * 9 + entry];
    double power = 1.0;
    for (int d = 0; d <= 2; ++d, power *= s) x(r, d) = power;
    power = s;
    for (int d = 1; d <= 2; ++d, power *= s) x(r, 2 + d) = -h * power;
    y(r) = h;
  }
  const Eigen::HouseholderQR<Eigen::MatrixXcd> qr(x);
  const Eigen::VectorXcd theta = qr.solve(y);
  const Eigen::MatrixXcd q = qr.householderQ() * Eigen::MatrixXcd::Identity(width, 5);
  const double leverage = q.row(centre - first).squaredNorm();
  if (!(1.0 - leverage >= 0.05)) return false;
  *variance = std::norm(set.H[centre * 9 + entry] - theta(0)) / (1.0 - leverage);
  *magnitude2 = std::norm(theta(0));
  return std::isfinite(*variance) && std::isfinite(*magnitude2);
}

FrfSet NoisyPaperFrfs(double relative, double floor, std::uint64_t seed) {
  const Model model = LoadModel(kData + "paper_3dof/model.yaml");
  const std::vector<double> parameters =
      LoadParameters(kData + "paper_3dof/params_table1.yaml", model);
  const Posture posture = Linearize(model, "milling");
  FrfSet set = Synthesize(posture, Coefficients(model, parameters, posture.q),
                          MakeBand(0.2, 30.0, 0.1, "band"), FrfFormat::kInertance);
  AddMeasurementNoise({relative, floor}, seed, false, &set);
  return set;
}

TEST(LocalRationalSample, EqualsEigensHouseholderQrBitForBit) {
  int compared = 0, differ = 0;
  LocalRationalWorkspace ws;
  for (const auto& [relative, seed] : {std::pair{0.03, 1}, {0.001, 2}, {0.0, 3}}) {
    const FrfSet set = NoisyPaperFrfs(relative, relative / 10, seed);
    for (int half : {2, 6, 9})
      for (int e = 0; e < 9; ++e)
        for (int k = 0; k < set.num_lines(); ++k) {
          double v0 = -1, m0 = -1, v1 = -1, m1 = -1;
          const bool ok0 = EigenLocalSample(set, e, k, half, &v0, &m0);
          const bool ok1 = LocalRationalSample(set, e, k, half, 0.05, &ws, &v1, &m1);
          ++compared;
          if (ok0 != ok1 || (ok0 && (Bits(v0) != Bits(v1) || Bits(m0) != Bits(m1)))) ++differ;
        }
  }
  EXPECT_EQ(differ, 0) << "of " << compared << " samples";
}

// The pooled likelihood as the version before minimised it (noise_estimate.cc until 26 November
// 2026): golden section in log σ² over each term's whole bracket, 80 steps, value by value. Its
// result is the minimum to the rounding of a flat bottom (about 1e-8 relative).
double Likelihood(const std::vector<double>& m, const std::vector<double>& v, double alpha,
                  double beta) {
  double sum = 0.0;
  for (size_t i = 0; i < m.size(); ++i) {
    const double s = alpha * m[i] + beta;
    sum += std::log(s) + v[i] / s;
  }
  return sum;
}
template <typename F>
double GoldenInLog(F f, double lo, double hi) {
  double a = std::log(lo), b = std::log(hi);
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = b - g * (b - a), d = a + g * (b - a), fc = f(std::exp(c)), fd = f(std::exp(d));
  for (int it = 0; it < 80; ++it) {
    if (fc < fd) b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(std::exp(c));
    else a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(std::exp(d));
  }
  return std::exp(0.5 * (a + b));
}
struct Reference {
  double alpha = 0.0;
  std::vector<double> beta;
  int used = 0, trimmed = 0;
  std::vector<std::vector<double>> kept_m, kept_v;  // per entry, after the last trimming
};
// The estimate's samples (its local models and floors) pooled as the version before did.
Reference GoldenSectionEstimate(const FrfSet& set) {
  std::vector<std::vector<double>> m, v;
  std::vector<double> beta_floor;
  LocalRationalWorkspace ws;
  for (int e = 0; e < 9; ++e) {
    double peak = 0.0;
    for (int k = 0; k < set.num_lines(); ++k) peak = std::max(peak, std::abs(set.H[k * 9 + e]));
    m.emplace_back(), v.emplace_back();
    for (int k = 0; k < set.num_lines(); ++k) {
      double variance = 0.0, magnitude2 = 0.0;
      if (!LocalRationalSample(set, e, k, 6, 0.05, &ws, &variance, &magnitude2)) continue;
      m.back().push_back(magnitude2);
      v.back().push_back(std::max(variance, std::pow(1e-14 * peak, 2)));
    }
    beta_floor.push_back(std::max(std::pow(1e-14 * peak, 2), std::numeric_limits<double>::min()));
  }
  const double alpha_floor = 1e-8;
  Reference out;
  std::vector<double> ratios, low;
  double max_ratio = alpha_floor, max_v = 0.0;
  for (int e = 0; e < 9; ++e) {
    std::vector<double> sorted = m[e];
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    low.clear();
    for (size_t i = 0; i < m[e].size(); ++i) {
      max_v = std::max(max_v, v[e][i]);
      if (m[e][i] <= median) low.push_back(v[e][i]);
      else if (m[e][i] > 0.0) ratios.push_back(v[e][i] / m[e][i]);
      if (m[e][i] > 0.0) max_ratio = std::max(max_ratio, v[e][i] / m[e][i]);
    }
    std::sort(low.begin(), low.end());
    out.beta.push_back(std::max(low[low.size() / 2] / std::log(2.0), beta_floor[e]));
  }
  std::sort(ratios.begin(), ratios.end());
  out.alpha = std::max(ratios[ratios.size() / 2] / std::log(2.0), alpha_floor);
  std::vector<std::vector<double>> km = m, kv = v;
  for (int round = 0; round < 12; ++round) {
    for (int e = 0; e < 9; ++e)
      out.beta[e] = GoldenInLog([&](double b) { return Likelihood(km[e], kv[e], out.alpha, b); },
                                beta_floor[e], std::max(2.0 * max_v, 4.0 * beta_floor[e]));
    out.alpha = GoldenInLog(
        [&](double a) {
          double sum = 0.0;
          for (int e = 0; e < 9; ++e) sum += Likelihood(km[e], kv[e], a, out.beta[e]);
          return sum;
        },
        alpha_floor, std::max(2.0 * max_ratio, 4.0 * alpha_floor));
    if (round < 2) continue;
    out.used = out.trimmed = 0;
    for (int e = 0; e < 9; ++e) {
      km[e].clear(), kv[e].clear();
      for (size_t i = 0; i < m[e].size(); ++i) {
        const bool keep = v[e][i] <= 8.0 * (out.alpha * m[e][i] + out.beta[e]);
        ++(keep ? out.used : out.trimmed);
        if (keep) km[e].push_back(m[e][i]), kv[e].push_back(v[e][i]);
      }
    }
  }
  out.kept_m = km, out.kept_v = kv;
  return out;
}

// Newton's steps on the likelihood's slope find the minimum the golden section found, to its
// rounding: impact-test noise with lines no local model follows (the trimming has work) and a low
// noise level. On noise-free data the floors are far below every sample's relative term and the
// likelihood does not see them (flat to 1e-15 over ±6 %): there each floor must merely be as
// likely as the golden section's. The same samples are trimmed in every case.
TEST(NoiseEstimate, FindsTheMinimumTheGoldenSectionFound) {
  for (const auto& [relative, seed, spoil] :
       {std::tuple{0.03, 1, true}, {0.001, 2, false}, {0.0, 3, false}}) {
    FrfSet set = NoisyPaperFrfs(relative, relative / 15, seed);
    if (spoil)
      for (int k : {40, 41, 120, 200})
        for (int e = 0; e < 9; ++e) set.H[k * 9 + e] *= 1.5;
    const NoiseEstimate estimate = EstimateNoise(set, "test");
    const Reference golden = GoldenSectionEstimate(set);
    SCOPED_TRACE(testing::Message() << "relative noise " << relative);
    EXPECT_EQ(estimate.samples_used, golden.used);
    EXPECT_EQ(estimate.samples_trimmed, golden.trimmed);
    const double alpha = estimate.relative[0] * estimate.relative[0];
    EXPECT_NEAR(alpha / golden.alpha, 1.0, 1e-6);
    for (int e = 0; e < 9; ++e) {
      const double beta = estimate.floor[e] * estimate.floor[e];
      const std::vector<double>& m = golden.kept_m[e];
      const std::vector<double>& v = golden.kept_v[e];
      const double at_golden = Likelihood(m, v, golden.alpha, golden.beta[e]);
      EXPECT_LE(Likelihood(m, v, golden.alpha, beta), at_golden + 1e-13 * std::fabs(at_golden))
          << "entry " << e;
      if (relative > 0.0) EXPECT_NEAR(beta / golden.beta[e], 1.0, 1e-6) << "entry " << e;
    }
  }
}

// The slope the Newton steps follow is the likelihood's derivative in log α and log β (central
// differences of the sum above).
TEST(NoiseEstimate, LikelihoodSlopeIsTheDerivativeOfTheLikelihood) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> m(37), v(37);
  for (size_t i = 0; i < m.size(); ++i) m[i] = std::pow(10.0, 4 * u(rng) - 2), v[i] = u(rng);
  const double alpha = 0.02, beta = 0.3, h = 1e-4;
  for (bool wrt_alpha : {false, true}) {
    auto f = [&](double x) {
      return wrt_alpha ? Likelihood(m, v, alpha * std::exp(x), beta)
                       : Likelihood(m, v, alpha, beta * std::exp(x));
    };
    const LogSlope s = ExpNegLogLikelihoodSlope(m.data(), v.data(), m.size(), alpha, beta,
                                                wrt_alpha);
    EXPECT_NEAR(s.first, (f(h) - f(-h)) / (2 * h), 1e-6 * std::fabs(s.first) + 1e-9) << wrt_alpha;
    EXPECT_NEAR(s.second, (f(h) - 2 * f(0) + f(-h)) / (h * h), 1e-4 * std::fabs(s.second) + 1e-6)
        << wrt_alpha;
  }
}

}  // namespace
}  // namespace frfit
