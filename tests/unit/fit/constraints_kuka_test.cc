// Constraints where the data are thin (docs/fit-config.md, "Constraints"): the KUKA robot at one
// posture, tool tip only, impact-test noise, simulated with k_y2 = k_x2. The equality the data
// obey at least halves the pair's σ (their rms); an inequality that the unconstrained optimum
// violates ends active and is reported so, in --json, the text and the result file.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frfit/results/fit_result.h"
#include "kuka_thin_data.h"

namespace frfit {
namespace {

using test::kKuka;
using ConstraintsKuka = test::KukaThinDataTest;

TEST_F(ConstraintsKuka, EqualityNarrowsThePairAndAnActiveInequalityIsReported) {
  std::ifstream truth_file(kKuka + "params_from34.yaml");
  std::string params((std::istreambuf_iterator<char>(truth_file)), std::istreambuf_iterator<char>());
  const size_t at = params.find("k_y2: 8.1e6");
  ASSERT_NE(at, std::string::npos);
  params.replace(at, 11, "k_y2: 11.8e6");  // = k_x2
  std::ofstream(Path("truth.yaml")) << params;
  SimulateNoisy(Path("truth.yaml"));
  if (HasFatalFailure()) return;

  const nlohmann::json plain = Fit(Config(""));
  const nlohmann::json& p = plain["identifiability"]["parameters"];
  const double sigma_x2 = p["k_x2"]["std_absolute"], sigma_y2 = p["k_y2"]["std_absolute"];

  const nlohmann::json tied = Fit(Config("constraints: ['k_x2 == k_y2']\n"));
  const nlohmann::json& t = tied["identifiability"]["parameters"];
  ASSERT_TRUE(t.contains("k_y2")) << t.dump();
  EXPECT_EQ(t["k_y2"]["tied_by"], "k_x2 == k_y2");
  EXPECT_DOUBLE_EQ(tied["parameters"]["k_x2"].get<double>(), tied["parameters"]["k_y2"].get<double>());
  const double sigma_pair = t["k_x2"]["std_absolute"];
  EXPECT_NEAR(t["k_y2"]["std_absolute"].get<double>(), sigma_pair, 1e-9 * sigma_pair);
  // The pair's σ — the rms of the two without the constraint — at least halves (0.207e6 against
  // 0.369e6 and 0.532e6 when written).
  EXPECT_LE(sigma_pair, 0.5 * std::sqrt(0.5 * (sigma_x2 * sigma_x2 + sigma_y2 * sigma_y2)))
      << "plain " << sigma_x2 << ", " << sigma_y2 << "; tied " << sigma_pair;
  EXPECT_LT(std::abs(tied["parameters"]["k_x2"].get<double>() - 11.8e6), 3 * sigma_pair);

  // An upper bound on k_x3 at 80 % of where the data alone put it.
  const double limit = 0.8 * plain["parameters"]["k_x3"].get<double>();
  char text[64];
  std::snprintf(text, sizeof text, "k_x3 <= %.6g", limit);
  const nlohmann::json bound =
      Fit(Config(std::string("constraints: ['") + text + "']\n"), Path("bound.h5"));
  ASSERT_EQ(bound["constraints"].size(), 1u) << bound.dump();
  EXPECT_EQ(bound["constraints"][0]["constraint"], text);
  EXPECT_TRUE(bound["constraints"][0]["active"].get<bool>()) << bound["constraints"].dump();
  EXPECT_NEAR(bound["parameters"]["k_x3"].get<double>(), std::stod(std::string(text).substr(8)),
              1e-6 * limit);
  // The fit is a minimum on the boundary: the cost is above the unconstrained one.
  EXPECT_GT(bound["cost"].get<double>(), plain["cost"].get<double>());
  const FitResult file = ReadFitResult(Path("bound.h5"));
  ASSERT_EQ(file.constraints.size(), 1u);
  EXPECT_TRUE(file.constraints[0].active);
  EXPECT_EQ(file.constraints[0].text, text);
  // Without constraints the output has no such key (fits without them keep their output).
  EXPECT_FALSE(plain.contains("constraints"));
}

}  // namespace
}  // namespace frfit
