// A prior where the data are thin (docs/fit-config.md, "Priors"): the KUKA robot at one posture,
// tool tip only, impact-test noise. Without help k_x3 is poorly determined; with a ±20 % prior
// around a nominal off by up to 15 % from the truth every stiffness ends within 2.5 posterior σ of
// the truth, no posterior σ exceeds its prior's, and a well-determined parameter barely moves.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "kuka_thin_data.h"

namespace frfit {
namespace {

using test::kKuka;

// The truth (params_from34.yaml) and the nominal each prior is centred on: off by up to 15 %.
const std::map<std::string, std::pair<double, double>> kStiffness = {
    {"k_z1", {5.0e6, +0.15}},  {"k_x1", {6.1e6, -0.15}},  {"k_y1", {11.9e6, +0.10}},
    {"k_z2", {6.9e6, -0.10}},  {"k_x2", {11.8e6, +0.15}}, {"k_y2", {8.1e6, -0.05}},
    {"k_z3", {2.8e6, +0.12}},  {"k_x3", {5.2e6, -0.15}},  {"k_y3", {12.0e6, +0.08}}};

// The identifiability report of a fit.
class PriorKuka : public test::KukaThinDataTest {
 protected:
  nlohmann::json Parameters(const std::string& config) {
    return Fit(config)["identifiability"]["parameters"];
  }
};

TEST_F(PriorKuka, OnePostureToolTipFitWithAPrior) {
  SimulateNoisy(kKuka + "params_from34.yaml");
  if (HasFatalFailure()) return;
  const nlohmann::json plain = Parameters(kKuka + "fit.yaml");
  ASSERT_TRUE(plain.contains("k_x3")) << plain.dump();
  // The premise: the data alone hardly determine k_x3.
  EXPECT_GT(plain["k_x3"]["std_relative"].get<double>(), 0.1) << plain["k_x3"].dump();

  std::string block = "prior:\n";
  for (const auto& [name, truth_offset] : kStiffness)
    block += "  " + name + ": {mean: " + std::to_string(truth_offset.first * (1 + truth_offset.second)) +
             ", std_relative: 0.2}\n";
  const nlohmann::json prior = Parameters(Config(block));

  for (const auto& [name, truth_offset] : kStiffness) {
    const nlohmann::json& q = prior[name];
    const double truth = truth_offset.first, value = q["value"], sigma = q["std_absolute"];
    EXPECT_LT(std::abs(value - truth), 2.5 * sigma) << name << " " << q.dump();
    EXPECT_LE(sigma, q["prior_std_absolute"].get<double>()) << name << " " << q.dump();
    // A parameter the data determine far better than the prior barely moves: its own prior pulls
    // it by (σ_data/σ_prior)² of the offset, ~1e-3 σ; the rest comes through its correlation
    // with the parameters the prior did move (k_y3 with k_x3: 0.10 σ here).
    const double plain_sigma = plain[name]["std_absolute"];
    if (plain_sigma < 0.1 * q["prior_std_absolute"].get<double>()) {
      EXPECT_TRUE(q["moved_by_data"].get<bool>()) << name;
      EXPECT_LT(std::abs(value - plain[name]["value"].get<double>()), 0.25 * plain_sigma)
          << name << " " << q.dump() << " " << plain[name].dump();
    }
  }
  // Where the data were thin the prior narrows the σ.
  EXPECT_LT(prior["k_x3"]["std_absolute"].get<double>(), plain["k_x3"]["std_absolute"].get<double>());
}

}  // namespace
}  // namespace frfit
