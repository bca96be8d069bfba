// A tool of unknown mass fitted from measured-like data (issue "More than the tool tip", part 3):
// the KUKA model carrying a tool whose catalogue mass, 60 kg, is the fit's start, FRFs of a 78 kg
// truth at three postures with impact-test noise, the bundled fit configuration. The mass must
// come out within 1 % (and within 3σ of its own 1σ), the model check must accept the fit — and
// the same data fitted with the mass written down as 60 kg must be called a misfit, or the check
// would say nothing about a wrong mass.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

class FittedMassFit : public test::TempDirTest {
 protected:
  // Noisy inertance FRFs of the 78 kg truth at the three postures; returns their paths joined.
  std::string SimulateToolData() {
    std::string files;
    int seed = 21;
    for (const std::string posture : {"milling", "reach", "folded"}) {
      const std::string out = Path(posture + ".h5");
      const test::CliResult r =
          Run({"simulate", "--model", kKuka + "model_tool.yaml", "--posture", posture, "--params",
               kKuka + "params_tool_78kg.yaml", "--band", "2:30:0.25", "--noise", "0.03:0.001",
               "--seed", std::to_string(seed++), "--out", out});
      EXPECT_EQ(r.status, 0) << r.err;
      files += (files.empty() ? "" : ",") + out;
    }
    return files;
  }

  nlohmann::json Fit(const std::string& model, const std::string& files) {
    const test::CliResult r = Run({"fit", "--model", model, "--frf", files, "--config",
                                   kKuka + "fit.yaml", "--json", "--quiet"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
};

TEST_F(FittedMassFit, A78KgToolStartedAt60KgIsFoundWithinOnePercent) {
  const std::string files = SimulateToolData();
  const nlohmann::json fit = Fit(kKuka + "model_tool.yaml", files);
  const double m = fit["parameters"]["m_tool"].get<double>();
  const double sigma = fit["identifiability"]["parameters"]["m_tool"]["std_absolute"].get<double>();
  EXPECT_LT(std::abs(m / 78.0 - 1.0), 0.01) << m << " kg";
  EXPECT_LT(std::abs(m - 78.0), 3.0 * sigma) << m << " ± " << sigma << " kg";
  EXPECT_GT(sigma, 0.0);
  EXPECT_EQ(fit["model_check"]["verdict"], "consistent") << fit["model_check"].dump();
  // The joint stiffnesses of the truth (Table 5 "From [34]") come with it.
  const double k_z3 = fit["parameters"]["k_z3"].get<double>();
  EXPECT_LT(std::abs(k_z3 / 2.8e6 - 1.0), 0.01) << k_z3;

  // The same data with the catalogue mass taken as known.
  std::string fixed = test::ReadText(kKuka + "model_tool.yaml");
  const std::string block = "mass: {initial: 60, min: 20, max: 200}";
  fixed.replace(fixed.find(block), block.size(), "mass: 60");
  const std::string fixed_model = Path("model_tool_60kg.yaml");
  std::ofstream(fixed_model) << fixed;
  const nlohmann::json wrong = Fit(fixed_model, files);
  EXPECT_FALSE(wrong["parameters"].contains("m_tool"));
  EXPECT_EQ(wrong["model_check"]["verdict"], "misfit") << wrong["model_check"].dump();
}

}  // namespace
}  // namespace frfit
