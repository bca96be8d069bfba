// The noise model of FRF sets (docs/noise.md): synthetic impact-test noise, its variance carried
// through files, format conversion and line selection, the coherence's variance, and the
// estimate from the data alone — each against what it claims, checked with statistics computed
// here, not with the code's own formula applied twice.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <random>
#include <string>

#include "frfit/common/error.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

// The 3-joint example's inertance at Table 1's parameters, lines from 0.2 Hz in steps of df.
FrfSet PaperFrfs(double df_hz, double f1_hz = 30.0) {
  const Model model = LoadModel(kData + "paper_3dof/model.yaml");
  const std::vector<double> parameters = LoadParameters(kData + "paper_3dof/params_table1.yaml", model);
  const Posture posture = Linearize(model, "milling");
  return Synthesize(posture, Coefficients(model, parameters, posture.q),
                    MakeBand(0.2, f1_hz, df_hz, "band"), FrfFormat::kInertance);
}

// One entry with the same value on every line: its noise is a plain sample to look at.
FrfSet ConstantSet(int lines, std::complex<double> h) {
  FrfSet set;
  set.posture = "p";
  set.format = FrfFormat::kReceptance;
  for (int k = 0; k < lines; ++k) set.frequency_hz.push_back(1.0 + k);
  set.H.assign(static_cast<size_t>(lines) * 9, 0.0);
  for (int k = 0; k < lines; ++k) set.H[k * 9] = h;
  set.present[0] = true;
  return set;
}

TEST(MeasurementNoise, SampleVarianceMatchesTheRecordedVariance) {
  const std::complex<double> h(3.0, -4.0);  // |H| = 5 on every line, so the peak is 5 too
  FrfSet set = ConstantSet(20000, h);
  AddMeasurementNoise({0.03, 0.01}, 7, true, &set);
  double sum2 = 0.0, sum_re = 0.0, sum_im = 0.0;
  for (int k = 0; k < set.num_lines(); ++k) {
    const std::complex<double> d = set.H[k * 9] - h;
    sum2 += std::norm(d), sum_re += d.real(), sum_im += d.imag();
  }
  const double n = set.num_lines();
  const double expected = 0.03 * 0.03 * 25.0 + (0.01 * 5.0) * (0.01 * 5.0);
  EXPECT_NEAR(sum2 / n, expected, 0.03 * expected);  // 20000 samples: 0.7 % standard error
  EXPECT_NEAR(sum_re / n, 0.0, 4.0 * std::sqrt(expected / 2.0 / n));
  EXPECT_NEAR(sum_im / n, 0.0, 4.0 * std::sqrt(expected / 2.0 / n));
  ASSERT_EQ(set.noise_variance.size(), set.H.size());
  EXPECT_EQ(set.noise_source, "variance");
  EXPECT_NEAR(set.noise_variance[0], expected, 1e-15);
  EXPECT_EQ(set.noise_variance[1], 0.0);  // an absent entry gets neither noise nor variance
  EXPECT_EQ(set.H[1], std::complex<double>(0.0, 0.0));
}

TEST(MeasurementNoise, TheSeedDecidesTheDrawsAndNoModelMeansNoVariance) {
  FrfSet a = ConstantSet(50, {1.0, 0.0}), b = a, c = a;
  AddMeasurementNoise({0.05, 0.0}, 3, true, &a);
  AddMeasurementNoise({0.05, 0.0}, 3, false, &b);
  AddMeasurementNoise({0.05, 0.0}, 4, true, &c);
  EXPECT_EQ(a.H, b.H);
  EXPECT_NE(a.H, c.H);
  EXPECT_TRUE(b.noise_variance.empty());
  EXPECT_EQ(b.noise_source, "");
}

TEST(MeasurementNoise, ParseRefusesWhatIsNoNoise) {
  EXPECT_EQ(ParseMeasurementNoise("0.03:0.001", "--noise").floor, 0.001);
  EXPECT_EQ(ParseMeasurementNoise("0.02", "--noise").relative, 0.02);
  for (const char* bad : {"", "x", "0.03:", "-0.1", "1.5", "0.03:0.001:2", "0.03:nan"})
    EXPECT_THROW(ParseMeasurementNoise(bad, "--noise"), Error) << bad;
}

// The variance from a measured coherence is what a fit divides by: |Ĥ − H|²/σ̂² must average 1
// over many H1 estimates of n averages (force spectra that vary from hit to hit, complex normal
// output noise), or χ² says "misfit" about a right model. The plain (1 − γ²)/(n γ²) averages
// n/(n − 2) there: 1.67 for 5 averages.
TEST(CoherenceNoise, WeightedResidualOfAnH1EstimateAveragesOne) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  const std::complex<double> h(2.0, -1.0);
  for (int n : {3, 5, 10}) {
    double sum = 0.0, plain = 0.0;
    const int trials = 40000;
    for (int t = 0; t < trials; ++t) {
      std::complex<double> sxy = 0.0;
      double sxx = 0.0, syy = 0.0;
      for (int k = 0; k < n; ++k) {
        const std::complex<double> x(1.0 + 0.3 * normal(rng), 0.3 * normal(rng));
        const std::complex<double> y = h * x + 0.8 * std::complex<double>(normal(rng), normal(rng));
        sxy += std::conj(x) * y, sxx += std::norm(x), syy += std::norm(y);
      }
      const std::complex<double> estimate = sxy / sxx;
      const double coherence = std::norm(sxy) / (sxx * syy);
      sum += std::norm(estimate - h) / VarianceFromCoherence(estimate, coherence, n);
      plain += std::norm(estimate - h) / ((1.0 - coherence) / (n * coherence) * std::norm(estimate));
    }
    EXPECT_NEAR(sum / trials, 1.0, 0.03) << n << " averages";
    EXPECT_NEAR(plain / trials, n / (n - 2.0), 0.05 * n / (n - 2.0)) << n << " averages";
  }
  EXPECT_THROW(VarianceFromCoherence(h, 0.9, 2), Error);
}

TEST(NoiseModelFiles, VarianceAndCoherenceRoundTripThroughHdf5) {
  const std::string dir = testing::TempDir() + "/noise_model_files";
  std::filesystem::create_directories(dir);
  FrfSet set = PaperFrfs(0.2);
  AddMeasurementNoise({0.02, 0.001}, 1, true, &set);
  WriteFrfSet(dir + "/variance.h5", set);
  const FrfSet back = ReadFrfSet(dir + "/variance.h5");
  EXPECT_EQ(back.noise_variance, set.noise_variance);
  EXPECT_EQ(back.noise_source, "variance");

  // Coherence: the variance of an H1 estimate as a fit weighs by it, (1 − γ²)/((n − 2) γ²)·|H|²,
  // written out here.
  FrfSet coherent = PaperFrfs(0.2);
  coherent.coherence.assign(coherent.H.size(), 0.0);
  for (size_t i = 0; i < coherent.H.size(); ++i) coherent.coherence[i] = 0.5 + 0.4 * std::sin(0.1 * i) * std::sin(0.1 * i);
  coherent.averages = 5;
  WriteFrfSet(dir + "/coherence.h5", coherent);
  const FrfSet read = ReadFrfSet(dir + "/coherence.h5");
  EXPECT_EQ(read.noise_source, "coherence");
  EXPECT_EQ(read.averages, 5);
  ASSERT_EQ(read.noise_variance.size(), coherent.H.size());
  for (size_t i = 0; i < coherent.H.size(); i += 37) {
    const double g = coherent.coherence[i];
    EXPECT_DOUBLE_EQ(read.noise_variance[i], (1.0 - g) / (3.0 * g) * std::norm(coherent.H[i])) << i;
  }
}

TEST(NoiseModelFiles, BadNoiseDatasetsAreRefusedByName) {
  const std::string dir = testing::TempDir() + "/noise_model_bad";
  std::filesystem::create_directories(dir);
  FrfSet set = PaperFrfs(1.0);
  set.coherence.assign(set.H.size(), 0.9);
  set.averages = 3;
  const std::string path = dir + "/set.h5";
  WriteFrfSet(path, set);
  FrfSet bad = set;
  bad.coherence[9] = 1.5;
  try {
    WriteFrfSet(dir + "/bad.h5", bad);
    FAIL() << "a coherence of 1.5 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("coherence[1][0][0]"), std::string::npos) << e.what();
  }
  bad = set;
  bad.averages = 0;
  EXPECT_THROW(WriteFrfSet(dir + "/bad.h5", bad), Error);
  bad = set;
  bad.coherence.clear();
  bad.noise_variance.assign(set.H.size(), -1.0);
  try {
    WriteFrfSet(dir + "/bad.h5", bad);
    FAIL() << "a negative variance was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("noise_variance[0][0][0]"), std::string::npos) << e.what();
  }
}

TEST(NoiseModel, ConversionScalesTheVarianceAndLineSelectionKeepsIt) {
  FrfSet set = ConstantSet(4, {1.0, 1.0});
  set.noise_variance.assign(set.H.size(), 0.0);
  for (int k = 0; k < 4; ++k) set.noise_variance[k * 9] = 0.1 * (k + 1);
  const FrfSet inertance = ConvertFormat(set, FrfFormat::kInertance);
  for (int k = 0; k < 4; ++k) {
    const double omega = 2.0 * M_PI * set.frequency_hz[k];
    // |(iω)²|² = ω⁴, the square of the factor the values were multiplied by.
    EXPECT_NEAR(inertance.noise_variance[k * 9], 0.1 * (k + 1) * std::pow(omega, 4),
                1e-12 * std::pow(omega, 4));
  }
  const FrfSet picked = SelectLines(set, {1, 3});
  ASSERT_EQ(picked.num_lines(), 2);
  EXPECT_EQ(picked.frequency_hz[1], 4.0);
  EXPECT_EQ(picked.noise_variance[9], set.noise_variance[27]);
}

// The estimate from the data alone finds the two terms of the noise it was given.
TEST(NoiseEstimate, FindsTheRelativeNoiseAndTheFloorOfAnImpactTest) {
  FrfSet clean = PaperFrfs(0.1);
  double relative_sum = 0.0;
  int entries = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    FrfSet noisy = clean;
    AddMeasurementNoise({0.03, 0.002}, seed, false, &noisy);
    const NoiseEstimate estimate = EstimateNoise(noisy, "test");
    for (int e = 0; e < 9; ++e) {
      double peak = 0.0;
      for (int k = 0; k < clean.num_lines(); ++k) peak = std::max(peak, std::abs(clean.H[k * 9 + e]));
      EXPECT_NEAR(estimate.relative[e], 0.03, 0.006) << EntryName(e) << " seed " << seed;
      EXPECT_NEAR(estimate.floor[e] / (0.002 * peak), 1.0, 0.35) << EntryName(e) << " seed " << seed;
      relative_sum += estimate.relative[e];
      ++entries;
    }
  }
  EXPECT_NEAR(relative_sum / entries, 0.03, 0.002);  // no bias beyond a few percent of it
}

// Noise-free data: the estimate claims no less than 0.01 % relative noise (its floor), and a
// floor term far below 0.01 % of each entry's peak.
TEST(NoiseEstimate, NoiseFreeDataGiveTheSmallestNoiseItClaimsAndShortSetsAreRefused) {
  const FrfSet clean = PaperFrfs(0.1);
  const NoiseEstimate estimate = EstimateNoise(clean, "test");
  for (int e = 0; e < 9; ++e) {
    double peak = 0.0;
    for (int k = 0; k < clean.num_lines(); ++k) peak = std::max(peak, std::abs(clean.H[k * 9 + e]));
    EXPECT_NEAR(estimate.relative[e], 1e-4, 1e-12) << EntryName(e);
    EXPECT_LT(estimate.floor[e], 1e-5 * peak) << EntryName(e);
  }
  try {
    EstimateNoise(PaperFrfs(5.0, 40.0), "short.h5");
    FAIL() << "9 lines were enough";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("short.h5"), std::string::npos) << e.what();
  }
}

TEST(NoiseModelCli, SimulateWritesNoisyFrfsWithTheirVariance) {
  const std::string dir = testing::TempDir() + "/noise_model_cli";
  std::filesystem::create_directories(dir);
  const std::vector<std::string> base = {
      "simulate", "--model", kData + "paper_3dof/model.yaml", "--posture", "milling",
      "--params", kData + "paper_3dof/params_table1.yaml", "--band", "1:20:0.5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return test::RunCli(args, dir + "/out.txt", dir + "/err.txt");
  };
  ASSERT_EQ(with({"--out", dir + "/clean.h5"}).status, 0);
  ASSERT_EQ(with({"--out", dir + "/noisy.h5", "--noise", "0.05:0.001", "--seed", "9"}).status, 0);
  ASSERT_EQ(with({"--out", dir + "/unknown.h5", "--noise", "0.05", "--noise-model", "none"}).status, 0);
  const FrfSet clean = ReadFrfSet(dir + "/clean.h5"), noisy = ReadFrfSet(dir + "/noisy.h5"),
               unknown = ReadFrfSet(dir + "/unknown.h5");
  EXPECT_TRUE(clean.noise_variance.empty());
  EXPECT_TRUE(unknown.noise_variance.empty());
  ASSERT_EQ(noisy.noise_variance.size(), noisy.H.size());
  double ratio = 0.0;  // |noise|² over its variance: 1 on average
  for (size_t i = 0; i < noisy.H.size(); ++i)
    ratio += std::norm(noisy.H[i] - clean.H[i]) / noisy.noise_variance[i];
  EXPECT_NEAR(ratio / noisy.H.size(), 1.0, 0.15);
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--out", dir + "/x.h5", "--seed", "2"},
           {"--out", dir + "/x.h5", "--noise", "0.03", "--noise-model", "maybe"},
           {"--out", dir + "/x.h5", "--noise", "3%"}}) {
    const test::CliResult r = with(bad);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/x.h5"));
  }
}

}  // namespace
}  // namespace frfit
