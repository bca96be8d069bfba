// LinearizeCost (fit/regularization.h): the normal equations of the data's cost at one point,
// from the cpu evaluator and the modal cost, turned from the optimiser's u into the scaled
// parameters x_j = (θ_j − c_j)/s_j of the regularisation.
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/modal_cost.h"
#include "frfit/fit/regularization.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

// F, Jᵀρ and JᵀJ in u ([NormalTermCount(p)], kernels/line_normal.h) and the real residuals.
std::vector<double> DataNormalTerms(const Problem& problem, const ParameterMap& map,
                                    const FitOptions& options, std::span<const double> u,
                                    int* residuals) {
  const int p = map.dim(), terms = kernels::NormalTermCount(p);
  std::vector<double> normal(terms, 0.0);
  // The weights the fit's refinement ended on: its last pass's, at u.
  const PackedProblem packed =
      PackForPass(problem, map, RefinementPasses(options.cost) > 0 ? 1 : 0, u);
  *residuals = CountResiduals(packed);
  if (!packed.postures.empty()) {
    std::vector<double> coefficients, sensitivities;
    const std::vector<std::vector<double>> q = PostureCoordinates(problem);
    map.AppendCoefficients(u, q, &coefficients);
    map.AppendSensitivities(u, q, &sensitivities);
    auto evaluator = CreateCpuEvaluator(0);
    evaluator->SetProblems({packed});
    const std::vector<int> points = {1}, dims = {p};
    std::vector<EvalStatus> status(1);
    evaluator->EvaluateNormalEquations({points, dims, coefficients, sensitivities}, normal, status);
    if (status[0] != EvalStatus::kOk)
      throw Error("", "regularization", "the point cannot be evaluated (singular system)");
  }
  AddModalNormalTerms(problem.modes, map, u, normal);
  *residuals += ModalResidualCount(problem.modes);
  return normal;
}

}  // namespace

LinearizedCost LinearizeCost(const Problem& problem, const ParameterMap& map,
                             const FitOptions& options, std::span<const double> u) {
  const int p = map.dim();
  const std::vector<Prior>& basis = map.regularization_basis();
  if (basis.size() != static_cast<size_t>(p))
    throw Error("", "regularization", "expected a fit with a regularization: block");
  LinearizedCost c;
  const std::vector<double> normal = DataNormalTerms(problem, map, options, u, &c.residuals);
  const std::vector<double> physical = map.Physical(u), slopes = map.Slopes(u);
  // x_j = (θ_j − c_j)/s_j; a parameter that is not regularised gets the identifiability's scale
  // (its value, or its bounds' span), which changes nothing but the conditioning.
  std::vector<double> factor(p);  // ∂/∂x_j = s_j / (dθ_j/du_j) ∂/∂u_j
  for (int j = 0; j < p; ++j) {
    const double theta = physical[map.free_indices()[j]];
    const bool regularised = basis[j].std > 0.0;
    const ParameterBounds& b = map.space().bounds(j);
    const double s = regularised ? basis[j].std : theta != 0.0 ? std::abs(theta) : b.upper - b.lower;
    c.x.push_back(regularised ? (theta - basis[j].mean) / s : theta / s);
    c.mask.push_back(regularised ? 1.0 : 0.0);
    factor[j] = s / slopes[j];
  }
  c.cost = normal[0];
  c.a.assign(static_cast<size_t>(p) * p, 0.0);
  for (int j = 0; j < p; ++j) {
    c.g.push_back(normal[1 + j] * factor[j]);
    for (int k = 0; k < p; ++k)
      c.a[j * p + k] = normal[kernels::NormalTermIndex(p, std::min(j, k), std::max(j, k))] *
                       factor[j] * factor[k];
  }
  return c;
}

}  // namespace frfit
