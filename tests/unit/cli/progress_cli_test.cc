// --progress on the commands that can run long (frf, ema, map, lobes, design): progress lines
// with counts done/total on stderr, stdout still one JSON object; and fit's progress lines never
// show a best cost of "inf".
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";
const std::string kCut = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/cut_example.yaml";

class ProgressCli : public test::TempDirTest {
 protected:
  // A fit of the bundled FRFs: parameters with a covariance for map, lobes and design.
  std::string Result() {
    if (!std::filesystem::exists(Path("r.h5"))) {
      const test::CliResult r =
          Run({"fit", "--model", kP3 + "model.yaml", "--config", kP3 + "fit.yaml", "--frf",
               kP3 + "frf_milling_inertance.h5", "--out", Path("r.h5"), "--quiet"});
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return Path("r.h5");
  }
  // Runs `args` with --progress --json: stdout must be exactly one JSON object, stderr must hold
  // progress lines "frfit <command>: N/M <unit>", the last with N == M. Returns those lines.
  std::vector<std::string> ProgressLines(const std::string& command, std::vector<std::string> args) {
    args.insert(args.begin(), command);
    args.insert(args.end(), {"--progress", "--json"});
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NO_THROW((void)nlohmann::json::parse(r.out)) << r.out;  // nothing else on stdout
    const std::regex line("frfit " + command + ": ([0-9]+)/([0-9]+) [a-z].*");
    std::vector<std::string> lines;
    std::istringstream err(r.err);
    long last_done = -1, last_total = -2;
    for (std::string l; std::getline(err, l);) {
      std::smatch m;
      if (!std::regex_match(l, m, line)) continue;
      lines.push_back(l);
      last_done = std::stol(m[1]), last_total = std::stol(m[2]);
      EXPECT_LE(last_done, last_total) << l;
      EXPECT_EQ(l.find("inf"), std::string::npos) << l;
    }
    EXPECT_FALSE(lines.empty()) << command << " wrote no progress line:\n" << r.err;
    EXPECT_EQ(last_done, last_total) << "the last line is not the end:\n" << r.err;
    EXPECT_GT(last_total, 0);
    return lines;
  }
};

TEST_F(ProgressCli, FrfCountsHits) {
  const auto lines = ProgressLines("frf", {kP3 + "hits_x.h5", kP3 + "hits_y.h5", kP3 + "hits_z.h5",
                                           "--posture", "milling", "--out", Path("frf.h5")});
  EXPECT_NE(lines.back().find("15/15 hits"), std::string::npos) << lines.back();
}

TEST_F(ProgressCli, EmaCountsItsSteps) {
  ProgressLines("ema", {kP3 + "frf_milling_inertance.h5"});
}

TEST_F(ProgressCli, MapCountsPosturesAndEstimatesTheTimeLeft) {
  const auto lines = ProgressLines(
      "map", {"--model", kP3 + "model.yaml", "--posture", "milling", "--params", Result(), "--grid",
              "z2=30:120:3,z3=-160:-40:10", "--threads", "1"});
  EXPECT_NE(lines.back().find("403/403 postures"), std::string::npos) << lines.back();
  // Lines before the end say how long the rest should take.
  bool estimate = false;
  for (size_t k = 0; k + 1 < lines.size(); ++k)
    estimate |= lines[k].find(" left") != std::string::npos;
  EXPECT_TRUE(estimate);
}

TEST_F(ProgressCli, LobesCountsTheBandsDraws) {
  const auto lines = ProgressLines("lobes", {"--model", kP3 + "model.yaml", "--posture", "milling",
                                             "--params", Result(), "--cut", kCut, "--samples", "20"});
  EXPECT_NE(lines.back().find("20/20"), std::string::npos) << lines.back();
}

TEST_F(ProgressCli, DesignCountsCandidates) {
  const auto lines =
      ProgressLines("design", {"--model", kP3 + "model.yaml", "--result", Result(),
                               "--q-candidates", "up:z2=40,z3=-80;down:z2=110,z3=-130"});
  EXPECT_NE(lines.back().find("2/2 candidates"), std::string::npos) << lines.back();
}

// Every progress line of a fit (GA generations and the refinement's iterations) shows a number
// or says there is none yet. The KUKA fit (no GA generations) printed "LM iteration 0 best inf".
TEST_F(ProgressCli, FitProgressNeverPrintsInf) {
  const std::string kuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
  const test::CliResult r =
      Run({"fit", "--model", kuka + "model.yaml", "--config", kuka + "fit.yaml", "--frf",
           kuka + "frf_milling_inertance.h5", "--progress", "--progress-every", "1", "--threads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream err(r.err);
  int lines = 0;
  for (std::string l; std::getline(err, l);) {
    if (l.rfind("cycle ", 0) != 0) continue;
    ++lines;
    EXPECT_EQ(l.find("inf"), std::string::npos) << l;
  }
  EXPECT_GT(lines, 0) << r.err;
}

}  // namespace
}  // namespace frfit
