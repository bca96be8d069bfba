// Regularisation (fit/regularization.h, docs/fit-config.md "Regularization"): the weight curve
// and its GCV choice against a dense computation written here — the augmented least-squares
// solution and the explicit n×n influence matrix of a linear-Gaussian problem —, its evidence
// against the marginal likelihood's closed form, and the `regularization:` block's translation
// into priors and its checks.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>

#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fit/regularization.h"
#include "frfit/model/model_yaml.h"

namespace frfit {
namespace {

// b = J x_true + e: n noisy observations of p parameters, the columns of J spanning singular
// values over three decades (an ill-posed problem that needs the penalty; more would leave the
// normal equations the code works from, cond(JᵀJ) = cond(J)², short of the dense QR's digits), x_true drawn with a
// spread `tau` around 0 (the centre), e of 1σ `sigma`.
struct LinearGaussian {
  int n, p;
  Eigen::MatrixXd j;
  Eigen::VectorXd b, mask;
  LinearGaussian(int n_, int p_, double tau, double sigma, unsigned seed) : n(n_), p(p_) {
    std::mt19937_64 rng(seed);
    // Box–Muller from the generator's raw bits: the same numbers under every standard library.
    auto normal = [&rng] {
      const double u1 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
      const double u2 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
      return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    };
    Eigen::MatrixXd g(n, p), h(p, p);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < p; ++k) g(i, k) = normal();
    for (int i = 0; i < p; ++i)
      for (int k = 0; k < p; ++k) h(i, k) = normal();
    const Eigen::HouseholderQR<Eigen::MatrixXd> qu(g), qv(h);
    const Eigen::MatrixXd u = qu.householderQ() * Eigen::MatrixXd::Identity(n, p);
    const Eigen::MatrixXd v = qv.householderQ() * Eigen::MatrixXd::Identity(p, p);
    Eigen::VectorXd s(p);
    for (int k = 0; k < p; ++k) s(k) = 30.0 * std::pow(10.0, -3.0 * k / (p - 1));
    j = u * s.asDiagonal() * v.transpose();
    Eigen::VectorXd x_true(p), e(n);
    for (int k = 0; k < p; ++k) x_true(k) = tau * normal();
    for (int i = 0; i < n; ++i) e(i) = sigma * normal();
    b = j * x_true + e;
    mask = Eigen::VectorXd::Ones(p);
  }

  // The code's input at x*: F* = ‖J x* − b‖², g = Jᵀ(J x* − b), A = JᵀJ.
  LinearizedCost At(const Eigen::VectorXd& x_star) const {
    LinearizedCost c;
    const Eigen::VectorXd r = j * x_star - b;
    const Eigen::MatrixXd a = j.transpose() * j;
    const Eigen::VectorXd g = j.transpose() * r;
    for (int k = 0; k < p; ++k) {
      c.x.push_back(x_star(k)), c.g.push_back(g(k)), c.mask.push_back(mask(k));
      for (int l = 0; l < p; ++l) c.a.push_back(a(k, l));
    }
    c.cost = r.squaredNorm();
    c.residuals = n;
    return c;
  }

  // Dense and independent of the code: minimise ‖Jx − b‖² + ½λ‖Lx‖² as the stacked least-squares
  // problem [J; √(λ/2) L] x = [b; 0] by QR, and GCV from the explicit n×n influence matrix
  // J (JᵀJ + ½λ L)⁻¹ Jᵀ.
  WeightCurvePoint Dense(double weight) const {
    Eigen::MatrixXd stacked(n + p, p);
    stacked << j, Eigen::MatrixXd(std::sqrt(weight / 2.0) * mask.asDiagonal());
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + p);
    rhs.head(n) = b;
    const Eigen::VectorXd x = stacked.colPivHouseholderQr().solve(rhs);
    const Eigen::MatrixXd influence =
        j * (j.transpose() * j + 0.5 * weight * Eigen::MatrixXd(mask.asDiagonal())).inverse() *
        j.transpose();
    const double residual = (j * x - b).squaredNorm(), trace = influence.trace();
    return {weight, std::sqrt(residual), mask.cwiseProduct(x).norm(),
            n * residual / ((n - trace) * (n - trace))};
  }

  // The GCV minimum over λ in [lo, hi]: a scan at 50 per decade, then golden section on log10 λ
  // between the scan's neighbours of its least value.
  double DenseMinimum(double lo, double hi) const {
    const int count = static_cast<int>(50 * std::log10(hi / lo));
    int best = 0;
    double best_gcv = INFINITY;
    for (int i = 0; i <= count; ++i) {
      const double v = Dense(lo * std::pow(hi / lo, static_cast<double>(i) / count)).gcv;
      if (v < best_gcv) best_gcv = v, best = i;
    }
    double a = std::log10(lo) + std::log10(hi / lo) * std::max(best - 1, 0) / count;
    double c = std::log10(lo) + std::log10(hi / lo) * std::min(best + 1, count) / count;
    const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
    for (int i = 0; i < 200; ++i) {
      const double x1 = c - ratio * (c - a), x2 = a + ratio * (c - a);
      if (Dense(std::pow(10.0, x1)).gcv < Dense(std::pow(10.0, x2)).gcv) c = x2;
      else a = x1;
    }
    return std::pow(10.0, 0.5 * (a + c));
  }
};

void ExpectCurveMatchesDense(const LinearGaussian& problem, const Eigen::VectorXd& x_star) {
  const WeightCurve curve = ScanWeights(problem.At(x_star), WeightRule::kGcv);
  ASSERT_EQ(curve.points.size(), static_cast<size_t>(kWeightsPerDecade * kWeightDecades + 1));
  int dense_best = 0;
  double dense_best_gcv = INFINITY;
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const WeightCurvePoint& got = curve.points[i];
    const WeightCurvePoint want = problem.Dense(got.weight);
    EXPECT_NEAR(got.residual_norm, want.residual_norm, 1e-9 * want.residual_norm) << i;
    EXPECT_NEAR(got.regularization_norm, want.regularization_norm,
                1e-7 * want.regularization_norm + 1e-12) << i;
    EXPECT_NEAR(got.gcv, want.gcv, 1e-9 * want.gcv) << i;
    if (want.gcv < dense_best_gcv) dense_best_gcv = want.gcv, dense_best = static_cast<int>(i);
  }
  EXPECT_EQ(curve.chosen, dense_best);
  // The grid's choice lies within one grid step of the continuous minimum, which lies inside it.
  const double continuous =
      problem.DenseMinimum(curve.points.front().weight, curve.points.back().weight);
  const double step = std::pow(10.0, 1.0 / kWeightsPerDecade);
  const double chosen = curve.points[curve.chosen].weight;
  EXPECT_LT(chosen / continuous, step);
  EXPECT_GT(chosen / continuous, 1.0 / step);
  EXPECT_GT(curve.chosen, 0);
  EXPECT_LT(curve.chosen, static_cast<int>(curve.points.size()) - 1);
}

TEST(RegularizationWeight, GcvChoiceMatchesTheDenseClosedFormAtTheMinimum) {
  const LinearGaussian problem(60, 6, 1.0, 0.05, 7);
  // Linearised at the unregularised least-squares solution (g = 0 there).
  const Eigen::VectorXd x_ls = problem.j.colPivHouseholderQr().solve(problem.b);
  ExpectCurveMatchesDense(problem, x_ls);
}

TEST(RegularizationWeight, GcvChoiceMatchesTheDenseClosedFormAwayFromTheMinimum) {
  // Linearised anywhere: the linear problem is the same, so are its curve and choice.
  const LinearGaussian problem(80, 5, 0.5, 0.02, 11);
  Eigen::VectorXd x_star(5);
  x_star << 0.3, -1.0, 2.0, 0.1, -0.7;
  ExpectCurveMatchesDense(problem, x_star);
  EXPECT_EQ(ScanWeights(problem.At(x_star), WeightRule::kGcv).chosen,
            ScanWeights(problem.At(Eigen::VectorXd::Zero(5)), WeightRule::kGcv).chosen);
}

TEST(RegularizationWeight, UnregularisedParametersStayOutOfThePenalty) {
  LinearGaussian problem(60, 6, 1.0, 0.05, 3);
  problem.mask(0) = 0.0;  // the best-seen parameter is left free
  ExpectCurveMatchesDense(problem, Eigen::VectorXd::Zero(6));
}

TEST(RegularizationWeight, GcvFindsTheBayesWeightOnAverage) {
  // With x_true ~ N(0, τ²) and noise σ the posterior mean — the best weight for any quadratic
  // error — is λ = 2σ²/τ² here (penalty ½λ‖x‖² against ‖Jx − b‖²); GCV estimates it from the data.
  const double tau = 0.3, sigma = 0.05;
  double log_sum = 0.0;
  const int draws = 40;
  for (int d = 0; d < draws; ++d) {
    const LinearGaussian problem(200, 8, tau, sigma, 100 + d);
    const WeightCurve curve = ScanWeights(problem.At(Eigen::VectorXd::Zero(8)), WeightRule::kGcv);
    log_sum += std::log10(curve.points[curve.chosen].weight);
  }
  EXPECT_NEAR(log_sum / draws, std::log10(2 * sigma * sigma / (tau * tau)), 0.3);
}

// The evidence against −2 log p(y | λ) written out densely: y = J x + e, e ~ N(0, I), the prior
// x ~ N(0, I/λ) on every parameter, so y ~ N(0, C), C = I + J Jᵀ/λ, and
//     −2 log p(y | λ) = n log 2π + log det C + yᵀ C⁻¹ y.
// The code sees it as a fit with noise weights, each residual of variance ½: ρ = (J x − y)/√2.
double DenseMinusTwoLogMarginal(const LinearGaussian& problem, double weight) {
  const Eigen::MatrixXd c = Eigen::MatrixXd::Identity(problem.n, problem.n) +
                            problem.j * problem.j.transpose() / weight;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(c);
  const double log_det = ldlt.vectorD().array().log().sum();
  return problem.n * std::log(2.0 * 3.141592653589793) + log_det + problem.b.dot(ldlt.solve(problem.b));
}

// `sigma`: the problem's noise 1σ, divided out as the noise weights do.
LinearizedCost HalfVarianceAt(const LinearGaussian& problem, const Eigen::VectorXd& x_star,
                              double sigma = 1.0) {
  LinearizedCost c = problem.At(x_star);  // ‖J x* − b‖², JᵀJ, Jᵀ(J x* − b): times ½/σ² each
  const double scale = 0.5 / (sigma * sigma);
  c.cost *= scale;
  for (double& v : c.a) v *= scale;
  for (double& v : c.g) v *= scale;
  return c;
}

TEST(RegularizationEvidence, IsMinusTwoLogMarginalLikelihoodUpToAConstant) {
  const LinearGaussian problem(40, 5, 0.7, 1.0, 21);  // unit noise, as the weights make it
  Eigen::VectorXd x_star(5);
  x_star << 0.2, -0.4, 1.0, 0.0, 0.3;  // linearised anywhere: the problem is linear
  const LinearizedCost cost = HalfVarianceAt(problem, x_star);
  const double offset = EvaluateWeight(cost, 1.0).evidence - DenseMinusTwoLogMarginal(problem, 1.0);
  for (double weight : {1e-3, 0.05, 0.5, 3.0, 40.0, 1e3, 1e5}) {
    const double got = EvaluateWeight(cost, weight).evidence;
    const double want = DenseMinusTwoLogMarginal(problem, weight);
    EXPECT_NEAR(got - want, offset, 1e-7 * std::abs(want)) << weight;
  }
  // E drops only the Gaussian's normalisation: the constant is −n log 2π.
  EXPECT_NEAR(offset, -problem.n * std::log(2.0 * 3.141592653589793), 1e-7 * problem.n);
}

TEST(RegularizationEvidence, ChoosesTheGridMinimumOfTheDenseMarginalLikelihood) {
  for (unsigned seed : {31u, 32u, 33u}) {
    const LinearGaussian problem(60, 6, 0.4, 1.0, seed);
    const WeightCurve curve =
        ScanWeights(HalfVarianceAt(problem, Eigen::VectorXd::Zero(6)), WeightRule::kEvidence);
    EXPECT_EQ(curve.rule, WeightRule::kEvidence);
    int best = 0;
    double least = INFINITY;
    for (size_t i = 0; i < curve.points.size(); ++i) {
      const double v = DenseMinusTwoLogMarginal(problem, curve.points[i].weight);
      if (v < least) least = v, best = static_cast<int>(i);
    }
    EXPECT_EQ(curve.chosen, best) << seed;
    EXPECT_GT(curve.chosen, 0) << seed;
    EXPECT_LT(curve.chosen, static_cast<int>(curve.points.size()) - 1) << seed;
    // GCV on the same curve keeps its own choice: the rule alone decides.
    const WeightCurve gcv =
        ScanWeights(HalfVarianceAt(problem, Eigen::VectorXd::Zero(6)), WeightRule::kGcv);
    int gcv_best = 0;
    for (size_t i = 0; i < gcv.points.size(); ++i)
      if (gcv.points[i].gcv < gcv.points[gcv_best].gcv) gcv_best = static_cast<int>(i);
    EXPECT_EQ(gcv.chosen, gcv_best) << seed;
  }
}

TEST(RegularizationEvidence, FindsTheBayesWeightOnAverage) {
  // The marginal likelihood estimates the prior's precision 1/τ² from the data (the noise
  // divided out, as the noise weights do: the weight is 1/τ² itself, no factor 2σ² as in the GCV
  // test above). The GCV test's problem: the data see 7 of the 8 directions beyond the prior.
  const double tau = 0.3, sigma = 0.05;
  double log_sum = 0.0;
  const int draws = 40;
  for (int d = 0; d < draws; ++d) {
    const LinearGaussian problem(200, 8, tau, sigma, 100 + d);
    const WeightCurve curve = ScanWeights(HalfVarianceAt(problem, Eigen::VectorXd::Zero(8), sigma),
                                          WeightRule::kEvidence);
    log_sum += std::log10(curve.points[curve.chosen].weight);
  }
  EXPECT_NEAR(log_sum / draws, std::log10(1.0 / (tau * tau)), 0.3);
}

TEST(RegularizationEvidence, AnUnregularisedParameterAddsAConstant) {
  // A parameter outside the penalty has a flat prior: its marginal is the limit of a wide
  // Gaussian prior N(0, s²), whose −2 log p grows by log s² + a constant in λ as s → ∞. Checked
  // against the dense marginal with s = 10³, differences taken between weights.
  LinearGaussian problem(50, 4, 0.5, 1.0, 41);
  problem.mask(1) = 0.0;
  const LinearizedCost cost = HalfVarianceAt(problem, Eigen::VectorXd::Zero(4));
  auto dense = [&problem](double weight) {
    Eigen::VectorXd prior_var(problem.p);
    for (int k = 0; k < problem.p; ++k) prior_var(k) = problem.mask(k) > 0 ? 1.0 / weight : 1e6;
    const Eigen::MatrixXd c = Eigen::MatrixXd::Identity(problem.n, problem.n) +
                              problem.j * prior_var.asDiagonal() * problem.j.transpose();
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(c);
    return ldlt.vectorD().array().log().sum() + problem.b.dot(ldlt.solve(problem.b));
  };
  const double base_got = EvaluateWeight(cost, 1.0).evidence, base_want = dense(1.0);
  for (double weight : {0.01, 0.3, 10.0, 300.0}) {
    EXPECT_NEAR(EvaluateWeight(cost, weight).evidence - base_got, dense(weight) - base_want, 1e-4)
        << weight;
  }
}

const std::string kModel = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/model.yaml";

FitOptions Parse(const std::string& yaml) {
  return ParseFitOptionsText("format: frfit-fit-1\n" + yaml, "fit.yaml");
}

TEST(RegularizationBlock, AGivenWeightIsAPriorOfScaleOverRootWeight) {
  const Model model = LoadModel(kModel);
  const FitOptions nominal =
      Parse("parameters: {free: [k_z1, k_z2, k_z3]}\nregularization: {toward: nominal, weight: 25}\n");
  const ParameterMap map(model, nominal.parameters, "fit.yaml");
  ASSERT_EQ(map.priors().size(), 3u);
  for (int j = 0; j < 3; ++j) {
    const double initial = model.parameters[map.free_indices()[j]].bounds.initial;
    EXPECT_EQ(map.priors()[j].mean, initial);
    EXPECT_NEAR(map.priors()[j].std, 0.2 * initial, 1e-12 * initial);  // 1/√25 relative
  }
  const FitOptions prior = Parse(
      "parameters: {free: [k_z1, k_z2, k_z3]}\nprior: {k_z2: {mean: 3.0e5, std: 6.0e4}}\n"
      "regularization: {toward: prior, weight: 4}\n");
  const ParameterMap toward_prior(model, prior.parameters, "fit.yaml");
  EXPECT_EQ(toward_prior.priors()[0].std, 0.0);  // no prior, not regularised
  EXPECT_EQ(toward_prior.priors()[1].mean, 3.0e5);
  EXPECT_NEAR(toward_prior.priors()[1].std, 3.0e4, 1e-6);
  // auto toward nominal: no priors until the fit chooses; the basis is the nominal.
  const FitOptions automatic = Parse("regularization: {weight: auto}\n");
  const ParameterMap chosen_later(model, automatic.parameters, "fit.yaml");
  EXPECT_TRUE(chosen_later.priors().empty());
  ASSERT_EQ(chosen_later.regularization_basis().size(), static_cast<size_t>(chosen_later.dim()));
}

void ExpectError(const std::string& yaml, const std::string& field, const std::string& expected) {
  try {
    Parse(yaml);
    FAIL() << "accepted: " << yaml;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(field), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(RegularizationBlock, ChooseByDefaultsToEvidenceForAutoAndKeepsGcvForAGivenWeight) {
  EXPECT_EQ(Parse("regularization: {weight: auto}\n").parameters.regularization.choose_by,
            WeightRule::kEvidence);
  EXPECT_EQ(Parse("regularization: {weight: auto, choose_by: gcv}\n").parameters.regularization.choose_by,
            WeightRule::kGcv);
  EXPECT_EQ(Parse("regularization: {weight: 25}\n").parameters.regularization.choose_by,
            WeightRule::kGcv);
  EXPECT_EQ(Parse("regularization: {weight: 25, choose_by: evidence}\n").parameters.regularization.choose_by,
            WeightRule::kEvidence);
  // The settings written back read as the same rule; a given weight's default stays out of them.
  for (const char* yaml : {"regularization: {weight: auto}\n", "regularization: {weight: auto, choose_by: gcv}\n",
                           "regularization: {weight: 25}\n", "regularization: {weight: 25, choose_by: evidence}\n"}) {
    const FitOptions options = Parse(yaml);
    const FitOptions again = ParseFitOptionsText(FitOptionsToYaml(options), "again.yaml");
    EXPECT_EQ(again.parameters.regularization.choose_by, options.parameters.regularization.choose_by) << yaml;
  }
  EXPECT_EQ(FitOptionsToYaml(Parse("regularization: {weight: 25}\n")).find("choose_by"), std::string::npos);
}

TEST(RegularizationBlock, BadInputIsOneLineNamingTheField) {
  ExpectError("regularization: {weight: -1}\n", "regularization.weight", "expected auto or a finite number > 0");
  ExpectError("regularization: {weight: lots}\n", "regularization.weight", "got 'lots'");
  ExpectError("regularization: {weight: 0}\n", "regularization.weight", "> 0");
  ExpectError("regularization: {weight: .inf}\n", "regularization.weight", "finite");
  ExpectError("regularization: {toward: nominal}\n", "regularization", "weight");
  ExpectError("regularization: {toward: mean, weight: 1}\n", "regularization.toward",
              "expected nominal or prior");
  ExpectError("regularization: {weight: 1, lambda: 2}\n", "lambda", "");
  ExpectError("regularization: {weight: auto, choose_by: aic}\n", "regularization.choose_by",
              "expected evidence or gcv, got 'aic'");
  ExpectError("regularization: {toward: prior, weight: auto}\n", "regularization.toward",
              "expected nominal");
  ExpectError("prior: {k_z1: {mean: 1.0e6, std_relative: 0.2}}\nregularization: {weight: 2}\n",
              "regularization.toward", "expected prior");
  ExpectError("cost: {weights: {mode: uniform}}\nregularization: {weight: 2}\n", "regularization",
              "expected cost.weights.mode noise");
}

}  // namespace
}  // namespace frfit
