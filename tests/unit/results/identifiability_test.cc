// The identifiability report (fit/identifiability.h) against what it claims:
//   - its singular values, residual variance, sandwich covariance and correlations against the
//     same quantities computed from an independent finite-difference Jacobian (Eigen's dense
//     solve, std::log/arg, Eigen's SVD of the Jacobian itself, tests/unit/reference_residuals.h);
//   - two parameters that only enter as a sum come out perfectly anti-correlated, with a weak
//     direction naming both;
//   - bound flags at and near the bounds;
//   - its 1σ against the scatter of fits to many noisy copies of the same FRFs (Monte Carlo).
#include "frfit/results/identifiability.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/model_yaml.h"
#include "reference_residuals.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

// A copy of `set` with relative complex Gaussian noise: H·(1 + level·(a + ib)/√2), a, b ~ N(0, 1).
FrfSet Noisy(FrfSet set, double level, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (auto& h : set.H) {
    const double a = normal(rng), b = normal(rng);
    h *= std::complex<double>(1.0 + level * a / std::sqrt(2.0), level * b / std::sqrt(2.0));
  }
  return set;
}

Problem NoisyProblem(std::shared_ptr<const Model> model, const std::vector<std::string>& files,
                     const FitOptions& options, double level, std::uint64_t seed) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (size_t k = 0; k < files.size(); ++k) {
    const FrfSet measured = Noisy(ReadFrfSet(files[k]), level, seed + 101 * k);
    problem.postures.push_back(
        PreparePosture(Linearize(*model, measured.posture), measured, options.cost, files[k], 1.0));
  }
  return problem;
}

// With the paper's peak weights (emphasis: σ from the residuals' scatter through the sandwich) and
// with noise weights (inverse variances: σ² = ½(JᵀWJ)⁻¹, absolute).
class IdentifiabilityWeights : public ::testing::TestWithParam<WeightMode> {};

TEST_P(IdentifiabilityWeights, MatchesAnIndependentFiniteDifferenceJacobian) {
  // Stiffness laws (linear-scaled coefficients) on three postures, 2 % noise, at the truth.
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof_law/model.yaml"));
  FitOptions options = LoadFitOptions(kData + "paper_3dof_law/fit.yaml");
  options.cost.weights.mode = GetParam();
  options.cost.weights.peak_gain = 50.0;
  const bool noise = GetParam() == WeightMode::kNoise;
  const Problem problem = NoisyProblem(model,
                                       {kData + "paper_3dof_law/frf_milling_inertance.h5",
                                        kData + "paper_3dof_law/frf_reach_inertance.h5",
                                        kData + "paper_3dof_law/frf_folded_inertance.h5"},
                                       options, 0.02, 5);
  const ParameterMap map(*model, options.parameters, "test");
  const std::vector<double> u =
      map.ToU(LoadParameters(kData + "paper_3dof_law/params_truth.yaml", *model));
  const Identifiability id =
      AssessIdentifiability(Pack(problem), map, PostureCoordinates(problem), u);

  // The reference: J in u by central differences, rescaled to relative parameter changes.
  const int p = map.dim();
  const test::ReferenceResiduals base = test::ComputeReferenceResiduals(problem, map, u);
  const std::vector<std::vector<double>> jac = test::ReferenceJacobian(problem, map, u, 1e-6);
  const int m = static_cast<int>(base.r.size());
  ASSERT_EQ(id.residuals, m);
  const std::vector<double> theta = map.Physical(u);
  Eigen::MatrixXd j_rel(m, p);
  double unweighted = 0.0;
  for (int i = 0; i < m; ++i) unweighted += std::pow(base.r[i] / base.scale[i], 2);
  for (int c = 0; c < p; ++c) {
    const ParameterBounds& b = map.space().bounds(c);
    const double value = theta[map.free_indices()[c]];
    // dθ/du: θ·ln(hi/lo) on a log scale, hi − lo on a linear one; ε = θ/θ0 − 1.
    const double dtheta_du =
        b.scale == ParameterScale::kLog ? value * std::log(b.upper / b.lower) : b.upper - b.lower;
    for (int i = 0; i < m; ++i) j_rel(i, c) = jac[c][i] * std::abs(value) / dtheta_du;
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(j_rel);
  ASSERT_EQ(static_cast<int>(id.singular_values.size()), p);
  for (int k = 0; k < p; ++k)
    EXPECT_NEAR(id.singular_values[k], svd.singularValues()(k),
                1e-4 * svd.singularValues()(k) + 1e-7 * svd.singularValues()(0))
        << "singular value " << k;
  EXPECT_NEAR(id.condition_number, svd.singularValues()(0) / svd.singularValues()(p - 1),
              1e-3 * id.condition_number);
  const double sigma2 = noise ? 0.5 : unweighted / (m - p);
  EXPECT_NEAR(id.sigma2, sigma2, 1e-9 * sigma2);
  EXPECT_EQ(id.sigma_basis, noise ? SigmaBasis::kNoiseModel : SigmaBasis::kResidualScatter);

  // Sandwich: σ² A⁻¹ B A⁻¹ with A = J_relᵀJ_rel (weighted rows) and B = Σ W_i J_rel,iᵀ J_rel,i;
  // with noise weights B = A: ½A⁻¹.
  Eigen::VectorXd w(m);
  for (int i = 0; i < m; ++i) w(i) = base.scale[i] * base.scale[i];
  const Eigen::MatrixXd a = j_rel.transpose() * j_rel;
  const Eigen::MatrixXd b = noise ? a : Eigen::MatrixXd(j_rel.transpose() * w.asDiagonal() * j_rel);
  const Eigen::MatrixXd a_inv = a.inverse();
  const Eigen::MatrixXd cov = sigma2 * a_inv * b * a_inv;
  for (int c = 0; c < p; ++c) {
    const ParameterIdentifiability& q = id.per_parameter[c];
    EXPECT_EQ(q.name, map.space().bounds(c).name);
    EXPECT_NEAR(q.std_relative, std::sqrt(cov(c, c)), 1e-3 * std::sqrt(cov(c, c))) << q.name;
    EXPECT_NEAR(q.std_absolute, q.std_relative * std::abs(q.value), 1e-12 * q.std_absolute)
        << q.name;
    for (int k = 0; k < p; ++k) {
      EXPECT_NEAR(id.correlation[c * p + k], cov(c, k) / std::sqrt(cov(c, c) * cov(k, k)), 1e-3)
          << q.name << " / " << map.space().bounds(k).name;
      EXPECT_EQ(id.correlation[c * p + k], id.correlation[k * p + c]);  // to the last bit
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PeaksAndNoise, IdentifiabilityWeights,
                         ::testing::Values(WeightMode::kPeaks, WeightMode::kNoise),
                         [](const ::testing::TestParamInfo<WeightMode>& info) {
                           return ToString(info.param);
                         });

TEST(Identifiability, ParametersThatOnlyEnterAsASumArePerfectlyAntiCorrelated) {
  // k_z1 = k_z1_0 + k_z1_1: two constant terms of one stiffness law.
  std::string text = test::ReadText(kData + "paper_3dof/model.yaml");
  const std::string z1 = "stiffness: {initial: 1.0e6, min: 1.0e5, max: 1.0e7}, damping";
  ASSERT_NE(text.find(z1), std::string::npos);
  text.replace(text.find(z1), z1.size(),
               "stiffness_law: [{basis: \"1\", initial: 1.2e6, min: 1.0e5, max: 1.0e7}, "
               "{basis: \"1\", initial: 0.8e6, min: 1.0e5, max: 1.0e7}], damping");
  const auto model = std::make_shared<const Model>(ParseModelText(text, "sum model"));
  FitOptions options;
  const Problem problem =
      NoisyProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, 0.02, 3);
  const ParameterMap map(*model, options.parameters, "test");
  const Identifiability id =
      AssessIdentifiability(Pack(problem), map, PostureCoordinates(problem), map.InitialU());
  const int a = model->FindParameter("k_z1_0"), b = model->FindParameter("k_z1_1");
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  const int p = map.dim();
  EXPECT_LT(id.correlation[a * p + b], -0.99999);
  EXPECT_GT(id.condition_number, 1e6);
  EXPECT_GT(id.per_parameter[a].std_relative, 100.0)
      << "a parameter the data cannot see has a huge σ";
  ASSERT_FALSE(id.weak_directions.empty());
  const WeakDirection& weakest = id.weak_directions.front();
  EXPECT_LT(weakest.singular_value, 1e-6 * id.singular_values.front());
  ASSERT_EQ(weakest.components.size(), 2u) << weakest.description;
  EXPECT_NE(weakest.description.find("k_z1_0"), std::string::npos) << weakest.description;
  EXPECT_NE(weakest.description.find("k_z1_1"), std::string::npos) << weakest.description;
  EXPECT_LT(weakest.components[0].second * weakest.components[1].second, 0.0)
      << "they move oppositely";
  // Every other pair is far from perfectly correlated.
  for (int j = 0; j < p; ++j)
    for (int k = j + 1; k < p; ++k)
      if (!(j == a && k == b))
        EXPECT_LT(std::abs(id.correlation[j * p + k]), 0.999) << j << ", " << k;
}

TEST(Identifiability, FlagsValuesAtOrWithinOnePercentOfABound) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof/model.yaml"));
  FitOptions options;
  const Problem problem =
      LoadProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, "test");
  const ParameterMap map(*model, options.parameters, "test");
  ASSERT_EQ(map.dim(), 6);
  // On the log scale of [1e5, 1e7] (k) and [10, 1e4] (d): u of a value r times the lower bound.
  auto u_of = [](double ratio, double span) { return std::log(ratio) / std::log(span); };
  const std::vector<double> u = {
      0.0, 1.0, 0.5, u_of(1.005, 100.0), u_of(1.02, 1000.0), 1.0 - u_of(1.005, 1000.0)};
  const Identifiability id =
      AssessIdentifiability(Pack(problem), map, PostureCoordinates(problem), u);
  const BoundFlag expected[] = {BoundFlag::kMin, BoundFlag::kMax,  BoundFlag::kNone,
                                BoundFlag::kMin, BoundFlag::kNone, BoundFlag::kMax};
  for (int j = 0; j < 6; ++j)
    EXPECT_EQ(id.per_parameter[j].at_bound, expected[j]) << id.per_parameter[j].name;
}

// The reported 1σ is what repeated measurements would scatter by: fit 24 noisy copies of the
// 3-joint FRFs and compare each parameter's scatter around the truth with the mean reported 1σ.
TEST(Identifiability, ReportedSigmaMatchesTheScatterOfNoisyFits) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof/model.yaml"));
  const FitOptions options = LoadFitOptions(kData + "paper_3dof/fit.yaml");
  const ParameterMap map(*model, options.parameters, "test");
  const std::vector<double> truth = LoadParameters(kData + "paper_3dof/params_table1.yaml", *model);
  const int p = map.dim(), trials = 24;
  std::vector<double> sum_sq(p, 0.0), sum_sigma(p, 0.0);
  auto evaluator = CreateCpuEvaluator(0);
  for (int t = 0; t < trials; ++t) {
    const Problem problem = NoisyProblem(model, {kData + "paper_3dof/frf_milling_inertance.h5"},
                                         options, 0.02, 1000 + t);
    const PackedProblem packed = Pack(problem);
    evaluator->SetProblems({packed});
    FitRun run(map, options, 1);
    DriveFits({MakeFitJob(&run, map, problem)}, evaluator.get(), {});
    const Identifiability id =
        AssessIdentifiability(packed, map, PostureCoordinates(problem), run.best_u());
    const std::vector<double> fitted = map.Physical(run.best_u());
    for (int j = 0; j < p; ++j) {
      const int index = map.free_indices()[j];
      sum_sq[j] += std::pow(fitted[index] / truth[index] - 1.0, 2);
      sum_sigma[j] += id.per_parameter[j].std_relative;
    }
  }
  for (int j = 0; j < p; ++j) {
    const double scatter = std::sqrt(sum_sq[j] / trials), reported = sum_sigma[j] / trials;
    std::printf("%-5s scatter %.3e, reported 1σ %.3e, ratio %.2f\n",
                map.space().bounds(j).name.c_str(), scatter, reported, scatter / reported);
    // 24 samples estimate a standard deviation to about ±15 % (1σ): allow a factor 1.6.
    EXPECT_GT(scatter / reported, 1.0 / 1.6) << map.space().bounds(j).name;
    EXPECT_LT(scatter / reported, 1.6) << map.space().bounds(j).name;
  }
}

}  // namespace
}  // namespace frfit
