// The KUKA robot where the data are thin, shared by the tests of what priors and constraints do
// there (prior_kuka_test.cc, constraints_kuka_test.cc): FRFs simulated at one posture (milling),
// tool tip only, with impact-test noise, and the bundled fit configuration run on them through
// the command line.
#pragma once

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace frfit::test {

inline const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

class KukaThinDataTest : public TempDirTest {
 protected:
  // noisy.h5: the FRFs of the parameter file `params`, 2–30 Hz, noise 0.03:0.001, seed 4.
  void SimulateNoisy(const std::string& params) {
    const CliResult s =
        Run({"simulate", "--model", kKuka + "model.yaml", "--posture", "milling", "--params", params,
             "--band", "2:30:0.25", "--noise", "0.03:0.001", "--seed", "4", "--out",
             Path("noisy.h5")});
    ASSERT_EQ(s.status, 0) << s.err;
  }
  // The bundled fit.yaml followed by `extra`, in a file of its own; its path.
  std::string Config(const std::string& extra) {
    std::ifstream base(kKuka + "fit.yaml");
    std::string config((std::istreambuf_iterator<char>(base)), std::istreambuf_iterator<char>());
    const std::string path = Path("fit" + std::to_string(configs_++) + ".yaml");
    std::ofstream(path) << config << extra;
    return path;
  }
  // frfit fit --json of noisy.h5 under `config`, seed 1, written to `out` when given.
  nlohmann::json Fit(const std::string& config, const std::string& out = "") {
    std::vector<std::string> args = {"fit",     "--model", kKuka + "model.yaml", "--frf",
                                     Path("noisy.h5"), "--config", config, "--seed", "1", "--json"};
    if (!out.empty()) args.insert(args.end(), {"--out", out});
    const CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

 private:
  int configs_ = 0;
};

}  // namespace frfit::test
