// Linear constraints (fit/constraints.h, fit/parameter_map.h, optim/polytope_projection.h): the
// parser, the projection against an enumeration of every active set, the tied parameters' chain
// rule against finite differences, and a constrained fit of a linear-in-parameters problem
// against the KKT solution computed here.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/fit/constraints.h"
#include "frfit/fit/fit_run.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/model_yaml.h"
#include "frfit/optim/polytope_projection.h"
#include "linear_stiffness_data.h"

namespace frfit {
namespace {

using test::kPaperModel;

TEST(Constraints, ParseLinearRelations) {
  LinearConstraint c;
  std::string error;
  ASSERT_TRUE(ParseLinearConstraint("2*k_a - k_b >= 0", &c, &error)) << error;
  ASSERT_EQ(c.terms.size(), 2u);
  EXPECT_EQ(c.terms[0].first, "k_a");
  EXPECT_DOUBLE_EQ(c.terms[0].second, 2.0);
  EXPECT_DOUBLE_EQ(c.terms[1].second, -1.0);
  EXPECT_EQ(c.relation, Relation::kGreaterEqual);
  EXPECT_DOUBLE_EQ(c.bound, 0.0);

  ASSERT_TRUE(ParseLinearConstraint("m_tool + m_spindle <= 95", &c, &error)) << error;
  EXPECT_EQ(c.relation, Relation::kLessEqual);
  EXPECT_DOUBLE_EQ(c.bound, 95.0);

  // Names and numbers on both sides: 3 >= 0.5 k_a + 1 - k_b  ⇔  −0.5 k_a + k_b >= −2.
  ASSERT_TRUE(ParseLinearConstraint("3 >= k_a*0.5 + 1 - k_b", &c, &error)) << error;
  EXPECT_DOUBLE_EQ(c.terms[0].second, -0.5);
  EXPECT_DOUBLE_EQ(c.terms[1].second, 1.0);
  EXPECT_DOUBLE_EQ(c.bound, -2.0);

  ASSERT_TRUE(ParseLinearConstraint("k_x2 == k_y2", &c, &error)) << error;
  EXPECT_EQ(c.relation, Relation::kEqual);
  EXPECT_DOUBLE_EQ(c.terms[1].second, -1.0);

  for (const char* bad : {"k_a > k_b", "k_a >= ", "k_a >= k_b +", "2 >= 1", "k_a - k_a == 0",
                          "k_a >= 2 k_b", "k_a >= k_b >= 0", "* k_a >= 0"}) {
    EXPECT_FALSE(ParseLinearConstraint(bad, &c, &error)) << bad;
    EXPECT_NE(error.find(std::string("'") + bad + "'"), std::string::npos) << error;
  }
}

std::string ConfigError(const std::string& block) {
  try {
    ParseFitOptionsText("format: frfit-fit-1\n" + block, "fit.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Constraints, BadListsAreRefusedInOneLineNamingTheConstraint) {
  EXPECT_EQ(ConfigError("constraints: ['k_z1 >= k_z2', 'k_z2 == 2*k_z3']\n"), "");
  const std::string error = ConfigError("constraints: ['k_z1 >= k_z2', 'k_z2 => k_z3']\n");
  EXPECT_NE(error.find("constraints[1]"), std::string::npos) << error;
  EXPECT_NE(error.find("'k_z2 => k_z3'"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(ConfigError("constraints: 'k_z1 >= k_z2'\n").find("constraints"), std::string::npos);

  // Names are checked against the model, and an equality must tie something.
  const Model model = LoadModel(kPaperModel);
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"k_z1 >= k_q9"}, "constraints[0]: 'k_z1 >= k_q9': model 'paper_3dof' has no parameter 'k_q9'"},
      {{"k_z1 == k_z2", "k_z2 == k_z1"}, "constraints[1]"},
      {{"d_z1 >= 5000"}, "constraints[0]: 'd_z1 >= 5000' never holds"},
  };
  for (const auto& [constraints, expected] : cases) {
    ParameterOptions options;
    options.free = {"k_z1", "k_z2", "k_z3"};
    options.constraints = constraints;
    try {
      ParameterMap(model, options, "fit.yaml");
      ADD_FAILURE() << "accepted " << constraints.back();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

// The projection against the definition: every subset of rows held as equalities, its KKT
// system solved densely, and the best feasible point whose multipliers are ≥ 0 taken.
TEST(Constraints, ProjectionMatchesEveryActiveSetEnumerated) {
  const int n = 3, rows = 5;
  Eigen::MatrixXd m(n, n), c(rows, n);
  m << 4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2;
  c << 1, -1, 0, 0, 1, 1, -1, 0, -1, 1, 0, 0, 0, 0, 1;
  Eigen::VectorXd d(rows);
  d << 0.1, -1, -2, -1, 0;
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd w(n);
    for (int j = 0; j < n; ++j) w(j) = 2.0 * std::sin(1.7 * trial + 2.3 * j) ;
    Eigen::VectorXd best;
    double best_value = INFINITY;
    for (int mask = 0; mask < (1 << rows); ++mask) {
      std::vector<int> active;
      for (int i = 0; i < rows; ++i)
        if (mask & (1 << i)) active.push_back(i);
      const int k = static_cast<int>(active.size());
      Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(n + k, n + k);
      Eigen::VectorXd rhs(n + k);
      kkt.topLeftCorner(n, n) = m;
      rhs.head(n) = m * w;
      for (int i = 0; i < k; ++i) {
        kkt.block(n + i, 0, 1, n) = c.row(active[i]);
        kkt.block(0, n + i, n, 1) = -c.row(active[i]).transpose();
        rhs(n + i) = d(active[i]);
      }
      Eigen::FullPivLU<Eigen::MatrixXd> lu(kkt);
      if (lu.rank() < n + k) continue;
      const Eigen::VectorXd s = lu.solve(rhs);
      const Eigen::VectorXd x = s.head(n);
      if (((c * x - d).array() < -1e-9).any() || (s.tail(k).array() < -1e-9).any()) continue;
      const double value = 0.5 * (x - w).dot(m * (x - w));
      if (value < best_value) best_value = value, best = x;
    }
    ASSERT_TRUE(std::isfinite(best_value));
    const Eigen::VectorXd x0 = Eigen::Vector3d(0.6, 0.3, 0.5);  // feasible
    ASSERT_TRUE(((c * x0 - d).array() >= 0).all());
    const PolytopeProjection p = ProjectOntoPolytope(m, w, c, d, x0);
    EXPECT_TRUE(p.converged);
    EXPECT_LT((p.x - best).norm(), 1e-9) << trial << ": " << p.x.transpose() << " vs "
                                         << best.transpose();
  }
}

// θ_z3 tied by 'k_z1 + 2*k_z3 == 5e6': the packed sensitivities (∂ coefficients/∂u) equal central
// differences of the packed coefficients, the tied parameter's share included.
TEST(Constraints, TiedParameterSensitivitiesMatchFiniteDifferences) {
  const Model model = LoadModel(kPaperModel);
  ParameterOptions options;
  options.free = {"k_z1", "k_z2", "k_z3", "d_z1"};
  options.constraints = {"k_z1 + 2*k_z3 == 5e6"};
  const ParameterMap map(model, options, "constraints_test");
  ASSERT_EQ(map.dim(), 3);
  ASSERT_EQ(map.tied().size(), 1u);
  const std::vector<double> u = {0.55, 0.4, 0.3};
  const std::vector<double> physical = map.Physical(u);
  EXPECT_NEAR(physical[0] + 2 * physical[2], 5e6, 1e-6);
  const std::vector<std::vector<double>> q = {std::vector<double>(model.num_coordinates(), 0.0)};
  std::vector<double> sensitivities;
  map.AppendSensitivities(u, q, &sensitivities);
  for (int j = 0; j < 3; ++j) {
    std::vector<double> up = u, down = u, plus, minus;
    const double h = 1e-6;
    up[j] += h, down[j] -= h;
    map.AppendCoefficients(up, q, &plus);
    map.AppendCoefficients(down, q, &minus);
    ASSERT_EQ(plus.size() * 3, sensitivities.size());
    for (size_t r = 0; r < plus.size(); ++r) {
      const double fd = (plus[r] - minus[r]) / (2 * h);
      EXPECT_NEAR(sensitivities[r * 3 + j], fd, 1e-6 * (std::abs(fd) + 1.0)) << r << " " << j;
    }
  }
}

// The shared data (linear_stiffness_data.h) with columns 1 and 2 less alike than prior_test.cc's.
// Terms by central differences of r(u) through the map, tied parameters included.
struct LinearProblem : test::LinearStiffnessData {
  LinearProblem() : LinearStiffnessData(0.2) {}
  Eigen::VectorXd Residual(const ParameterMap& map, std::span<const double> u) const {
    const std::vector<double> p = map.Physical(u);
    return y - x * Eigen::Vector3d(p[0], p[1], p[2]) / theta0;
  }
  std::vector<double> Terms(const ParameterMap& map, std::span<const double> u) const {
    const int n = map.dim();
    const Eigen::VectorXd r = Residual(map, u);
    Eigen::MatrixXd jac(m, n);
    for (int j = 0; j < n; ++j) {
      std::vector<double> up(u.begin(), u.end()), down(u.begin(), u.end());
      const double h = 1e-6;
      up[j] += h, down[j] -= h;
      jac.col(j) = (Residual(map, up) - Residual(map, down)) / (2 * h);
    }
    return test::NormalTerms(r, jac, sigma);
  }
  // The constrained least squares min ‖y − Xθ‖² s.t. Aθ = b, by its dense KKT system.
  Eigen::Vector3d Kkt(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) const {
    const int k = static_cast<int>(a.rows());
    Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(3 + k, 3 + k);
    Eigen::VectorXd rhs(3 + k);
    kkt.topLeftCorner(3, 3) = x.transpose() * x;
    kkt.topRightCorner(3, k) = a.transpose();
    kkt.bottomLeftCorner(k, 3) = a;
    rhs << x.transpose() * y, b;
    return kkt.fullPivLu().solve(rhs).head(3);
  }
};

// The whole fit loop (GA with repair, then projected Levenberg–Marquardt) on the linear problem.
std::vector<double> Fit(const ParameterMap& map, const LinearProblem& problem) {
  FitOptions options;
  options.genetic_algorithm.population_size = 16;
  options.genetic_algorithm.generations = 3;
  FitRun run(map, options, 7);
  while (!run.Done()) {
    const std::vector<double>& points = run.Ask();
    const int n = map.dim();
    std::vector<double> told;
    for (size_t at = 0; at < points.size(); at += n) {
      const std::vector<double> t = problem.Terms(map, std::span<const double>(points).subspan(at, n));
      if (run.WantsNormalEquations()) told.insert(told.end(), t.begin(), t.end());
      else told.push_back(t[0]);
    }
    if (run.WantsNormalEquations()) run.TellNormalEquations(told, 0.0);
    else run.Tell(told, 0.0);
  }
  std::vector<double> p = map.Physical(run.best_u());
  return {p[0] / LinearProblem::theta0, p[1] / LinearProblem::theta0, p[2] / LinearProblem::theta0};
}

ParameterOptions Stiffnesses(std::vector<std::string> constraints) {
  ParameterOptions options;
  options.free = {"k_z1", "k_z2", "k_z3"};
  options.constraints = std::move(constraints);
  return options;
}

TEST(Constraints, ActiveInequalityFitMatchesTheKktSolution) {
  const Model model = LoadModel(kPaperModel);
  const LinearProblem problem;
  const Eigen::Vector3d free_fit = (problem.x.transpose() * problem.x).ldlt().solve(
      problem.x.transpose() * problem.y);
  // The premise: the unconstrained optimum puts k_z1 well above k_z2.
  ASSERT_GT(free_fit(0) - free_fit(1), 0.2) << free_fit.transpose();

  const ParameterMap map(model, Stiffnesses({"k_z1 <= k_z2"}), "constraints_test");
  const std::vector<double> fitted = Fit(map, problem);
  Eigen::MatrixXd a(1, 3);
  a << 1, -1, 0;
  const Eigen::Vector3d expected = problem.Kkt(a, Eigen::VectorXd::Zero(1));
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(fitted[j], expected(j), 1e-6) << j;
  const std::vector<ConstraintStatus> status = map.ConstraintStatuses(
      std::vector<double>{fitted[0] * 1e6, fitted[1] * 1e6, fitted[2] * 1e6, 300, 300, 300});
  ASSERT_EQ(status.size(), 1u);
  EXPECT_TRUE(status[0].active) << status[0].slack;

  // An inequality the optimum satisfies changes nothing.
  const ParameterMap loose(model, Stiffnesses({"k_z1 + k_z2 <= 9e6"}), "constraints_test");
  const std::vector<double> unconstrained = Fit(loose, problem);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(unconstrained[j], free_fit(j), 1e-6) << j;
  EXPECT_FALSE(loose.ConstraintStatuses(std::vector<double>{unconstrained[0] * 1e6,
                                                            unconstrained[1] * 1e6,
                                                            unconstrained[2] * 1e6, 300, 300, 300})[0]
                   .active);
}

TEST(Constraints, EqualityIsEliminatedAndMatchesTheKktSolution) {
  const Model model = LoadModel(kPaperModel);
  const LinearProblem problem;
  const ParameterMap map(model, Stiffnesses({"k_z1 + 2*k_z3 == 5e6"}), "constraints_test");
  EXPECT_EQ(map.dim(), 2);  // k_z3 left the search
  const std::vector<double> fitted = Fit(map, problem);
  Eigen::MatrixXd a(1, 3);
  a << 1, 0, 2;
  const Eigen::Vector3d expected = problem.Kkt(a, Eigen::VectorXd::Constant(1, 5.0));
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(fitted[j], expected(j), 1e-6) << j;
}

}  // namespace
}  // namespace frfit
