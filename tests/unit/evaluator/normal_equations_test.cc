// The least-squares normal equations (kernels/line_normal.h through the cpu evaluator) against a
// plain, independent computation: the residual vector built from Eigen's dense solve
// (Synthesize), std::log and std::arg, differentiated by central differences in the optimiser's
// u. Every cost kind, phase mode, fitted format, damping model and posture-dependent stiffness
// laws are covered, so the product-of-rows derivatives, the format factor, the chain through
// η·k, β·k, α·M0, the law bases and the log-scaled bounds are all checked at once.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "frfit/common/error.h"
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

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The 3-joint model under each damping model (the dataset's file, rewritten).
std::shared_ptr<const Model> Paper3Dof(const std::string& damping) {
  std::string text = test::ReadText(kData + "paper_3dof/model.yaml");
  const std::string viscous = "damping: {initial: 300, min: 10, max: 1.0e4}";
  if (damping == "structural") {
    text = Replace(text, "damping_model: viscous", "damping_model: structural");
    text = Replace(text, viscous, "loss_factor: {initial: 0.02, min: 1.0e-3, max: 0.2}");
  } else if (damping == "rayleigh") {
    text = Replace(text, "damping_model: viscous",
                   "damping_model: rayleigh\nrayleigh_alpha: {initial: 0.5, min: 1.0e-3, max: 10}\n"
                   "rayleigh_beta: {initial: 1.0e-4, min: 1.0e-6, max: 1.0e-2}");
    text = Replace(text, ", " + viscous, "");
  }
  return std::make_shared<const Model>(ParseModelText(text, "paper_3dof (" + damping + ")"));
}

struct Case {
  std::string name;
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
  std::shared_ptr<const Model> model;
  std::vector<std::string> frf_files;
  CostType type;
  PhaseMode phase;
  FrfFormat format;
};

// With a step of 1e-6 in u the central differences' truncation error is at most ~1e-6 of a
// column's norm on these problems (it shrinks as h², measured from 1e-3 down to 1e-6); a wrong
// derivative is off by far more.
constexpr double kTolerance = 1e-5;

class NormalEquations : public ::testing::TestWithParam<Case> {};

TEST_P(NormalEquations, MatchCentralDifferencesOfAnIndependentResidual) {
  const Case& c = GetParam();
  FitOptions options;
  options.cost.type = c.type;
  options.cost.phase = c.phase;
  options.cost.fit_format = c.format;
  options.cost.band_max_hz = 30.0;
  const Problem problem = LoadProblem(c.model, c.frf_files, options, "test");
  const ParameterMap map(*c.model, options.parameters, "test");
  const int dim = map.dim();
  std::mt19937_64 rng(7);
  std::vector<double> u(dim);
  for (double& v : u) v = 0.2 + 0.6 * std::uniform_real_distribution<double>(0, 1)(rng);

  const test::EvaluatorTerms terms = test::EvaluateTermsAt(problem, map, u);
  ASSERT_EQ(terms.normal_status, EvalStatus::kOk);
  const std::vector<double>& normal = terms.normal;
  // The cost term is Evaluate's cost, bit for bit.
  EXPECT_EQ(normal[0], terms.cost);

  // The reference: r(u), J by central differences, then F = rᵀr, g = Jᵀr, A = JᵀJ.
  const test::ReferenceResiduals base = test::ComputeReferenceResiduals(problem, map, u);
  const size_t m = base.r.size();
  const std::vector<std::vector<double>> jac = test::ReferenceJacobian(problem, map, u, 1e-6);
  double f = 0.0;
  for (double v : base.r) f += v * v;
  EXPECT_NEAR(normal[0], f, 1e-9 * f) << c.name;
  for (int j = 0; j < dim; ++j) {
    double g = 0.0, ajj = 0.0;
    for (size_t i = 0; i < m; ++i) {
      g += base.r[i] * jac[j][i];
      ajj += jac[j][i] * jac[j][i];
    }
    EXPECT_GT(ajj, 0.0) << c.name << ": " << map.space().bounds(j).name << " moves nothing";
    EXPECT_NEAR(normal[1 + j], g, kTolerance * std::sqrt(ajj * f))
        << c.name << ": g of " << map.space().bounds(j).name;
    for (int k = j; k < dim; ++k) {
      double a = 0.0, akk = 0.0;
      for (size_t i = 0; i < m; ++i) {
        a += jac[j][i] * jac[k][i];
        akk += jac[k][i] * jac[k][i];
      }
      EXPECT_NEAR(normal[kernels::NormalTermIndex(dim, j, k)], a, kTolerance * std::sqrt(ajj * akk))
          << c.name << ": A of " << map.space().bounds(j).name << ", "
          << map.space().bounds(k).name;
    }
  }
}

std::vector<Case> Cases() {
  const std::vector<std::string> p3 = {kData + "paper_3dof/frf_milling_inertance.h5"};
  const std::vector<std::string> law = {kData + "paper_3dof_law/frf_milling_inertance.h5",
                                        kData + "paper_3dof_law/frf_reach_inertance.h5",
                                        kData + "paper_3dof_law/frf_folded_inertance.h5"};
  const auto law_model =
      std::make_shared<const Model>(LoadModel(kData + "paper_3dof_law/model.yaml"));
  struct Kind {
    std::string name;
    CostType type;
    PhaseMode phase;
  };
  const std::vector<Kind> kinds = {{"log_complex_wrapped", CostType::kLogComplex, PhaseMode::kWrapped},
                                   {"log_complex_principal", CostType::kLogComplex, PhaseMode::kPrincipalLogs},
                                   {"log_magnitude", CostType::kLogMagnitude, PhaseMode::kWrapped},
                                   {"normalized_complex", CostType::kNormalizedComplex, PhaseMode::kWrapped}};
  std::vector<Case> cases;
  for (const Kind& kind : kinds)
    for (FrfFormat format : {FrfFormat::kReceptance, FrfFormat::kMobility, FrfFormat::kInertance}) {
      const std::string suffix = kind.name + "_" + ToString(format);
      for (const std::string damping : {"viscous", "structural", "rayleigh"})
        cases.push_back({damping + "_" + suffix, Paper3Dof(damping), p3, kind.type, kind.phase, format});
      cases.push_back({"laws_3_postures_" + suffix, law_model, law, kind.type, kind.phase, format});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryCostFormatAndDampingModel, NormalEquations,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// A robust loss (kernels/line_cost.h) on each entry's weighted error s = Σ of its residuals²:
// the cost term is Σ ρ(s) computed here with std::sqrt/std::log, the gradient term is half the
// central difference of that cost (so IRLS steps descend the robust cost itself), and A is
// Σ ρ'(s)·JᵀJ over each entry's residuals.
struct LossCase {
  std::string name;
  CostType type;
  LossType loss;
};

class RobustNormalEquations : public ::testing::TestWithParam<LossCase> {};

TEST_P(RobustNormalEquations, MatchTheRobustCostOfAnIndependentResidual) {
  const LossCase& c = GetParam();
  FitOptions options;
  options.cost.type = c.type;
  options.cost.band_max_hz = 30.0;
  options.cost.loss = {c.loss, 0.5};  // below the typical residual: both branches are used
  // Moderate weights (the noise weights of these noise-free FRFs reach 1e16, whose residuals the
  // central differences below cannot resolve).
  options.cost.weights.mode = WeightMode::kPeaks;
  const auto model = Paper3Dof("viscous");
  const Problem problem =
      LoadProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, "test");
  const ParameterMap map(*model, options.parameters, "test");
  const int dim = map.dim();
  std::vector<double> u(dim);
  for (int j = 0; j < dim; ++j) u[j] = 0.3 + 0.07 * j;
  const test::EvaluatorTerms terms = test::EvaluateTermsAt(problem, map, u);
  ASSERT_EQ(terms.normal_status, EvalStatus::kOk);
  const std::vector<double>& normal = terms.normal;
  EXPECT_EQ(normal[0], terms.cost);

  const int per_entry = c.type == CostType::kLogMagnitude ? 1 : 2;
  const double c2 = 0.25;
  auto rho = [&](double e) {
    if (c.loss == LossType::kHuber) return e <= c2 ? e : 2.0 * 0.5 * std::sqrt(e) - c2;
    return c2 * std::log1p(e / c2);
  };
  auto slope = [&](double e) {
    if (c.loss == LossType::kHuber) return e <= c2 ? 1.0 : 0.5 / std::sqrt(e);
    return 1.0 / (1.0 + e / c2);
  };
  auto robust_cost = [&](const std::vector<double>& at) {
    const std::vector<double> r = test::ComputeReferenceResiduals(problem, map, at).r;
    double total = 0.0;
    for (size_t i = 0; i < r.size(); i += per_entry)
      total += rho(r[i] * r[i] + (per_entry == 2 ? r[i + 1] * r[i + 1] : 0.0));
    return total;
  };
  const double f = robust_cost(u);
  EXPECT_NEAR(normal[0], f, 1e-9 * f) << c.name;
  const std::vector<double> r = test::ComputeReferenceResiduals(problem, map, u).r;
  const std::vector<std::vector<double>> jac = test::ReferenceJacobian(problem, map, u, 1e-6);
  const double h = 1e-6;
  for (int j = 0; j < dim; ++j) {
    std::vector<double> up = u, down = u;
    up[j] += h;
    down[j] -= h;
    const double g = 0.25 * (robust_cost(up) - robust_cost(down)) / h;  // ½ ∂F/∂u_j
    EXPECT_NEAR(normal[1 + j], g, 1e-5 * std::abs(g) + 1e-9 * f) << c.name << " g_" << j;
    for (int k = j; k < dim; ++k) {
      double a = 0.0;
      for (size_t i = 0; i < r.size(); i += per_entry) {
        const double e = r[i] * r[i] + (per_entry == 2 ? r[i + 1] * r[i + 1] : 0.0);
        double jj = jac[j][i] * jac[k][i];
        if (per_entry == 2) jj += jac[j][i + 1] * jac[k][i + 1];
        a += slope(e) * jj;
      }
      EXPECT_NEAR(normal[kernels::NormalTermIndex(dim, j, k)], a, 1e-5 * std::abs(a) + 1e-9 * f)
          << c.name << " A_" << j << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    HuberAndCauchy, RobustNormalEquations,
    ::testing::Values(LossCase{"huber_log_complex", CostType::kLogComplex, LossType::kHuber},
                      LossCase{"cauchy_log_complex", CostType::kLogComplex, LossType::kCauchy},
                      LossCase{"huber_log_magnitude", CostType::kLogMagnitude, LossType::kHuber},
                      LossCase{"cauchy_normalized_complex", CostType::kNormalizedComplex,
                               LossType::kCauchy}),
    [](const ::testing::TestParamInfo<LossCase>& info) { return info.param.name; });

// SetProblem replaces one problem as packing the problems with it would: the same bits for costs
// and normal equations, the other problems untouched; a problem of another size is refused.
TEST(EvaluatorSetProblem, GivesTheBitsOfTheProblemsPackedWithIt) {
  FitOptions options;
  const auto model = Paper3Dof("viscous");
  const Problem problem =
      LoadProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, "test");
  const ParameterMap map(*model, options.parameters, "test");
  const int dim = map.dim();
  PackedProblem reweighted = Pack(problem);
  for (size_t i = 0; i < reweighted.postures[0].weight.size(); ++i)
    if (reweighted.postures[0].weight[i] != 0.0) reweighted.postures[0].weight[i] = 1.0 + 0.01 * (i % 13);
  std::vector<double> u(2 * dim);
  for (int j = 0; j < 2 * dim; ++j) u[j] = 0.2 + 0.05 * j;
  std::vector<double> coefficients, sensitivities;
  map.AppendCoefficients(u, PostureCoordinates(problem), &coefficients);
  map.AppendSensitivities(u, PostureCoordinates(problem), &sensitivities);
  for (const std::string simd : {"scalar", "sse2x4"}) {
    auto packed = CreateCpuEvaluator(1, simd);
    packed->SetProblems({Pack(problem), reweighted});
    auto updated = CreateCpuEvaluator(2, simd);
    updated->SetProblems({Pack(problem), Pack(problem)});
    updated->SetProblem(1, reweighted);
    const std::vector<int> counts = {1, 1}, dims = {dim, dim};
    std::vector<double> a(2), b(2), na(2 * NormalTermCount(dim)), nb(na.size());
    std::vector<EvalStatus> s(2);
    packed->Evaluate(counts, coefficients, a, s);
    updated->Evaluate(counts, coefficients, b, s);
    EXPECT_EQ(a, b) << simd;
    EXPECT_NE(a[0], a[1]);
    packed->EvaluateNormalEquations({counts, dims, coefficients, sensitivities}, na, s);
    updated->EvaluateNormalEquations({counts, dims, coefficients, sensitivities}, nb, s);
    EXPECT_EQ(na, nb) << simd;
    EXPECT_THROW(updated->SetProblem(2, reweighted), Error);
    PackedProblem wrong = reweighted;
    wrong.postures.push_back(wrong.postures[0]);
    EXPECT_THROW(updated->SetProblem(0, wrong), Error);
  }
}

// One and several threads, and a batch of several points and problems, give the same bits.
TEST(NormalEquationsBatch, ThreadsAndBatchingChangeNoBit) {
  FitOptions options;
  const auto model = Paper3Dof("viscous");
  const Problem problem =
      LoadProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, "test");
  const ParameterMap map(*model, options.parameters, "test");
  const int dim = map.dim();
  std::mt19937_64 rng(11);
  const int points = 5;
  std::vector<double> u(points * dim);
  for (double& v : u) v = std::uniform_real_distribution<double>(0, 1)(rng);
  const std::vector<std::vector<double>> q = PostureCoordinates(problem);
  std::vector<double> coefficients, sensitivities;
  map.AppendCoefficients(u, q, &coefficients);
  map.AppendSensitivities(u, q, &sensitivities);
  const int terms = NormalTermCount(dim);
  // Two problems (the same one twice) with 5 and 0 points, then 0 and 5.
  auto run = [&](int threads, std::vector<int> counts) {
    auto evaluator = CreateCpuEvaluator(threads);
    evaluator->SetProblems({Pack(problem), Pack(problem)});
    const std::vector<int> dims = {dim, dim};
    std::vector<double> normal(static_cast<size_t>(points) * terms);
    std::vector<EvalStatus> status(points);
    evaluator->EvaluateNormalEquations({counts, dims, coefficients, sensitivities}, normal, status);
    return normal;
  };
  const std::vector<double> one = run(1, {points, 0});
  EXPECT_EQ(run(2, {points, 0}), one);
  EXPECT_EQ(run(2, {0, points}), one);
  for (int i = 0; i < points; ++i) {
    const std::vector<double> single = [&] {
      auto evaluator = CreateCpuEvaluator(1);
      evaluator->SetProblems({Pack(problem)});
      const int count = 1;
      std::vector<double> normal(terms);
      EvalStatus status;
      evaluator->EvaluateNormalEquations(
          {{&count, 1}, {&dim, 1},
           std::span<const double>(coefficients).subspan(i * coefficients.size() / points,
                                                         coefficients.size() / points),
           std::span<const double>(sensitivities).subspan(i * sensitivities.size() / points,
                                                          sensitivities.size() / points)},
          normal, {&status, 1});
      return normal;
    }();
    EXPECT_EQ(single, std::vector<double>(one.begin() + i * terms, one.begin() + (i + 1) * terms));
  }
}

// A size mismatch is an error that says what was expected.
TEST(NormalEquationsBatch, WrongSizesAreRefused) {
  FitOptions options;
  const auto model = Paper3Dof("viscous");
  const Problem problem =
      LoadProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, "test");
  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({Pack(problem)});
  const int one = 1, dim = 6;
  std::vector<double> coefficients(10), sensitivities(10 * dim - 1), normal(NormalTermCount(dim));
  EvalStatus status;
  try {
    evaluator->EvaluateNormalEquations({{&one, 1}, {&dim, 1}, coefficients, sensitivities}, normal,
                                       {&status, 1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 60 packed sensitivities, got 59"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace frfit
