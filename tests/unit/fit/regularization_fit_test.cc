// A regularised fit end to end (docs/fit-config.md, "Regularization") on the 3-joint example with
// noisy FRFs and a nominal off from the truth by 10-12 %: a given weight λ fits what the
// equivalent `prior:` block (mean the nominal, relative 1σ 1/√λ) fits — the same MAP point and
// posterior σ through the other input path — and `weight: auto` reports its weight and curve in
// --json, the result file and the report.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kPaper = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

// The truth (params_table1.yaml) and the nominal's factor on it.
const std::map<std::string, std::pair<double, double>> kParameters = {
    {"k_z1", {2.0e6, 1.12}}, {"k_z2", {3.0e6, 0.90}}, {"k_z3", {1.55e6, 1.10}},
    {"d_z1", {1200, 0.88}},  {"d_z2", {1545, 1.10}},  {"d_z3", {340, 0.90}}};

class RegularizationFit : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const test::CliResult s =
        Run({"simulate", "--model", kPaper + "model.yaml", "--posture", "milling", "--params",
             kPaper + "params_table1.yaml", "--band", "2:30:0.25", "--noise", "0.03:0.001",
             "--seed", "5", "--out", Path("noisy.h5")});
    ASSERT_EQ(s.status, 0) << s.err;
  }
  // The bundled configuration started at the nominal, with `extra` appended.
  std::string Config(const std::string& name, const std::string& extra) {
    std::string text =
        "format: frfit-fit-1\ncost: {type: log_complex, fit_format: inertance, band_hz: [0.2, 30], "
        "weights: {mode: noise}}\ngenetic_algorithm: {population_size: 16, generations: 0}\n"
        "parameters:\n  initial: model\n  bounds:\n";
    for (const auto& [p, truth_factor] : kParameters)
      text += "    " + p + ": {initial: " + std::to_string(truth_factor.first * truth_factor.second) + "}\n";
    std::ofstream(Path(name)) << text + extra;
    return Path(name);
  }
  nlohmann::json Fit(const std::string& config, const std::string& out = "") {
    std::vector<std::string> args = {"fit", "--model", kPaper + "model.yaml", "--frf", Path("noisy.h5"),
                                     "--config", config, "--seed", "1", "--json"};
    if (!out.empty()) args.insert(args.end(), {"--out", out});
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
};

TEST_F(RegularizationFit, AGivenWeightIsTheEquivalentPrior) {
  const nlohmann::json reg = Fit(Config("reg.yaml", "regularization: {toward: nominal, weight: 25}\n"));
  std::string prior = "prior:\n";
  for (const auto& [p, truth_factor] : kParameters)
    prior += "  " + p + ": {mean: " + std::to_string(truth_factor.first * truth_factor.second) +
             ", std_relative: 0.2}\n";
  const nlohmann::json map = Fit(Config("prior.yaml", prior));
  for (const auto& [p, truth_factor] : kParameters) {
    const double a = reg["parameters"][p], b = map["parameters"][p];
    EXPECT_NEAR(a, b, 1e-6 * std::abs(b)) << p;
    const nlohmann::json& qa = reg["identifiability"]["parameters"][p];
    const nlohmann::json& qb = map["identifiability"]["parameters"][p];
    EXPECT_NEAR(qa["std_absolute"].get<double>(), qb["std_absolute"].get<double>(),
                1e-5 * qb["std_absolute"].get<double>()) << p;
    const double nominal = truth_factor.first * truth_factor.second;
    EXPECT_NEAR(qa["prior_std_absolute"].get<double>(), 0.2 * nominal, 1e-6 * nominal) << p;
  }
  const nlohmann::json& r = reg["regularization"];
  EXPECT_EQ(r["toward"], "nominal");
  EXPECT_EQ(r["weight_given"].get<double>(), 25.0);
  EXPECT_EQ(r["weight"].get<double>(), 25.0);
  EXPECT_EQ(r["fits"].get<int>(), 1);
  EXPECT_EQ(r["curve"].size(), 97u);
  EXPECT_EQ(r["at_weight"]["weight"].get<double>(), 25.0);
  // Without choose_by a given weight's curve names GCV's minimum, as before the evidence.
  EXPECT_EQ(r["method"], "gcv");
  EXPECT_FALSE(map.contains("regularization"));
}

TEST_F(RegularizationFit, AutoReportsItsWeightAndCurve) {
  const nlohmann::json j =
      Fit(Config("auto.yaml", "regularization: {weight: auto, choose_by: gcv}\n"), Path("auto.h5"));
  const nlohmann::json& r = j["regularization"];
  EXPECT_EQ(r["weight_given"], "auto");
  EXPECT_EQ(r["method"], "gcv");
  const int fits = r["fits"];
  EXPECT_GE(fits, 1);
  EXPECT_LE(fits, 4);
  const double weight = r["weight"];
  // The weight used is the curve's GCV minimum at the fit's end, to half a grid step, unless the
  // refits ran out.
  const double chosen = r["chosen"]["weight"];
  if (fits < 4) EXPECT_LT(std::abs(std::log10(chosen / weight)), 0.5 / 8) << r.dump();
  double least = INFINITY;
  for (const nlohmann::json& p : r["curve"]) least = std::min(least, p["gcv"].get<double>());
  EXPECT_EQ(r["chosen"]["gcv"].get<double>(), least);
  // Along the curve the residual norm grows and the regularisation norm falls with the weight.
  for (size_t i = 1; i < r["curve"].size(); ++i) {
    EXPECT_GE(r["curve"][i]["residual_norm"].get<double>(),
              r["curve"][i - 1]["residual_norm"].get<double>() * (1 - 1e-12)) << i;
    EXPECT_LE(r["curve"][i]["regularization_norm"].get<double>(),
              r["curve"][i - 1]["regularization_norm"].get<double>() * (1 + 1e-9)) << i;
  }
  // The posterior σ are reported, as for a prior of relative 1σ 1/√λ.
  const double nominal = kParameters.at("k_z1").first * kParameters.at("k_z1").second;
  EXPECT_NEAR(j["identifiability"]["parameters"]["k_z1"]["prior_std_absolute"].get<double>(),
              nominal / std::sqrt(weight), 1e-6 * nominal);
  ASSERT_EQ(Run({"report", Path("auto.h5"), "-o", Path("auto.html")}).status, 0);
  std::ifstream page(Path("auto.html"));
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("id=\"regularization-curve\""), std::string::npos);
  EXPECT_NE(html.find("class=\"gcv-choice\""), std::string::npos);
  // The CSV export carries the curve: one row per weight, then the one used.
  ASSERT_EQ(Run({"export", Path("auto.h5"), "--csv", Path("csv")}).status, 0);
  std::ifstream csv(Path("csv/regularization.csv"));
  std::string line;
  int rows = 0, used = 0;
  while (std::getline(csv, line))
    if (!line.empty() && line[0] != '#') ++rows, used += line.find(",used") != std::string::npos;
  EXPECT_EQ(rows, 1 + 97 + 1);  // header, the curve, the weight used
  EXPECT_EQ(used, 1);
  const test::CliResult text = Run({"fit", "--model", kPaper + "model.yaml", "--frf", Path("noisy.h5"),
                                    "--config", Path("auto.yaml"), "--seed", "1"});
  EXPECT_NE(text.out.find("regularization toward the nominal"), std::string::npos) << text.out;
}

TEST_F(RegularizationFit, AutoChoosesByTheEvidenceByDefault) {
  const nlohmann::json j =
      Fit(Config("evidence.yaml", "regularization: {weight: auto}\n"), Path("evidence.h5"));
  const nlohmann::json& r = j["regularization"];
  EXPECT_EQ(r["method"], "evidence");
  const int fits = r["fits"];
  const double weight = r["weight"], chosen = r["chosen"]["weight"];
  if (fits < 4) EXPECT_LT(std::abs(std::log10(chosen / weight)), 0.5 / 8) << r.dump();
  double least = INFINITY;
  for (const nlohmann::json& p : r["curve"]) least = std::min(least, p["evidence"].get<double>());
  EXPECT_EQ(r["chosen"]["evidence"].get<double>(), least);
  // The weight is a prior of relative 1σ 1/√λ on a nominal 10-12 % off: the evidence puts it
  // between ±1 % and ±100 % (λ in [1, 10⁴]), not at the grid's ends.
  EXPECT_GT(weight, 1.0);
  EXPECT_LT(weight, 1e4);
  // The result file keeps the rule and the column: the report and the CSV read it back.
  ASSERT_EQ(Run({"report", Path("evidence.h5"), "-o", Path("evidence.html")}).status, 0);
  std::ifstream page(Path("evidence.html"));
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("class=\"evidence-choice\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"gcv-choice\""), std::string::npos);
  EXPECT_NE(html.find("chosen by the evidence"), std::string::npos);
  ASSERT_EQ(Run({"export", Path("evidence.h5"), "--csv", Path("csv")}).status, 0);
  std::ifstream csv(Path("csv/regularization.csv"));
  std::string line, header;
  int minimum = 0;
  while (std::getline(csv, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) header = line;
    minimum += line.find(",evidence_minimum") != std::string::npos;
  }
  EXPECT_NE(header.find(",gcv,evidence,point"), std::string::npos) << header;
  EXPECT_EQ(minimum, 1);
}

}  // namespace
}  // namespace frfit
