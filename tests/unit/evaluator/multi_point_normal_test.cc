// The evaluator on multi-point sets (H = B_aᵀZ⁻¹B_b, kernels/line_cost.h and line_normal.h)
// against the plain path: costs from Eigen's dense solve between the same two points
// (Synthesize), and the gradient and Gauss–Newton matrix from central differences of those
// residuals. Tool-tip, transfer (response at joint3 or joint2, hammer at the tool tip) and
// reversed sets at one posture, for each cost kind, with viscous and Rayleigh damping (whose
// α·M0 term takes Y = Z⁻¹B_a on one side and X on the other), and with fitted body masses (whose
// ∂Z/∂m = gravity_b − ω²mass_b + iωα mass_b the kernels build from per-kg shares).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "kernels/line_normal.h"
#include "reference_residuals.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

std::shared_ptr<const Model> Paper3Dof(bool rayleigh, bool fitted_masses = false) {
  std::string text = test::ReadText(kData + "paper_3dof/model.yaml");
  if (fitted_masses) {  // the links 2 and 3 (the forearm) become fitted masses
    for (const std::string mass : {"249.53", "222.659"})
      text.replace(text.find("mass: " + mass), 6 + mass.size(),
                   "mass: {initial: " + mass + ", min: 50, max: 900}");
  }
  if (rayleigh) {
    const std::string viscous = ", damping: {initial: 300, min: 10, max: 1.0e4}";
    for (size_t at = text.find(viscous); at != std::string::npos; at = text.find(viscous))
      text.erase(at, viscous.size());
    text.replace(text.find("damping_model: viscous"), 22,
                 "damping_model: rayleigh\nrayleigh_alpha: {initial: 0.5, min: 1.0e-3, max: 10}\n"
                 "rayleigh_beta: {initial: 1.0e-4, min: 1.0e-6, max: 1.0e-2}");
  }
  return std::make_shared<const Model>(ParseModelText(text, "paper_3dof"));
}

// Sets at the milling posture between the given points, from parameters other than the ones
// evaluated (so residuals are not zero), prepared as a fit prepares them.
Problem MultiPointProblem(std::shared_ptr<const Model> model, const FitOptions& options) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  const Posture posture = Linearize(*model, "milling");
  std::vector<double> truth = model->InitialParameters();
  for (size_t j = 0; j < truth.size(); ++j) truth[j] *= 1.0 + 0.1 * std::sin(1.0 + j);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"", ""}, {"joint3", ""}, {"joint2", "sensor"}, {"sensor", "joint3"}};
  for (const auto& [a, b] : pairs) {
    const FrfSet set =
        Synthesize(posture, Coefficients(*model, truth, posture.q), MakeBand(1, 30, 0.25, "test"),
                   FrfFormat::kInertance, PointsAt(*model, posture, a, b, "test"));
    ProblemPosture pp = PreparePosture(posture, set, options.cost, "set " + a + "/" + b, 1.0);
    SetMeasurementPoints(*model, pp.source, &pp);
    problem.postures.push_back(std::move(pp));
  }
  return problem;
}

struct Case {
  std::string name;
  CostType type;
  bool rayleigh;
  bool fitted_masses = false;
};

class MultiPointNormalEquations : public ::testing::TestWithParam<Case> {};

TEST_P(MultiPointNormalEquations, MatchCentralDifferencesOfTheDenseSolve) {
  const Case& c = GetParam();
  FitOptions options;
  options.cost.type = c.type;
  options.cost.weights.mode = WeightMode::kUniform;
  const auto model = Paper3Dof(c.rayleigh, c.fitted_masses);
  ASSERT_EQ(model->num_masses(), c.fitted_masses ? 2 : 0);
  const Problem problem = MultiPointProblem(model, options);
  EXPECT_EQ(Pack(problem).postures[1].response_basis.size(), 3u * problem.postures[1].posture.n);
  const ParameterMap map(*model, options.parameters, "test");
  const int dim = map.dim();
  std::vector<double> u(dim);
  for (int j = 0; j < dim; ++j) u[j] = 0.35 + 0.05 * j;
  const test::EvaluatorTerms terms = test::EvaluateTermsAt(problem, map, u);
  ASSERT_EQ(terms.normal_status, EvalStatus::kOk);
  const std::vector<double>& normal = terms.normal;
  EXPECT_EQ(normal[0], terms.cost);

  const test::ReferenceResiduals base = test::ComputeReferenceResiduals(problem, map, u);
  const std::vector<std::vector<double>> jac = test::ReferenceJacobian(problem, map, u, 1e-6);
  double f = 0.0;
  for (double v : base.r) f += v * v;
  EXPECT_NEAR(normal[0], f, 1e-9 * f) << c.name;
  for (int j = 0; j < dim; ++j) {
    double g = 0.0, ajj = 0.0;
    for (size_t i = 0; i < base.r.size(); ++i) {
      g += base.r[i] * jac[j][i];
      ajj += jac[j][i] * jac[j][i];
    }
    EXPECT_NEAR(normal[1 + j], g, 1e-5 * std::sqrt(ajj * f)) << c.name << ": g_" << j;
    for (int k = j; k < dim; ++k) {
      double a = 0.0, akk = 0.0;
      for (size_t i = 0; i < base.r.size(); ++i) {
        a += jac[j][i] * jac[k][i];
        akk += jac[k][i] * jac[k][i];
      }
      EXPECT_NEAR(normal[kernels::NormalTermIndex(dim, j, k)], a, 1e-5 * std::sqrt(ajj * akk))
          << c.name << ": A_" << j << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    CostKindsAndDamping, MultiPointNormalEquations,
    ::testing::Values(Case{"log_complex", CostType::kLogComplex, false},
                      Case{"log_magnitude", CostType::kLogMagnitude, false},
                      Case{"normalized_complex", CostType::kNormalizedComplex, false},
                      Case{"log_complex_rayleigh", CostType::kLogComplex, true},
                      Case{"log_complex_masses", CostType::kLogComplex, false, true},
                      Case{"normalized_complex_masses", CostType::kNormalizedComplex, false, true},
                      Case{"log_complex_rayleigh_masses", CostType::kLogComplex, true, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// At the parameters the sets were made from, every set costs (almost) nothing, the transfer sets
// included: the kernels project on the right points. Fitted as tool-tip data, they would not.
TEST(MultiPointEvaluator, TheTruthFitsEverySetAtItsOwnPoints) {
  FitOptions options;
  options.cost.weights.mode = WeightMode::kUniform;
  const auto model = Paper3Dof(false);
  Problem problem = MultiPointProblem(model, options);
  std::vector<double> truth = model->InitialParameters();
  for (size_t j = 0; j < truth.size(); ++j) truth[j] *= 1.0 + 0.1 * std::sin(1.0 + j);
  const ParameterMap map(*model, options.parameters, "test");
  const std::vector<double> u = map.ToU(truth);
  auto cost_of = [&](const Problem& p) {
    EvalStatus status;
    return test::CostAt(p, map, u, &status);
  };
  for (size_t s = 0; s < problem.postures.size(); ++s) {
    Problem one = problem;
    one.postures = {problem.postures[s]};
    EXPECT_LT(cost_of(one), 1e-18) << SetName(problem.postures[s]);
    if (s == 0) continue;
    one.postures[0].points = PointsAt(*model, one.postures[0].posture, "", "", "tool tip");
    EXPECT_GT(cost_of(one), 1.0) << SetName(problem.postures[s]) << " read at the tool tip";
  }
}

}  // namespace
}  // namespace frfit
