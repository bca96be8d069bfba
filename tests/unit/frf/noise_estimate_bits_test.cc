// The noise estimate's fast paths against the code they replaced, bit for bit: the local rational
// model's written-out QR against Eigen's HouseholderQR (the version before, copied here), and the
// whole estimate of one noisy set against the bits the version before gave. A fleet night's results
// depend on these bits (the estimate weighs every fit), so "close" would not do.
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
#include <utility>
#include <vector>

#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
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

// The whole estimate of one noisy set: every variance, the two terms and the sample counts, as a
// fingerprint of their bits, which the version before gave too (its PoolSamples with std::log
// value by value and the Eigen local models).
TEST(NoiseEstimate, KeepsTheBitsOfTheVersionBefore) {
  FrfSet set = NoisyPaperFrfs(0.03, 0.002, 1);
  for (int k : {40, 41, 120, 200})  // lines no local model follows: the trimming has work
    for (int e = 0; e < 9; ++e) set.H[k * 9 + e] *= 1.5;
  const NoiseEstimate estimate = EstimateNoise(set, "test");
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  auto mix = [&hash](double x) {
    const std::uint64_t b = Bits(x);
    for (int i = 0; i < 8; ++i) hash = (hash ^ ((b >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  };
  for (double v : estimate.variance) mix(v);
  for (double v : estimate.smoothed_magnitude) mix(v);
  for (int e = 0; e < 9; ++e) mix(estimate.relative[e]), mix(estimate.floor[e]);
  EXPECT_EQ(estimate.samples_used, 2673);
  EXPECT_EQ(estimate.samples_trimmed, 18);
  EXPECT_EQ(hash, 0x6f3db855b8b40a7bULL) << std::hex << hash;
}

}  // namespace
}  // namespace frfit
