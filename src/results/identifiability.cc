#include "frfit/results/identifiability.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

// Weak directions: singular value below this fraction of the largest, or 1σ above this.
constexpr double kWeakSingularValue = 1e-3;
constexpr double kWeakStdRelative = 0.1;
constexpr double kComponentShown = 0.3;

std::string Describe(const std::vector<std::pair<std::string, double>>& components) {
  std::string text;
  for (const auto& [name, c] : components) {
    char number[32];
    std::snprintf(number, sizeof number, "%.2f", std::abs(c));
    if (text.empty())
      // From a std::string: "-" + std::string&& trips GCC 12's -Wrestrict false positive (bug 105329).
      text = std::string(c < 0 ? "-" : "") + number + " " + name;
    else
      text += (c < 0 ? " - " : " + ") + std::string(number) + " " + name;
  }
  return text;
}

// The widened covariance (units of σ² = 1/2, as `noise`, the noise model's (JᵀWJ)⁻¹): the
// sandwich (JᵀWJ)⁻¹·2M·(JᵀWJ)⁻¹ on the directions the data see, each variance then raised to at
// least χ² times its noise-model value, correlations the sandwich's. *widening: the largest ratio
// of a widened σ to its noise-model value.
Eigen::MatrixXd Widened(const Eigen::MatrixXd& noise, const Eigen::MatrixXd& meat,
                        const Eigen::MatrixXd& v, const std::vector<int>& seen,
                        const Eigen::VectorXd& lambda, double chi2, double* widening) {
  const Eigen::Index p = noise.rows();
  Eigen::MatrixXd vs(p, seen.size());
  Eigen::VectorXd inverse(seen.size());
  for (size_t c = 0; c < seen.size(); ++c)
    vs.col(c) = v.col(seen[c]), inverse(c) = 1.0 / lambda(seen[c]);
  const Eigen::MatrixXd pseudo = vs * inverse.asDiagonal() * vs.transpose();
  Eigen::MatrixXd out = pseudo * (2.0 * meat) * pseudo + (noise - pseudo);  // unseen part kept
  *widening = 1.0;
  for (Eigen::Index j = 0; j < p; ++j) {
    const double target = std::max(chi2 * noise(j, j), out(j, j));
    const double stretch = out(j, j) > 0.0 ? std::sqrt(target / out(j, j)) : 1.0;
    out.row(j) *= stretch;
    out.col(j) *= stretch;
    *widening = std::max(*widening, std::sqrt(target / noise(j, j)));
  }
  return out;
}

// Σ_b G_b G_bᵀ (IdentifiabilityInputs::block_meat) from each line's normal-equation terms,
// computed here line by line with the shared per-line code (kernels/line_normal.h).
std::vector<double> BlockMeat(const PackedProblem& problem, int dim,
                              const std::vector<double>& coefficients,
                              const std::vector<double>& sensitivities) {
  const int n = problem.n, stride = problem.coefficient_stride();
  Eigen::MatrixXd meat = Eigen::MatrixXd::Zero(dim, dim);
  std::vector<double> terms(kernels::NormalTermCount(dim));
  for (int q = 0; q < problem.num_postures(); ++q) {
    const PackedPosture& posture = problem.postures[q];
    const kernels::PostureArrays arrays{n,
                                        posture.mass.data(),
                                        posture.gravity.data(),
                                        posture.basis.data(),
                                        posture.response_data(),
                                        problem.masses,
                                        posture.mass_parts.data(),
                                        posture.gravity_parts.data(),
                                        posture.num_parts(),
                                        posture.part_matrices.data(),
                                        posture.part_layout.data()};
    Eigen::VectorXd block = Eigen::VectorXd::Zero(dim);
    for (int l = 0; l < posture.num_lines(); ++l) {
      const kernels::LineTarget line{posture.omega_rad_s[l], posture.weight.data() + 9 * l,
                                     posture.target.data() + 18 * l, problem.loss,
                                     problem.loss_scale};
      unsigned status = 0;
      kernels::LineNormalTerms(arrays, coefficients.data() + static_cast<size_t>(q) * stride,
                               sensitivities.data() + static_cast<size_t>(q) * stride * dim, dim,
                               line, posture.fit_order, posture.CostKind(problem.cost_kind),
                               problem.phase_mode,
                               terms.data(), 1, &status);
      if (status == 0)
        for (int j = 0; j < dim; ++j) block(j) += posture.posture_weight * terms[1 + j];
      if ((l + 1) % kSandwichBlockLines == 0 || l + 1 == posture.num_lines()) {
        meat += block * block.transpose();
        block.setZero();
      }
    }
  }
  return std::vector<double>(meat.data(), meat.data() + meat.size());
}

// The data's information in units of 1/σ² (the inverse of `covariance`): V·diag(λ)·Vᵀ with the
// floored eigenvalues when the covariance is (JᵀWJ)⁻¹ itself — exact, where inverting the
// covariance back would lose its well-determined directions next to a floored 1/floor — else the
// inverse of the (sandwich or widened) covariance.
Eigen::MatrixXd DataInformation(const Eigen::MatrixXd& covariance, bool plain,
                                const Eigen::MatrixXd& v, const Eigen::VectorXd& lambda,
                                double floor) {
  if (plain) return v * lambda.cwiseMax(floor).asDiagonal() * v.transpose();
  const Eigen::MatrixXd symmetric = 0.5 * (covariance + covariance.transpose());
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(symmetric);
  const Eigen::VectorXd variance = eigen.eigenvalues().cwiseMax(std::numeric_limits<double>::min());
  return eigen.eigenvectors() * variance.cwiseInverse().asDiagonal() *
         eigen.eigenvectors().transpose();
}

// The posterior covariance in units of σ²: (information + σ²·Σ_prior⁻¹)⁻¹, the prior's precision
// θ_j²/σ_prior,j² in the relative units — (JᵀWJ/σ² + Σ_prior⁻¹)⁻¹ with the data's widenings.
Eigen::MatrixXd Posterior(Eigen::MatrixXd information, double sigma2,
                          const std::vector<Prior>& priors, const std::vector<double>& scale) {
  for (size_t j = 0; j < priors.size(); ++j)
    if (priors[j].std > 0.0) {
      const double relative = priors[j].std / scale[j];
      information(j, j) += sigma2 / (relative * relative);
    }
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(information.rows(), information.cols());
  return information.ldlt().solve(identity);
}

}  // namespace

double ReducedChi2Limit(int degrees_of_freedom) {
  return 1.0 + std::max(3.0 * std::sqrt(2.0 / std::max(1, degrees_of_freedom)), kChi2Margin);
}

double ReducedChi2Floor(int degrees_of_freedom) {
  const double z = -3.0902323061678132;  // the standard normal's 0.1 % quantile
  const double c = 2.0 / (9.0 * std::max(1, degrees_of_freedom));
  const double root = 1.0 - c + z * std::sqrt(c);
  return root > 0.0 ? root * root * root : 0.0;
}

constexpr std::pair<SigmaBasis, const char*> kSigmaBases[] = {
    {SigmaBasis::kNoiseModel, "noise_model"},
    {SigmaBasis::kNoiseModelWidened, "noise_model_widened"},
    {SigmaBasis::kNoiseModelScaled, "noise_model_scaled"},
    {SigmaBasis::kResidualScatter, "residual_scatter"}};
constexpr std::pair<BoundFlag, const char*> kBoundFlags[] = {
    {BoundFlag::kNone, ""}, {BoundFlag::kMin, "min"}, {BoundFlag::kMax, "max"}};

std::string ToString(SigmaBasis basis) { return EnumName(kSigmaBases, basis); }

std::string SigmaNote(const Identifiability& id) {
  if (id.sigma_basis != SigmaBasis::kNoiseModelScaled) return "";
  char text[256];
  std::snprintf(text, sizeof text,
                "the fit's 1 sigma are scaled by sqrt(reduced chi2) = %.3g: its noise model "
                "overestimates the noise (reduced chi2 %.3g, docs/identifiability.md)",
                id.widening, id.reduced_chi2);
  return text;
}

std::string AtBoundNote(const Identifiability& id) {
  std::string names;
  for (const ParameterIdentifiability& q : id.per_parameter)
    if (q.at_bound != BoundFlag::kNone)
      names += (names.empty() ? "" : ", ") + q.name + " (" + ToString(q.at_bound) + ")";
  if (names.empty()) return "";
  return "the fit left " + names +
         " at a bound: their linearised 1 sigma assumes they may move both ways, but they can "
         "only move away from the bound; a 1 sigma that rests on them is not meaningful";
}

std::string ToString(BoundFlag flag) { return EnumName(kBoundFlags, flag); }

BoundFlag BoundFlagAt(const ParameterBounds& b, double value) {
  const bool log_scale = b.scale == ParameterScale::kLog;
  const double near_min = log_scale ? b.lower * 1.01 : b.lower + 0.01 * (b.upper - b.lower);
  const double near_max = log_scale ? b.upper / 1.01 : b.upper - 0.01 * (b.upper - b.lower);
  return value <= near_min   ? BoundFlag::kMin
         : value >= near_max ? BoundFlag::kMax
                             : BoundFlag::kNone;
}

Identifiability AssessIdentifiability(const ParameterMap& map, std::span<const double> u,
                                      const IdentifiabilityInputs& in) {
  const int p = map.dim();
  const size_t terms = kernels::NormalTermCount(p);
  if (static_cast<int>(u.size()) != p || in.normal.size() != terms ||
      in.normal_squared_weights.size() != terms)
    throw Error(
        "", "identifiability",
        "expected " + std::to_string(p) + " parameters and " + std::to_string(terms) + " terms");
  Identifiability id;
  id.residuals = in.residuals;
  id.parameters = p;
  id.cost = in.normal[0];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  id.sigma2 = in.residuals > p ? in.unweighted_cost / (in.residuals - p) : nan;
  id.reduced_chi2 = nan;
  if (in.noise_weighted) {
    const int dof = in.residuals - p;
    id.reduced_chi2 = std::isfinite(in.reduced_chi2) ? in.reduced_chi2
                      : dof > 0                       ? 2.0 * in.normal[0] / dof
                                                      : nan;
    id.sigma_basis = SigmaBasis::kNoiseModel;
    id.sigma2 = 0.5;
    if (dof > 0 && id.reduced_chi2 > ReducedChi2Limit(dof)) {
      id.sigma_basis = SigmaBasis::kNoiseModelWidened;
      id.widening = std::sqrt(id.reduced_chi2);
      // Without the blocks' meat the widening is χ² alone.
      if (in.block_meat.empty()) id.sigma2 = 0.5 * id.reduced_chi2;
    } else if (std::isfinite(in.fixed_scaling) ? in.fixed_scaling < 1.0
                                                : dof > 0 && id.reduced_chi2 < ReducedChi2Floor(dof)) {
      // A residual this far below the noise (exact data, or a noise estimate from a few noisy
      // hits) says the noise model's σ overstate the uncertainty: σ are scaled to the residual's
      // own scatter, as the residual_scatter basis does without a noise model.
      id.sigma_basis = SigmaBasis::kNoiseModelScaled;
      id.widening = std::isfinite(in.fixed_scaling) ? in.fixed_scaling : std::sqrt(id.reduced_chi2);
      id.sigma2 = 0.5 * id.widening * id.widening;
    }
  }

  // Relative scaling: ∂r/∂ε_j = ∂r/∂u_j · s_j / (dθ_j/du_j).
  const std::vector<double> physical = map.Physical(u);
  const std::vector<double> slopes = map.Slopes(u);
  std::vector<double> value(p), scale(p), factor(p);
  for (int j = 0; j < p; ++j) {
    const ParameterBounds& b = map.space().bounds(j);
    value[j] = physical[map.free_indices()[j]];
    scale[j] = value[j] != 0.0 ? std::abs(value[j]) : b.upper - b.lower;
    factor[j] = scale[j] / slopes[j];
  }
  auto scaled = [&](const std::vector<double>& normal) {
    Eigen::MatrixXd m(p, p);
    for (int j = 0; j < p; ++j)
      for (int k = j; k < p; ++k)
        m(j, k) = m(k, j) = normal[kernels::NormalTermIndex(p, j, k)] * factor[j] * factor[k];
    return m;
  };
  // Inverse-variance weights need no sandwich: JᵀW²J is replaced by JᵀWJ, so that the
  // expression below is (JᵀWJ)⁻¹.
  const Eigen::MatrixXd a = scaled(in.normal),
                        b2 = in.noise_weighted ? a : scaled(in.normal_squared_weights);
  auto scaled_meat = [&] {
    Eigen::MatrixXd m(p, p);
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < p; ++k) m(j, k) = in.block_meat[j * p + k] * factor[j] * factor[k];
    return m;
  };

  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(a);
  Eigen::VectorXd lambda = eigen.eigenvalues().cwiseMax(0.0);  // ascending
  const Eigen::MatrixXd& v = eigen.eigenvectors();
  const double largest = lambda(p - 1);
  for (int i = p - 1; i >= 0; --i) id.singular_values.push_back(std::sqrt(lambda(i)));
  id.condition_number = id.singular_values.back() > 0.0
                            ? id.singular_values.front() / id.singular_values.back()
                            : std::numeric_limits<double>::infinity();
  // The sandwich on the directions the data see, σ²(JᵀWJ)⁻¹ with a floored eigenvalue on the
  // others (in units of σ²).
  const double floor = std::max(kNullEigenvalue * largest, std::numeric_limits<double>::min());
  std::vector<int> seen, unseen;
  for (int i = 0; i < p; ++i) (lambda(i) > floor ? seen : unseen).push_back(i);
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(p, p);
  if (!seen.empty()) {
    Eigen::MatrixXd vs(p, seen.size());
    Eigen::VectorXd inverse(seen.size());
    for (size_t c = 0; c < seen.size(); ++c)
      vs.col(c) = v.col(seen[c]), inverse(c) = 1.0 / lambda(seen[c]);
    const Eigen::MatrixXd pseudo = vs * inverse.asDiagonal() * vs.transpose();
    covariance += pseudo * b2 * pseudo;
  }
  for (int i : unseen) covariance += v.col(i) * v.col(i).transpose() / floor;
  const bool widened_by_meat =
      id.sigma_basis == SigmaBasis::kNoiseModelWidened && !in.block_meat.empty() && !seen.empty();
  if (widened_by_meat)
    covariance = Widened(covariance, scaled_meat(), v, seen, lambda, id.reduced_chi2, &id.widening);
  std::vector<double> direction_variance(p);  // of each eigenvector, in units of σ²
  for (int i = 0; i < p; ++i) direction_variance[i] = v.col(i).dot(covariance * v.col(i));
  const std::vector<Prior>& priors = map.priors();
  id.has_prior = !priors.empty();
  if (id.has_prior) {
    const bool plain = in.noise_weighted && !widened_by_meat;
    covariance = Posterior(DataInformation(covariance, plain, v, lambda, floor), id.sigma2, priors,
                           scale);
  }

  for (int j = 0; j < p; ++j) {
    const ParameterBounds& b = map.space().bounds(j);
    ParameterIdentifiability q;
    q.name = b.name;
    q.value = value[j];
    q.std_relative = std::sqrt(id.sigma2 * covariance(j, j));
    q.std_absolute = q.std_relative * scale[j];
    q.at_bound = BoundFlagAt(b, value[j]);
    if (id.has_prior && priors[j].std > 0.0) {
      q.prior_std_absolute = priors[j].std;
      q.prior_std_relative = priors[j].std / scale[j];
      q.moved_by_data = q.std_absolute < kMovedByData * q.prior_std_absolute;
      q.prior_mean = priors[j].mean;
      q.std_ratio = q.std_absolute / q.prior_std_absolute;
      q.shift_in_prior_std = (value[j] - priors[j].mean) / priors[j].std;
    }
    id.per_parameter.push_back(q);
  }
  // A tied parameter (an equality constraint) is an affine function of the free ones: its
  // variance is cᵀΣc over their absolute covariance.
  for (const ParameterMap::Tied& t : map.tied()) {
    const Bounds& b = map.bounds()[t.index];
    ParameterIdentifiability q;
    q.name = map.model().parameters[t.index].name;
    q.value = physical[t.index];
    double variance = 0.0;
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < p; ++k)
        variance += t.coefficient[j] * scale[j] * covariance(j, k) * scale[k] * t.coefficient[k];
    q.std_absolute = std::sqrt(id.sigma2 * variance);
    q.std_relative = q.value != 0.0 ? q.std_absolute / std::abs(q.value) : q.std_absolute;
    q.at_bound = BoundFlagAt(ParameterBounds{q.name, b.min, b.max}, q.value);
    id.tied.push_back(q);
    id.tied_by.push_back(t.by);
  }
  // Symmetric to the last bit: the products above leave the covariance's two triangles a few
  // ulps apart, and a user (or an exported CSV) reading ρ_jk and ρ_kj expects one number.
  id.correlation.assign(static_cast<size_t>(p) * p, 0.0);
  for (int j = 0; j < p; ++j)
    for (int k = 0; k <= j; ++k)
      id.correlation[j * p + k] = id.correlation[k * p + j] =
          0.5 * (covariance(j, k) + covariance(k, j)) /
          std::sqrt(covariance(j, j) * covariance(k, k));

  for (int i = 0; i < p; ++i) {  // ascending: weakest first
    WeakDirection w;
    w.singular_value = std::sqrt(lambda(i));
    w.std_relative = std::sqrt(id.sigma2 * direction_variance[i]);
    if (!(w.singular_value < kWeakSingularValue * id.singular_values.front()) &&
        !(w.std_relative > kWeakStdRelative))
      continue;
    for (int j = 0; j < p; ++j)
      if (std::abs(v(j, i)) >= kComponentShown)
        w.components.push_back({id.per_parameter[j].name, v(j, i)});
    std::sort(w.components.begin(), w.components.end(),
              [](const auto& x, const auto& y) { return std::abs(x.second) > std::abs(y.second); });
    // An eigenvector's sign is arbitrary: show the largest component positive.
    const double sign = !w.components.empty() && w.components.front().second < 0 ? -1.0 : 1.0;
    if (sign < 0)
      for (auto& c : w.components) c.second = -c.second;
    for (int j = 0; j < p; ++j) w.vector.push_back(sign * v(j, i));
    w.description = Describe(w.components);
    id.weak_directions.push_back(std::move(w));
  }
  return id;
}

IdentifiabilityInputs EvaluateIdentifiabilityInputs(
    const PackedProblem& problem, const ParameterMap& map,
    const std::vector<std::vector<double>>& posture_q, std::span<const double> u) {
  std::vector<double> coefficients, sensitivities;
  map.AppendCoefficients(u, posture_q, &coefficients);
  map.AppendSensitivities(u, posture_q, &sensitivities);
  // The problem three times: as fitted, with its weights (and posture weights) squared, and with
  // every non-zero weight 1 (the normalised-complex cost's 1/Σw|H|² is then dropped too).
  PackedProblem squared = problem, unit = problem;
  for (PackedPosture& q : squared.postures) {
    q.posture_weight *= q.posture_weight;
    for (double& w : q.weight) w *= w;
  }
  for (PackedPosture& q : unit.postures) {
    q.posture_weight = 1.0;
    for (double& w : q.weight) w = w != 0.0 ? 1.0 : 0.0;
  }
  auto evaluator = CreateCpuEvaluator(0);
  evaluator->SetProblems({problem, squared, unit});
  const int dim = map.dim(), terms = NormalTermCount(dim);
  const std::vector<int> points = {1, 1, 1}, dims = {dim, dim, dim};
  std::vector<double> all_coefficients, all_sensitivities;
  for (int k = 0; k < 3; ++k) {
    all_coefficients.insert(all_coefficients.end(), coefficients.begin(), coefficients.end());
    all_sensitivities.insert(all_sensitivities.end(), sensitivities.begin(), sensitivities.end());
  }
  std::vector<double> normal(3 * static_cast<size_t>(terms));
  std::vector<EvalStatus> status(3);
  evaluator->EvaluateNormalEquations({points, dims, all_coefficients, all_sensitivities}, normal,
                                     status);
  if (status[0] != EvalStatus::kOk)
    throw Error("", "identifiability", "the fitted point cannot be evaluated (singular system)");
  IdentifiabilityInputs in;
  in.normal.assign(normal.begin(), normal.begin() + terms);
  in.normal_squared_weights.assign(normal.begin() + terms, normal.begin() + 2 * terms);
  in.unweighted_cost = normal[2 * static_cast<size_t>(terms)];
  in.residuals = CountResiduals(problem);
  in.noise_weighted = problem.noise_weighted;
  if (in.noise_weighted) in.block_meat = BlockMeat(problem, dim, coefficients, sensitivities);
  return in;
}

Identifiability AssessIdentifiability(const PackedProblem& problem, const ParameterMap& map,
                                      const std::vector<std::vector<double>>& posture_q,
                                      std::span<const double> u) {
  return AssessIdentifiability(map, u, EvaluateIdentifiabilityInputs(problem, map, posture_q, u));
}

}  // namespace frfit
