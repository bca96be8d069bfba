// A reduced χ² far below 1 (docs/identifiability.md, "Noise overestimated"): the fit warns and
// scales its σ by √χ², and the commands that use those σ (map, lobes, design) say so; a fit whose
// noise model is right raises no alarm.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "frfit/results/identifiability.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kP3 = kRoot + "/datasets/paper_3dof/";
const std::string kCut = kRoot + "/datasets/kuka_kr90/cut_example.yaml";

// The 0.1 % quantile of χ²_k / k from scipy.stats.chi2.ppf(0.001, k) / k (scipy 1.17).
TEST(ReducedChi2Floor, MatchesTheChiSquareQuantile) {
  const std::pair<int, double> exact[] = {{30, 0.3862650348548352},
                                          {100, 0.6191793920693662},
                                          {1000, 0.8674790826072769},
                                          {10000, 0.9568668495093969},
                                          {100000, 0.986237038163696}};
  for (const auto& [k, q] : exact) EXPECT_NEAR(ReducedChi2Floor(k), q, 0.01 * q) << k;
  EXPECT_GE(ReducedChi2Floor(1), 0.0);
}

class NoiseOverestimated : public test::TempDirTest {
 protected:
  // The 3-joint robot's FRFs at `milling`, exact (no --noise: the fit estimates a noise model
  // from the data) or with 3 % noise and its true variance in the file.
  std::string Fit(const std::string& name, const std::vector<std::string>& noise) {
    std::vector<std::string> simulate = {"simulate", "--model", kP3 + "model.yaml", "--posture",
                                         "milling", "--params", kP3 + "params_table1.yaml",
                                         "--band", "0.2:30:0.2", "--out", Path(name + ".frf.h5")};
    simulate.insert(simulate.end(), noise.begin(), noise.end());
    const test::CliResult s = Run(simulate);
    EXPECT_EQ(s.status, 0) << s.err;
    fit_ = Run({"fit", "--model", kP3 + "model.yaml", "--frf", Path(name + ".frf.h5"), "--config",
                kP3 + "fit.yaml", "--seed", "1", "--json", "--out", Path(name + ".h5")});
    EXPECT_EQ(fit_.status, 0) << fit_.err;
    return Path(name + ".h5");
  }
  nlohmann::json Json(const std::vector<std::string>& args) {
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  test::CliResult fit_;
};

TEST_F(NoiseOverestimated, ExactDataWarnAndScaleTheirSigma) {
  const std::string result = Fit("exact", {});
  const nlohmann::json fit = nlohmann::json::parse(fit_.out);
  const nlohmann::json& id = fit["identifiability"];
  EXPECT_NE(fit_.err.find("warning: frfit fit: identifiability: noise overestimated"), std::string::npos)
      << fit_.err;
  ASSERT_EQ(id["sigma_basis"], "noise_model_scaled") << id.dump();
  const double chi2 = id["reduced_chi2"];
  EXPECT_LT(chi2, 1e-6);
  EXPECT_DOUBLE_EQ(id["widening"].get<double>(), std::sqrt(chi2));
  // Exact data determine the parameters exactly: every 1σ is ≈ 0, not the noise model's percent.
  for (const auto& [name, p] : id["parameters"].items())
    EXPECT_LT(p["std_relative"].get<double>(), 1e-4) << name;
  // Text: the identifiability line says so.
  const test::CliResult text = Run({"fit", "--model", kP3 + "model.yaml", "--frf",
                                    Path("exact.frf.h5"), "--config", kP3 + "fit.yaml", "--seed", "1"});
  EXPECT_NE(text.out.find("noise overestimated"), std::string::npos) << text.out;

  // The commands that use these σ say they are scaled, in text and --json.
  const nlohmann::json lobes =
      Json({"lobes", "--model", kP3 + "model.yaml", "--posture", "milling", "--params", result,
            "--cut", kCut, "--samples", "4", "--json"});
  EXPECT_NE(lobes.value("sigma_note", "").find("overestimates the noise"), std::string::npos)
      << lobes.dump().substr(0, 400);
  const nlohmann::json map = Json({"map", "--model", kP3 + "model.yaml", "--posture", "milling",
                                   "--params", result, "--grid", "z2=60:70:10", "--json"});
  ASSERT_TRUE(map.contains("sigma_notes"));
  EXPECT_NE(map["sigma_notes"][0].get<std::string>().find("overestimates the noise"), std::string::npos);
  const nlohmann::json design = Json({"design", "--model", kP3 + "model.yaml", "--result", result,
                                      "--q-candidates", "a:z2=40", "--json"});
  EXPECT_NE(design.value("sigma_note", "").find("overestimates the noise"), std::string::npos);
  const test::CliResult map_text = Run({"map", "--model", kP3 + "model.yaml", "--posture", "milling",
                                        "--params", result, "--grid", "z2=60:70:10"});
  EXPECT_NE(map_text.out.find("overestimates the noise"), std::string::npos) << map_text.out;
}

// No false alarm: with the noise the file says, χ² is about 1 whatever the seed.
TEST_F(NoiseOverestimated, TheRightNoiseRaisesNoAlarm) {
  for (const char* seed : {"3", "4", "5"}) {
    const std::string result =
        Fit(std::string("noisy") + seed, {"--noise", "0.03:0.001", "--seed", seed});
    const nlohmann::json id = nlohmann::json::parse(fit_.out)["identifiability"];
    EXPECT_NE(id["sigma_basis"], "noise_model_scaled") << seed << ": " << id["reduced_chi2"];
    EXPECT_EQ(fit_.err.find("noise overestimated"), std::string::npos) << fit_.err;
    const nlohmann::json lobes =
        Json({"lobes", "--model", kP3 + "model.yaml", "--posture", "milling", "--params", result,
              "--cut", kCut, "--samples", "4", "--json"});
    EXPECT_FALSE(lobes.contains("sigma_note")) << seed;
  }
}

}  // namespace
}  // namespace frfit
