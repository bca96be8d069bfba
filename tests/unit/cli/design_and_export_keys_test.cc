// Two contracts of commands that read a fit result: design --q-candidates sets the coordinates a
// candidate does not name to the base posture's (as --q does everywhere), and export's
// weak_directions.csv keys its rows by index with one column per free parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kP3 = kRoot + "/datasets/paper_3dof/";

class ResultConsumers : public test::TempDirTest {
 protected:
  // A fit of noisy FRFs at `milling` (z1 = 0°, z2 = 70°, z3 = −100°).
  std::string Fit() {
    test::CliResult r = Run({"simulate", "--model", kP3 + "model.yaml", "--posture", "milling",
                             "--params", kP3 + "params_table1.yaml", "--band", "0.2:30:0.2",
                             "--noise", "0.03:0.001", "--seed", "3", "--out", Path("frf.h5")});
    EXPECT_EQ(r.status, 0) << r.err;
    r = Run({"fit", "--model", kP3 + "model.yaml", "--frf", Path("frf.h5"), "--config",
             kP3 + "fit.yaml", "--seed", "1", "--quiet", "--out", Path("R.h5")});
    EXPECT_EQ(r.status, 0) << r.err;
    return Path("R.h5");
  }
};

TEST_F(ResultConsumers, QCandidatesKeepTheBasePosture) {
  const std::string result = Fit();
  test::CliResult r = Run({"design", "--model", kP3 + "model.yaml", "--result", result,
                           "--q-candidates", "up:z2=20", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 1u);
  // z3 is not named: the fitted posture's −100°, not 0.
  EXPECT_EQ(j["candidates"][0]["coordinates"], "z2=20,z3=-100");
  // --posture names the base explicitly.
  r = Run({"design", "--model", kP3 + "model.yaml", "--result", result, "--q-candidates",
           "up:z3=-50", "--posture", "milling", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["candidates"][0]["coordinates"], "z2=70,z3=-50");
  // --posture alone names the base of nothing.
  r = Run({"design", "--model", kP3 + "model.yaml", "--result", result, "--posture", "milling"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--posture: only applies with --q-candidates"), std::string::npos) << r.err;
}

// The README's noisy KUKA fit: d_x1 and d_x2 are hardly seen, among other weak directions.
TEST_F(ResultConsumers, WeakDirectionsAreKeyedByIndexAndParameter) {
  const std::string kuka = kRoot + "/datasets/kuka_kr90/";
  test::CliResult r = Run({"simulate", "--model", kuka + "model.yaml", "--posture", "milling",
                           "--params", kuka + "params_from34.yaml", "--band", "2:30:0.25", "--noise",
                           "0.03:0.001", "--seed", "4", "--out", Path("noisy.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string result = Path("noisy_result.h5");
  r = Run({"fit", "--model", kuka + "model.yaml", "--frf", Path("noisy.h5"), "--config",
           kuka + "fit.yaml", "--json", "--out", result});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json id = nlohmann::json::parse(r.out)["identifiability"];
  r = Run({"export", result, "--csv", Path("csv")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(test::ReadText(Path("csv/weak_directions.csv")));
  std::string line;
  std::getline(in, line);
  std::string expected = "index,singular_value,sigma_relative";
  for (const auto& name : id["order"]) expected += "," + name.get<std::string>();
  EXPECT_EQ(line, expected + ",description");
  const size_t p = id["order"].size();
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 3 + p + 1) << line;
    EXPECT_EQ(cells[0], std::to_string(rows));
    // A unit vector, and its components agree with the description's two-decimal text.
    double norm = 0.0;
    for (size_t c = 0; c < p; ++c) norm += std::pow(std::stod(cells[3 + c]), 2);
    EXPECT_NEAR(norm, 1.0, 1e-9);
    const std::string& text = cells.back();
    for (size_t c = 0; c < p; ++c) {
      const double v = std::stod(cells[3 + c]);
      if (std::abs(v) < 0.3) continue;
      char shown[32];
      std::snprintf(shown, sizeof shown, "%.2f %s", std::abs(v), id["order"][c].get<std::string>().c_str());
      EXPECT_NE(text.find(shown), std::string::npos) << text << " lacks " << shown;
    }
  }
  EXPECT_EQ(rows, static_cast<int>(id["weak_directions"].size()));
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace frfit
