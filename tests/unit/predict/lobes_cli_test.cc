// frfit lobes on the command line: the JSON it promises, one-line errors for bad cut files, the
// band from a fit result's covariance, and the independent numpy implementation
// (benchmarks/lobes_reference.py) on the very FRF samples frfit used.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kModel = kRoot + "/datasets/kuka_kr90/model.yaml";
const std::string kParams = kRoot + "/datasets/kuka_kr90/params_from34.yaml";
const std::string kCut = kRoot + "/datasets/kuka_kr90/cut_example.yaml";

class LobesCli : public test::TempDirTest {};

TEST_F(LobesCli, JsonCarriesTheEnvelopeAndItsMinimum) {
  const test::CliResult r = Run({"lobes", "--model", kModel, "--posture", "reach", "--params",
                                 kParams, "--cut", kCut, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& speed = j["spindle_speed_rpm"];
  const auto& depth = j["depth_limit_m"];
  ASSERT_EQ(speed.size(), 4000u);
  ASSERT_EQ(depth.size(), speed.size());
  ASSERT_EQ(j["chatter_frequency_hz"].size(), speed.size());
  double smallest = INFINITY;
  for (const auto& a : depth)
    if (!a.is_null()) smallest = std::min(smallest, a.get<double>());
  EXPECT_EQ(smallest, j["critical_depth_m"].get<double>());
  EXPECT_GT(smallest, 1e-5);
  EXPECT_EQ(j["milling"], "down");
  EXPECT_EQ(j["samples"], 0);
  EXPECT_FALSE(j.contains("critical_depth_m_p05"));
  EXPECT_GE(j["lobes"].size(), 1u);
  // The text form names the critical depth in mm.
  const test::CliResult text = Run({"lobes", "--model", kModel, "--posture", "reach", "--params",
                                    kParams, "--cut", kCut});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("critical depth "), std::string::npos) << text.out;
}

TEST_F(LobesCli, BadCutFileIsOneLine) {
  std::ofstream(Path("cut.yaml")) << "format: frfit-cut-1\nteeth: 0\n";
  test::CliResult r = Run({"lobes", "--model", kModel, "--posture", "milling", "--params", kParams,
                           "--cut", Path("cut.yaml")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + Path("cut.yaml") +
                       ": teeth (line 2): expected an integer from 1 to 1000, got 0\n");
  // A band needs a covariance; a parameter file has none.
  r = Run({"lobes", "--model", kModel, "--posture", "milling", "--params", kParams, "--cut", kCut,
           "--samples", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--samples: needs a fit result with a covariance"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST_F(LobesCli, FitResultGivesABand) {
  std::ofstream(Path("tiny.yaml")) << test::kTinyFitConfig;
  const std::string frf = kRoot + "/datasets/kuka_kr90/frf_milling_inertance.h5";
  test::CliResult r = Run({"fit", "--model", kModel, "--frf", frf, "--config", Path("tiny.yaml"),
                           "--out", Path("R.h5"), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"lobes", "--model", kModel, "--posture", "milling", "--params", Path("R.h5"), "--cut",
           kCut, "--samples", "20", "--seed", "3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["samples"], 20);
  const double p05 = j["critical_depth_m_p05"], p95 = j["critical_depth_m_p95"];
  EXPECT_GT(p05, 0.0);
  EXPECT_LE(p05, p95);
  ASSERT_EQ(j["depth_limit_m_p05"].size(), j["spindle_speed_rpm"].size());
  ASSERT_EQ(j["depth_limit_m_p95"].size(), j["spindle_speed_rpm"].size());
  // Seeded: the same seed, the same band.
  const test::CliResult again = Run({"lobes", "--model", kModel, "--posture", "milling", "--params",
                                     Path("R.h5"), "--cut", kCut, "--samples", "20", "--seed", "3",
                                     "--json"});
  EXPECT_EQ(again.out, r.out);
}

// The README's noisy KUKA fit: d_x1 and d_x2 end at their lower bound, so every draw can only
// add damping. The band then lies beside the estimate and says why; where it contains the
// estimate it says nothing. Either way the flag agrees with the numbers.
TEST_F(LobesCli, TheReadmeNoisyFitsBandContainsItsEstimateOrSaysWhy) {
  const std::string kuka = kRoot + "/datasets/kuka_kr90/";
  test::CliResult r = Run({"simulate", "--model", kModel, "--posture", "milling", "--params",
                           kParams, "--band", "2:30:0.25", "--noise", "0.03:0.001", "--seed", "4",
                           "--out", Path("noisy.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"fit", "--model", kModel, "--frf", Path("noisy.h5"), "--config", kuka + "fit.yaml",
           "--out", Path("noisy_result.h5"), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"lobes", "--model", kModel, "--posture", "reach", "--params", Path("noisy_result.h5"),
           "--cut", kCut, "--samples", "50", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double estimate = j["critical_depth_m"], p05 = j["critical_depth_m_p05"],
               p95 = j["critical_depth_m_p95"];
  const bool inside = p05 <= estimate && estimate <= p95;
  EXPECT_EQ(j["band_brackets_estimate"].get<bool>(), inside) << estimate << " " << p05 << " " << p95;
  if (!inside) {
    const std::string note = j["band_note"];
    EXPECT_NE(note.find("at its min bound"), std::string::npos) << note;
    const test::CliResult text = Run({"lobes", "--model", kModel, "--posture", "reach", "--params",
                                      Path("noisy_result.h5"), "--cut", kCut, "--samples", "50"});
    EXPECT_NE(text.out.find("the band is not meaningful: " + note), std::string::npos) << text.out;
  } else {
    EXPECT_FALSE(j.contains("band_note"));
  }
}

TEST_F(LobesCli, NumpyReferenceAgrees) {
  if (std::system("python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 with numpy not installed; the C++ tests check the closed form";
  for (const std::string posture : {"milling", "reach"}) {
    const test::CliResult r =
        Run({"lobes", "--model", kModel, "--posture", posture, "--params", kParams, "--cut", kCut,
             "--frf-out", Path(posture + ".csv"), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::ofstream(Path(posture + ".json")) << r.out;
    const test::CliResult py = test::RunShell(
        "python3 " + test::Quote(kRoot + "/benchmarks/lobes_reference.py") + " " +
            test::Quote(Path(posture + ".csv")) + " " + test::Quote(Path(posture + ".json")),
        Path("py.out"), Path("py.err"));
    EXPECT_EQ(py.status, 0) << py.out << py.err;
    EXPECT_NE(py.out.find(": agree\n"), std::string::npos) << py.out;
  }
}

}  // namespace
}  // namespace frfit
