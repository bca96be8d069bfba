// Fits of the Delta's motor springs and dampers (datasets/delta) from its platform FRFs at C1 and
// C2 (3×3 inertance, 2–40 Hz), simulated here at parameter values the dataset was not built from:
// noise-free within 0.01 %; with impact-test noise (3 % + 0.1 % of each entry's peak, one seed)
// stiffnesses within 0.1 %, dampings within 2 % and the model check `consistent`.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kDelta = std::string(FRFIT_SOURCE_DIR) + "/datasets/delta/";
const std::map<std::string, double> kTruth = {{"k_a1", 4.1e4}, {"k_a2", 1.7e4}, {"k_a3", 2.9e4},
                                              {"d_a1", 45.0},  {"d_a2", 18.0},  {"d_a3", 31.0}};

class DeltaFit : public test::TempDirTest {
 protected:
  // Simulates C1 and C2 at kTruth (with `noise`, when given) and fits them; the fit's JSON.
  nlohmann::json SimulateAndFit(const std::string& noise) {
    std::ofstream params(Path("truth.yaml"));
    params << "parameters:\n";
    for (const auto& [name, value] : kTruth) params << "  " << name << ": " << value << "\n";
    params.close();
    std::vector<std::string> fit = {"fit", "--model", kDelta + "model.yaml", "--config",
                                    kDelta + "fit.yaml", "--backend", "cpu", "--seed", "1",
                                    "--json"};
    for (const char* posture : {"C1", "C2"}) {
      const std::string out = Path(std::string(posture) + ".h5");
      std::vector<std::string> sim = {"simulate", "--model", kDelta + "model.yaml", "--posture",
                                      posture, "--params", Path("truth.yaml"), "--band",
                                      "2:40:0.05", "--format", "inertance", "--out", out};
      if (!noise.empty()) sim.insert(sim.end(), {"--noise", noise, "--seed", "7"});
      const test::CliResult s = Run(sim);
      EXPECT_EQ(s.status, 0) << s.err;
      fit.insert(fit.end(), {"--frf", out});
    }
    const test::CliResult r = Run(fit);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static double RelativeError(const nlohmann::json& json, const std::string& name) {
    return std::abs(json["parameters"][name].get<double>() / kTruth.at(name) - 1.0);
  }
};

TEST_F(DeltaFit, NoiseFreeRecoversTheStiffnesses) {
  const nlohmann::json json = SimulateAndFit("");
  for (const char* k : {"k_a1", "k_a2", "k_a3"}) EXPECT_LT(RelativeError(json, k), 1e-4) << k;
  for (const char* d : {"d_a1", "d_a2", "d_a3"}) EXPECT_LT(RelativeError(json, d), 1e-4) << d;
}

TEST_F(DeltaFit, ImpactNoiseWithinItsBoundsAndConsistent) {
  const nlohmann::json json = SimulateAndFit("0.03:0.001");
  for (const char* k : {"k_a1", "k_a2", "k_a3"}) EXPECT_LT(RelativeError(json, k), 1e-3) << k;
  for (const char* d : {"d_a1", "d_a2", "d_a3"}) EXPECT_LT(RelativeError(json, d), 0.02) << d;
  EXPECT_EQ(json["model_check"]["verdict"], "consistent");
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

class DeltaInfo : public test::TempDirTest {};

// `frfit info --posture C2 --json`: every frame's origin and axes at the closed posture, the
// platform's at the posture's position with the base's axes, and each posture's distance to
// singularity.
TEST_F(DeltaInfo, ListsEveryFrameAtThePosture) {
  const test::CliResult r =
      Run({"info", "--model", kDelta + "model.yaml", "--posture", "C2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["frames"].size(), 10u);
  const auto& platform = json["frames"][9];
  EXPECT_EQ(platform["name"], "platform");
  const double target[3] = {0.19, -0.33, -0.9};
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(platform["origin_m"][c].get<double>(), target[c], 1e-9);
    EXPECT_NEAR(platform["axes"]["z"][c].get<double>(), c == 2 ? 1.0 : 0.0, 1e-9);
  }
  EXPECT_GT(json["singularity_distance"]["C1"].get<double>(), 1e-3);
  EXPECT_GT(json["singularity_distance"]["C2"].get<double>(), 1e-3);
}

}  // namespace
}  // namespace frfit
