// The model check as a user meets it, end to end through the command line: impact-test-like
// data made with `frfit simulate --noise` from a model with a local mode the fitted model lacks,
// `frfit fit --json` and its warning lines, and the report's model check section and residual
// plot; and a right-model fit that says "consistent" and prints no warning.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class ModelCheckCli : public test::TempDirTest {
 protected:
  test::CliResult Run(const std::vector<std::string>& args) {
    return test::RunCli(args, Path("out.txt"), Path("err.txt"));
  }
  // Noisy inertance of `model` at the milling posture with `params`, the noise model kept.
  std::string Measure(const std::string& model, const std::string& params, const std::string& name) {
    const test::CliResult r =
        Run({"simulate", "--model", model, "--posture", "milling", "--params", params, "--band",
             "2:30:0.25", "--noise", "0.03:0.001", "--seed", "3", "--out", Path(name)});
    EXPECT_EQ(r.status, 0) << r.err;
    return Path(name);
  }
};

TEST_F(ModelCheckCli, AMissingLocalModeIsAMisfitWithItsFrequencyWarningsAndAReportSection) {
  // The 3-joint model with 15 kg on a spring at the tool along x, tuned to 26 Hz on its own.
  std::string text = test::ReadText(kP3 + "model.yaml");
  auto insert = [&](const std::string& after, const std::string& what) {
    const size_t at = text.find(after);
    ASSERT_NE(at, std::string::npos) << after;
    text.insert(at + after.size(), what);
  };
  insert("dofs:\n",
         "  - {name: ax, type: translational, stiffness: {initial: 4.0e5, min: 1.0e3, max: 1.0e9}, "
         "damping: {initial: 100, min: 1, max: 1.0e6}}\n");
  insert("{rotx: -90}]}\n", "  - {name: absorber, parent: sensor, transforms: [{transx: ax}]}\n");
  insert("bodies:\n",
         "  - {name: absorber_mass, frame: absorber, mass: 15, inertia: {xx: 0.05, yy: 0.05, zz: "
         "0.05, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n");
  std::ofstream(Path("truth.yaml")) << text;
  const double k = 15.0 * std::pow(2.0 * M_PI * 26.0, 2);
  std::ofstream(Path("params.yaml")) << "parameters: {k_z1: 2.0e6, k_z2: 3.0e6, k_z3: 1.55e6, "
                                        "d_z1: 1200, d_z2: 1545, d_z3: 340, k_ax: "
                                     << k << ", d_ax: " << 2 * 0.02 * std::sqrt(k * 15.0) << "}\n";
  const std::string frf = Measure(Path("truth.yaml"), Path("params.yaml"), "measured.h5");
  // The truth's mode nearest the absorber's own frequency: the one the model lacks.
  const test::CliResult modal = Run({"modal", "--model", Path("truth.yaml"), "--posture", "milling",
                                     "--params", Path("params.yaml"), "--json"});
  ASSERT_EQ(modal.status, 0) << modal.err;
  double extra = 0.0;
  const nlohmann::json truth_modes = nlohmann::json::parse(modal.out)["modes"];
  for (const auto& m : truth_modes)
    if (std::abs(m["frequency_hz"].get<double>() - 26.0) < std::abs(extra - 26.0))
      extra = m["frequency_hz"].get<double>();

  const test::CliResult fit = Run({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config",
                                   kP3 + "fit.yaml", "--json", "--out", Path("r.h5")});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const nlohmann::json check = nlohmann::json::parse(fit.out)["model_check"];
  EXPECT_EQ(check["verdict"], "misfit");
  EXPECT_GT(check["reduced_chi2"].get<double>(), 2.0);
  ASSERT_FALSE(check["unexplained_modes"].empty()) << check.dump();
  EXPECT_NEAR(check["unexplained_modes"][0]["frequency_hz"].get<double>() / extra, 1.0, 0.03);
  // One warning line per reason, on stderr; stdout is the one JSON object.
  size_t warnings = 0;
  for (size_t at = fit.err.find("warning: frfit fit: model check: "); at != std::string::npos;
       at = fit.err.find("warning: frfit fit: model check: ", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, check["reasons"].size());

  ASSERT_EQ(Run({"report", Path("r.h5"), "-o", Path("r.html")}).status, 0);
  const std::string html = test::ReadText(Path("r.html"));
  EXPECT_NE(html.find("id=\"model-check-verdict\">misfit<"), std::string::npos);
  EXPECT_NE(html.find("class=\"unexplained-modes\""), std::string::npos);
  for (const auto& reason : check["reasons"])
    EXPECT_NE(html.find(reason.get<std::string>().substr(0, 40)), std::string::npos) << reason;
}

// The same data without the local mode: consistent, no warning, and the residual plot's headline
// numbers are those of lines clear of the noise (a few dB at most under 3 % noise), not the tens
// of dB of lines under the floor.
TEST_F(ModelCheckCli, TheRightModelIsConsistentAndTheResidualHeadlineIgnoresTheNoiseFloor) {
  const std::string frf = Measure(kP3 + "model.yaml", kP3 + "params_table1.yaml", "measured.h5");
  const test::CliResult fit = Run({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config",
                                   kP3 + "fit.yaml", "--json", "--out", Path("r.h5")});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const nlohmann::json check = nlohmann::json::parse(fit.out)["model_check"];
  EXPECT_EQ(check["verdict"], "consistent") << check.dump();
  EXPECT_EQ(fit.err.find("warning:"), std::string::npos) << fit.err;
  ASSERT_EQ(Run({"report", Path("r.h5"), "-o", Path("r.html")}).status, 0);
  const std::string html = test::ReadText(Path("r.html"));
  EXPECT_NE(html.find("id=\"model-check-verdict\">consistent<"), std::string::npos);
  // The file's noise model draws the residual in units of the noise (docs/report.md): every line
  // counts for what it is worth, and the right model's largest residual over ~1000 lines and
  // entries is a few sigma, not the tens of dB of a line under the floor.
  const std::regex magnitude("data-max-sigma=\"([^\"]+)\"");
  int entries = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), magnitude);
       it != std::sregex_iterator(); ++it, ++entries)
    EXPECT_LT(std::stod((*it)[1]), 5.0);
  EXPECT_EQ(entries, 9);
}

}  // namespace
}  // namespace frfit
