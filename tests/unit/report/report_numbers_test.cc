// Numbers in reports and exports that looked broken: the wall time's stages, the residual's size
// under a noise model, the start values in parameters.csv, the averages behind the coherence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "test_support.h"

namespace frfit {
namespace {

using nlohmann::json;
const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class ReportNumbers : public test::TempDirTest {
 protected:
  // The README's hammer example: records → FRFs (with coherence) → a noise-weighted fit.
  void FitHammerFrfs() {
    test::CliResult r = Run({"frf", kP3 + "hits_x.h5", kP3 + "hits_y.h5", kP3 + "hits_z.h5",
                             "--posture", "milling", "--out", Path("hits_frf.h5"), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    frf_json_ = json::parse(r.out);
    r = Run({"fit", "--model", kP3 + "model.yaml", "--frf", Path("hits_frf.h5"), "--config",
             kP3 + "fit.yaml", "--seed", "1", "--out", Path("hits_result.h5"), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    fit_json_ = json::parse(r.out);
    r = Run({"report", Path("hits_result.h5"), "-o", Path("hits_report.html")});
    ASSERT_EQ(r.status, 0) << r.err;
    html_ = test::ReadText(Path("hits_report.html"));
  }
  // The text of the summary row named `key`, tags removed.
  std::string Row(const std::string& key) const {
    const size_t at = html_.find("<th>" + key + "</th>");
    if (at == std::string::npos) return "";
    const size_t end = html_.find("</tr>", at);
    return std::regex_replace(html_.substr(at, end - at), std::regex("<[^>]*>"), " ");
  }
  json frf_json_, fit_json_;
  std::string html_;
};

// Each stage the fit ran is listed with its real time (not rounded to 0.00 s), stages that did
// not run are left out, and the rest of the wall time is named.
TEST_F(ReportNumbers, WallTimeShowsTheStagesThatRanWithTheirTimes) {
  FitHammerFrfs();
  const std::string row = Row("wall time");
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.find(" 0.00 s"), std::string::npos) << row;
  EXPECT_EQ(row.find(" 0.00,"), std::string::npos) << row;
  const std::smatch none;
  const json& phases = fit_json_["phases"];
  for (const auto& [key, name] : {std::pair{"ga", "genetic algorithm"}, std::pair{"nm", "Nelder-Mead"},
                                  std::pair{"lm", "Levenberg-Marquardt"}}) {
    if (!phases.contains(key)) continue;
    const bool ran = phases[key]["evaluations"].get<double>() > 0;
    const size_t at = row.find(name);
    EXPECT_EQ(at != std::string::npos, ran) << name << ": " << row;
    if (at == std::string::npos) continue;
    const double seconds = std::strtod(row.c_str() + at + std::string(name).size(), nullptr);
    EXPECT_GT(seconds, 0.0) << row;
    EXPECT_NEAR(seconds, phases[key]["seconds"].get<double>(),
                0.01 * phases[key]["seconds"].get<double>())
        << row;
  }
  EXPECT_NE(row.find("model check"), std::string::npos) << row;
}

// Under a noise model the residual's size is its rms in units of the noise σ, √(reduced χ²) —
// not the constant 1/√2 of a noise-weighted residual's assumed variance.
TEST_F(ReportNumbers, NoiseWeightedResidualSizeIsInUnitsOfTheNoise) {
  FitHammerFrfs();
  EXPECT_EQ(html_.find("7.071068e-01"), std::string::npos);
  const std::string row = Row("residuals");
  const std::string label = "residual rms in units of the noise";
  const size_t at = row.find(label);
  ASSERT_NE(at, std::string::npos) << row;
  const std::string sigma = "&#963; ";
  const double shown = std::strtod(row.c_str() + row.find(sigma, at) + sigma.size(), nullptr);
  const double chi2 = fit_json_["model_check"]["reduced_chi2"].get<double>();
  EXPECT_NEAR(shown, std::sqrt(chi2), 0.002 * std::sqrt(chi2)) << row;
}

// parameters.csv gives the start as the model file writes it (3e6, not 2999999.999999999): the
// KUKA fit starts at the model's values (initial: model).
TEST_F(ReportNumbers, ExportedInitialValuesAreTheModelFilesValues) {
  const std::string kuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
  test::CliResult r =
      Run({"fit", "--model", kuka + "model.yaml", "--config", kuka + "fit.yaml", "--frf",
           kuka + "frf_milling_inertance.h5", "--out", Path("r.h5"), "--quiet", "--threads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"export", Path("r.h5"), "--csv", Path("csv")});
  ASSERT_EQ(r.status, 0) << r.err;
  // The model's initial values, read from its YAML text here.
  std::map<std::string, std::string> written;
  {
    std::ifstream model(kuka + "model.yaml");
    const std::regex entry(
        R"(.*name: ([a-z][0-9]),.*stiffness: \{initial: ([^,]+),.*damping: \{initial: ([^,]+),.*)");
    for (std::string l; std::getline(model, l);) {
      std::smatch m;
      if (std::regex_match(l, m, entry)) written["k_" + m[1].str()] = m[2], written["d_" + m[1].str()] = m[3];
    }
  }
  ASSERT_FALSE(written.empty());
  std::ifstream csv(Path("csv/parameters.csv"));
  std::string header;
  std::getline(csv, header);
  int initial_column = -1, k = 0;
  std::istringstream hs(header);
  for (std::string h; std::getline(hs, h, ','); ++k)
    if (h == "initial") initial_column = k;
  ASSERT_GE(initial_column, 0) << header;
  int checked = 0;
  for (std::string line; std::getline(csv, line);) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    const auto it = written.find(cells[0]);
    if (it == written.end()) continue;
    EXPECT_EQ(std::strtod(cells[initial_column].c_str(), nullptr), std::strtod(it->second.c_str(), nullptr))
        << cells[0] << ": " << cells[initial_column] << " vs " << it->second;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(written.size()));
}

// The coherence's description gives the averages of each hammer direction where they differ.
TEST_F(ReportNumbers, CoherenceDescriptionGivesTheAveragesPerDirection) {
  test::CliResult r = Run({"frf", kP3 + "hits_x.h5", kP3 + "hits_y.h5", kP3 + "hits_z.h5",
                           "--posture", "milling", "--out", Path("hits_frf.h5"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json frf = json::parse(r.out);
  const int x = frf["averages"]["x"], y = frf["averages"]["y"], z = frf["averages"]["z"];
  ASSERT_NE(x, y);  // the double hit is among the x hits
  r = Run({"export", Path("hits_frf.h5"), "--csv", Path("csv"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string description;
  const json exported = json::parse(r.out);  // not a temporary: the loop reads into it
  for (const json& f : exported["files"])
    if (f["name"] == "frf_coherence.csv") description = f["description"];
  ASSERT_FALSE(description.empty()) << r.out;
  for (const auto& [n, axis] : {std::pair{x, "x"}, std::pair{y, "y"}, std::pair{z, "z"}})
    EXPECT_NE(description.find(std::to_string(n) + " (hammer " + axis + ")"), std::string::npos)
        << description;
}

}  // namespace
}  // namespace frfit
