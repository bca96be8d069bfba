// What frfit ema says about each mode besides its frequency and damping:
//   - 1σ of both, from the output-error fit of the poles weighed by the noise (the file's noise
//     model, or an estimate of it): on 20 noisy measurements of the 3-joint example, the errors
//     against the true modes are within 2σ about 95 % of the time, median |z| near 0.67;
//   - MPC and MPD of the residues: the 3-joint model's modes are nearly real;
//   - "explains": the share of the response only that mode accounts for (what the others and the
//     residual terms cannot take over), in [0, 1] and together at most 1 — readable on
//     noise-free data, where the misfit-growth `contribution` reads 1e28.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/modal/stabilisation.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class EmaUncertainty : public test::TempDirTest {
 protected:
  nlohmann::json Json(const std::vector<std::string>& args) {
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ShareBelow(const std::vector<double>& v, double limit) {
  return static_cast<double>(std::count_if(v.begin(), v.end(),
                                           [&](double x) { return std::abs(x) < limit; })) /
         v.size();
}

TEST_F(EmaUncertainty, OneSigmaIsCalibratedOnNoisyMeasurements) {
  const auto truth = Json({"modal", "--model", kData + "model.yaml", "--posture", "milling",
                           "--json"})["modes"];
  std::vector<double> z_frequency, z_damping;
  for (int seed = 1; seed <= 20; ++seed) {
    const std::string frf = Path("noisy.h5");
    // Without the noise model in the file: ema estimates the noise, as for a measurement that
    // came without one.
    ASSERT_EQ(Run({"simulate", "--model", kData + "model.yaml", "--posture", "milling", "--band",
                   "1:100:0.25", "--noise", "0.03:0.001", "--noise-model", "none", "--seed",
                   std::to_string(seed), "--out", frf})
                  .status,
              0);
    const auto modes = Json({"ema", frf, "--json"})["modes"];
    ASSERT_EQ(modes.size(), truth.size()) << "seed " << seed;
    for (size_t k = 0; k < modes.size(); ++k) {
      const auto& m = modes[k];
      ASSERT_TRUE(m["frequency_sigma_hz"].is_number()) << "seed " << seed << " mode " << k;
      z_frequency.push_back((m["frequency_hz"].get<double>() - truth[k]["frequency_hz"].get<double>()) /
                            m["frequency_sigma_hz"].get<double>());
      z_damping.push_back((m["damping_ratio"].get<double>() - truth[k]["damping_ratio"].get<double>()) /
                          m["damping_sigma"].get<double>());
      EXPECT_GT(m["mpc"].get<double>(), 0.98);
      EXPECT_LT(m["mpd_deg"].get<double>(), 8.0);
    }
  }
  for (const auto* z : {&z_frequency, &z_damping}) {
    const char* what = z == &z_frequency ? "frequency" : "damping";
    EXPECT_GE(ShareBelow(*z, 2.0), 0.88) << what;
    std::vector<double> magnitude;
    for (double v : *z) magnitude.push_back(std::abs(v));
    EXPECT_GT(Median(magnitude), 0.4) << what;
    EXPECT_LT(Median(magnitude), 1.0) << what;
  }
}

TEST_F(EmaUncertainty, ExplainedSharesAreReadableOnNoiseFreeData) {
  const auto modes = Json({"ema", kData + "frf_milling_inertance.h5", "--json"})["modes"];
  ASSERT_EQ(modes.size(), 3u);
  double total = 0.0;
  for (const auto& m : modes) {
    const double share = m["explained"].get<double>();
    EXPECT_GT(share, 0.05);
    EXPECT_LE(share, 1.0);
    total += share;
    EXPECT_GT(m["contribution"].get<double>(), 1e6);  // misfit growth against rounding
  }
  EXPECT_GT(total, 0.3);
  EXPECT_LE(total, 1.0);
  const test::CliResult text = Run({"ema", kData + "frf_milling_inertance.h5"});
  EXPECT_NE(text.out.find("response share [%]"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("e+"), std::string::npos) << "no huge numbers in the table:\n" << text.out;
}

TEST_F(EmaUncertainty, ClippedOrderIsAWarning) {
  const test::CliResult r = Run({"ema", kData + "frf_milling_inertance.h5", "--max-order", "500"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: frfit ema: --max-order: asked 500, used "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stable poles"), std::string::npos) << r.err;
}

// `frfit ema --help` states every default, the same numbers the estimation uses.
TEST_F(EmaUncertainty, HelpShowsTheDefaults) {
  const test::CliResult r = Run({"ema", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  const StabilisationCriteria defaults;
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, double>>{{"--frequency-tolerance", defaults.frequency_tolerance},
                                                   {"--damping-tolerance", defaults.damping_tolerance},
                                                   {"--min-mac", defaults.min_mac},
                                                   {"--max-damping", defaults.max_damping_ratio},
                                                   {"--min-contribution", defaults.min_contribution}}) {
    const size_t at = r.out.find("\n  " + option + " ");  // its line under "options:"
    ASSERT_NE(at, std::string::npos) << option << "\n" << r.out;
    const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("default " + FormatDouble(value)), std::string::npos) << line;
  }
  for (const char* option : {"--max-order", "--min-stable"}) {
    const size_t at = r.out.find("\n  " + std::string(option) + " ");
    ASSERT_NE(at, std::string::npos) << option;
    EXPECT_NE(r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1).find("default"),
              std::string::npos)
        << option;
  }
}

}  // namespace
}  // namespace frfit
