// Priors (fit/prior.h, docs/fit-config.md "Priors"): the MAP estimate and the posterior
// covariance against the closed form of a linear-in-parameters problem written here, and the
// `prior:` block's checks.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fit/prior.h"
#include "frfit/model/model_yaml.h"
#include "frfit/optim/levenberg_marquardt.h"
#include "linear_stiffness_data.h"

namespace frfit {
namespace {

using test::kPaperModel;

// The shared data (linear_stiffness_data.h) with columns 1 and 2 nearly alike, which the priors
// then settle; its terms from the analytic Jacobian through θ(u).
struct LinearProblem : test::LinearStiffnessData {
  LinearProblem() : LinearStiffnessData(0.01) {}
  std::vector<double> Terms(const ParameterMap& map, std::span<const double> u) const {
    const std::vector<double> physical = map.Physical(u), slope = map.Slopes(u);
    Eigen::Vector3d theta;
    for (int j = 0; j < 3; ++j) theta(j) = physical[map.free_indices()[j]] / theta0;
    const Eigen::VectorXd r = y - x * theta;
    Eigen::MatrixXd jac(m, 3);
    for (int j = 0; j < 3; ++j) jac.col(j) = -x.col(j) * slope[j] / theta0;
    return test::NormalTerms(r, jac, sigma);
  }
};

ParameterOptions ThreeStiffnesses() {
  ParameterOptions options;
  options.free = {"k_z1", "k_z2", "k_z3"};
  options.priors["k_z1"] = {1.0e6, 0.2e6, std::nan("")};
  options.priors["k_z2"] = {1.0e6, std::nan(""), 0.3};  // std_relative: 0.3e6
  return options;                                      // k_z3: no prior
}

TEST(Prior, MapEstimateAndPosteriorMatchTheClosedForm) {
  const Model model = LoadModel(kPaperModel);
  const ParameterMap map(model, ThreeStiffnesses(), "prior_test");
  const LinearProblem problem;

  LevenbergMarquardtOptions options;
  options.starts = 1;
  LevenbergMarquardt lm(options, 3, map.InitialU());
  while (!lm.Done()) {
    std::vector<double> normal;
    const std::vector<double>& points = lm.Ask();
    for (size_t start = 0; start < points.size(); start += 3) {
      const std::vector<double> t =
          problem.Terms(map, std::span<const double>(points).subspan(start, 3));
      normal.insert(normal.end(), t.begin(), t.end());
    }
    AddPriorNormalTerms(map, points, normal);
    lm.Tell(normal);
  }

  // (XᵀWX + Σ⁻¹)⁻¹ (XᵀWy + Σ⁻¹μ) in θ/θ₀, W = 1/σ² the noise's inverse variance.
  const double w = 1.0 / (LinearProblem::sigma * LinearProblem::sigma);
  Eigen::Matrix3d precision = Eigen::Matrix3d::Zero();
  Eigen::Vector3d mean_term = Eigen::Vector3d::Zero();
  const double s1 = 0.2, s2 = 0.3;  // prior σ of k_z1, k_z2 in θ₀
  precision(0, 0) = 1 / (s1 * s1), precision(1, 1) = 1 / (s2 * s2);
  mean_term << 1.0 / (s1 * s1), 1.0 / (s2 * s2), 0.0;
  const Eigen::Matrix3d posterior =
      (w * problem.x.transpose() * problem.x + precision).inverse();
  const Eigen::Vector3d map_estimate =
      posterior * (w * problem.x.transpose() * problem.y + mean_term);

  const std::vector<double> fitted = map.Physical(lm.best_u());
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(fitted[map.free_indices()[j]] / LinearProblem::theta0, map_estimate(j),
                1e-6 * std::sqrt(posterior(j, j)))
        << j;
  // Without the priors the same data put k_z1 more than a posterior σ elsewhere: the check above
  // would see a fit that ignored the prior.
  const Eigen::Vector3d least_squares =
      (problem.x.transpose() * problem.x).ldlt().solve(problem.x.transpose() * problem.y);
  EXPECT_GT(std::abs(least_squares(0) - map_estimate(0)), std::sqrt(posterior(0, 0)));

  IdentifiabilityInputs inputs;
  inputs.noise_weighted = true;
  inputs.reduced_chi2 = 1.0;  // neither widened nor scaled: σ straight from the noise model
  inputs.normal = problem.Terms(map, lm.best_u());
  inputs.normal_squared_weights = inputs.normal;
  inputs.residuals = LinearProblem::m;
  const Identifiability id = AssessIdentifiability(map, lm.best_u(), inputs);
  ASSERT_TRUE(id.has_prior);
  for (int j = 0; j < 3; ++j) {
    const ParameterIdentifiability& q = id.per_parameter[j];
    EXPECT_NEAR(q.std_absolute / LinearProblem::theta0, std::sqrt(posterior(j, j)),
                1e-6 * std::sqrt(posterior(j, j)))
        << q.name;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(id.correlation[3 * j + k],
                  posterior(j, k) / std::sqrt(posterior(j, j) * posterior(k, k)), 1e-6);
  }
  EXPECT_DOUBLE_EQ(id.per_parameter[0].prior_std_absolute, 0.2e6);
  EXPECT_DOUBLE_EQ(id.per_parameter[1].prior_std_absolute, 0.3e6);
  EXPECT_TRUE(std::isnan(id.per_parameter[2].prior_std_absolute));
  // What the data did with each prior: posterior/prior 1σ and the shift from the mean in prior σ,
  // from the closed form.
  const double prior_sigma[2] = {s1, s2};
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(id.per_parameter[j].std_ratio, std::sqrt(posterior(j, j)) / prior_sigma[j], 1e-6);
    EXPECT_NEAR(id.per_parameter[j].shift_in_prior_std, (map_estimate(j) - 1.0) / prior_sigma[j],
                1e-5);
    EXPECT_DOUBLE_EQ(id.per_parameter[j].prior_mean, 1.0e6);
  }
  EXPECT_TRUE(std::isnan(id.per_parameter[2].std_ratio));
  for (int j = 0; j < 2; ++j)
    EXPECT_EQ(id.per_parameter[j].moved_by_data,
              std::sqrt(posterior(j, j)) * LinearProblem::theta0 <
                  kMovedByData * id.per_parameter[j].prior_std_absolute);
}

// The cost the GA and Nelder–Mead see is the one Levenberg–Marquardt's terms carry: ½Σz².
TEST(Prior, CostIsHalfTheSumOfSquaredZ) {
  const Model model = LoadModel(kPaperModel);
  const ParameterMap map(model, ThreeStiffnesses(), "prior_test");
  const std::vector<double> u = map.ToU(std::vector<double>{1.5e6, 0.4e6, 3e6, 300, 300, 300});
  const std::vector<double> p = map.Physical(u);
  const double z1 = (p[map.free_indices()[0]] - 1.0e6) / 0.2e6,
               z2 = (p[map.free_indices()[1]] - 1.0e6) / 0.3e6;
  EXPECT_NEAR(PriorCost(map, u), 0.5 * (z1 * z1 + z2 * z2), 1e-12);
  std::vector<double> costs = {2.0, std::numeric_limits<double>::infinity()};
  std::vector<double> points = u;
  points.insert(points.end(), u.begin(), u.end());
  AddPriorCosts(map, points, costs);
  EXPECT_DOUBLE_EQ(costs[0], 2.0 + PriorCost(map, u));
  EXPECT_TRUE(std::isinf(costs[1]));  // a failed evaluation stays failed
}

std::string ParseError(const std::string& prior_block, const std::string& weights = "noise") {
  const std::string text = "format: frfit-fit-1\ncost: {weights: {mode: " + weights + "}}\n" +
                           prior_block;
  try {
    ParseFitOptionsText(text, "fit.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Prior, BadBlocksAreRefusedWithOneLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"prior: [k_x3]\n", "prior"},
      {"prior: {k_x3: {std: 1e5}}\n", "prior.k_x3.mean"},
      {"prior: {k_x3: {mean: 5e6}}\n", "exactly one of std and std_relative"},
      {"prior: {k_x3: {mean: 5e6, std: 1e5, std_relative: 0.2}}\n", "exactly one of"},
      {"prior: {k_x3: {mean: 5e6, std: -1e5}}\n", "prior.k_x3.std"},
      {"prior: {k_x3: {mean: 5e6, std_relative: 0}}\n", "prior.k_x3.std_relative"},
      {"prior: {k_x3: {mean: 0, std_relative: 0.2}}\n", "std > 0"},
      {"prior: {k_x3: {mean: 5e6, sigma: 1e5}}\n", "sigma"},
      {"prior: {k_x3: {mean: .nan, std: 1e5}}\n", "prior.k_x3.mean"},
  };
  for (const auto& [block, expected] : cases) {
    const std::string error = ParseError(block);
    EXPECT_NE(error.find(expected), std::string::npos) << block << " → " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  EXPECT_NE(ParseError("prior: {k_x3: {mean: 5e6, std: 1e5}}\n", "peaks").find("prior: expected cost.weights.mode noise"),
            std::string::npos);
  EXPECT_EQ(ParseError("prior: {k_x3: {mean: 5e6, std: 1e5}}\n"), "");

  // Names are checked against the model: unknown, or not free.
  const Model model = LoadModel(kPaperModel);
  ParameterOptions options = ThreeStiffnesses();
  options.priors["k_x9"] = {1e6, 1e5, std::nan("")};
  EXPECT_THROW(
      try { ParameterMap(model, options, "fit.yaml"); } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("prior.k_x9"), std::string::npos) << e.what();
        throw;
      },
      Error);
  options = ThreeStiffnesses();
  options.priors["d_z1"] = {300, 30, std::nan("")};  // not among parameters.free
  EXPECT_THROW(
      try { ParameterMap(model, options, "fit.yaml"); } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("prior.d_z1: expected a free parameter"),
                  std::string::npos)
            << e.what();
        throw;
      },
      Error);
}

TEST(Prior, BlockSurvivesTheSettingsText) {
  const FitOptions options = ParseFitOptionsText(
      "format: frfit-fit-1\nprior: {k_x3: {mean: 5e6, std_relative: 0.2}, k_z1: {mean: 4e6, std: 1e6}}\n",
      "fit.yaml");
  const FitOptions again = ParseFitOptionsText(FitOptionsToYaml(options), "again.yaml");
  ASSERT_EQ(again.parameters.priors.size(), 2u);
  EXPECT_DOUBLE_EQ(again.parameters.priors.at("k_x3").Std(), 1e6);
  EXPECT_DOUBLE_EQ(again.parameters.priors.at("k_x3").std_relative, 0.2);
  EXPECT_DOUBLE_EQ(again.parameters.priors.at("k_z1").std, 1e6);
  // No prior, no `prior:` key: settings texts of fits without one keep their bits.
  EXPECT_EQ(FitOptionsToYaml(FitOptions{}).find("prior"), std::string::npos);
}

}  // namespace
}  // namespace frfit
