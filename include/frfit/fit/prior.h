// Priors: the Gaussian prior terms a fit with a `prior:` block adds to its cost, on the host after
// every batched evaluation, so that the evaluators (and their cpu/cuda bits) never change
// (docs/fit-config.md, "Priors"; docs/decisions.md, "Prior scaling").
//
// The fit's cost F is Σ w r² with noise weights whose every real residual has variance ½: twice F
// is the χ², F itself the negative log-likelihood. A prior N(μ_j, σ_j²) adds ½ z_j², z_j = (θ_j −
// μ_j)/σ_j, so that F + ½ Σ z² is the negative log-posterior and its minimum the MAP estimate. In
// the normal equations (kernels/line_normal.h: F, g = JᵀWr, A = JᵀWJ, the gradient 2g) it is one
// residual z_j/√2 of weight 1 per prior, differentiated through θ_j(u_j), the optimiser's
// normalised (linear or log-scaled) coordinate: g_j += z_j·θ_j'/(2σ_j), A_jj += θ_j'²/(2σ_j²).
#pragma once

#include <span>

#include "frfit/fit/parameter_map.h"

namespace frfit {

// ½ Σ z_j² at one point u (0 without priors).
double PriorCost(const ParameterMap& map, std::span<const double> u);

// Adds PriorCost to the cost of every point of a packed batch u [point][dim]. A non-finite cost
// (a failed evaluation) stays as it is.
void AddPriorCosts(const ParameterMap& map, std::span<const double> points, std::span<double> costs);

// Adds the prior's cost, gradient and Gauss–Newton terms to every point's normal-equation terms
// ([point][NormalTermCount(dim)]); a point whose cost is not finite is left as it is.
void AddPriorNormalTerms(const ParameterMap& map, std::span<const double> points,
                         std::span<double> normal);

}  // namespace frfit
