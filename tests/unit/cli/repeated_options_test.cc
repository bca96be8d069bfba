// How the command line reads an option given more than once: a list option (--frf) accumulates,
// with its items trimmed of spaces; a single-valued option (--model, --posture, --seed) is refused
// instead of silently keeping its last value.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
const std::string kMilling = kData + "frf_milling_inertance.h5";
const std::string kReach = kData + "frf_reach_inertance.h5";

class RepeatedOptions : public test::TempDirTest {
 protected:
  // The postures a fit of the bundled KUKA data (0.2 s) used, in order, from its --json output.
  std::vector<std::string> FittedPostures(const std::vector<std::string>& frf_args) {
    std::vector<std::string> args = {"fit", "--model", kData + "model.yaml", "--config",
                                     kData + "fit.yaml", "--json"};
    args.insert(args.end(), frf_args.begin(), frf_args.end());
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> names;
    if (r.status != 0) return names;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& p : j.at("postures")) names.push_back(p.at("name").get<std::string>());
    return names;
  }

  std::string ErrorOf(const std::vector<std::string>& args) {
    const test::CliResult r = Run(args);
    EXPECT_NE(r.status, 0);
    return r.err;
  }
};

TEST_F(RepeatedOptions, RepeatedFrfAccumulatesLikeACommaList) {
  const std::vector<std::string> both = {"milling", "reach"};
  EXPECT_EQ(FittedPostures({"--frf", kMilling + "," + kReach}), both);
  EXPECT_EQ(FittedPostures({"--frf", kMilling, "--frf", kReach}), both);
}

TEST_F(RepeatedOptions, ListItemsAreTrimmedOfSpaces) {
  EXPECT_EQ(FittedPostures({"--frf", kMilling + ", " + kReach + " "}),
            (std::vector<std::string>{"milling", "reach"}));
}

TEST_F(RepeatedOptions, RepeatedSingleValuedOptionIsRefusedNamingBothValues) {
  const std::string model = ErrorOf({"info", "--model", kData + "model.yaml", "--model",
                                     kData + "fit.yaml"});
  EXPECT_NE(model.find("--model: given 2 times"), std::string::npos) << model;
  EXPECT_NE(model.find("fit.yaml'"), std::string::npos) << model;
  const std::string posture = ErrorOf({"modal", "--model", kData + "model.yaml", "--posture",
                                       "milling", "--posture=reach"});
  EXPECT_NE(posture.find("--posture: given 2 times ('milling', 'reach'); it takes one value"),
            std::string::npos)
      << posture;
}

}  // namespace
}  // namespace frfit
