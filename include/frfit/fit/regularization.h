// Tikhonov regularisation of a fit (`regularization:` in the fit configuration, docs/fit-config.md):
// the cost F(θ) (noise-weighted, F = ‖ρ‖², ρ the weighted residuals) plus ½λ Σ_j x_j², with the
// scaled parameters x_j = (θ_j − c_j)/s_j:
//   toward nominal — c_j the nominal (the effective initial value), s_j = |c_j| (its bounds' span
//                    where c_j = 0): x_j is the relative deviation, and λ = 1/τ² is a prior of
//                    relative 1σ τ on every free parameter (λ = 25: ±20 %);
//   toward prior   — c_j the prior's mean, s_j its 1σ: λ = 1 is the prior itself, λ scales its
//                    precision; parameters without a prior are not regularised.
// A weight λ is a Gaussian prior N(c_j, s_j²/λ) (fit/prior.h), so the fit is the MAP estimate and
// its σ the posterior's; this header only adds how λ is chosen (`weight: auto`) and reported.
//
// The choice is made on the problem linearised at a fitted point x* (docs/decisions.md
// "Regularisation weight"): with A = JᵀJ and g = Jᵀρ* in x, and μ = λ/2 (the data term is ‖ρ‖²,
// the penalty ½λ‖Lx‖² = μ‖Lx‖², L the 0/1 diagonal of the r regularised parameters),
//     x(λ)  = (A + μL)⁻¹ (A x* − g),
//     F(λ)  = F* + 2gᵀ(x − x*) + (x − x*)ᵀA(x − x*),
//     E(λ)  = 2[F(λ) + ½λ‖Lx(λ)‖²] + log det(2A + λL) − r log λ       (the evidence),
//     V(λ)  = n F(λ) / (n − tr[A (A + μL)⁻¹])²                        (GCV),
// n the real residuals. With noise weights every ρ_i has variance ½, so F is the negative
// log-likelihood and E(λ) is −2 log p(data | λ) of the linear-Gaussian problem with the prior
// N(0, 1/λ) on each regularised x_j, up to a constant in λ: the marginal likelihood (type-II
// maximum likelihood). λ minimises E (`choose_by: evidence`, the default) or V (`gcv`) over a log
// grid. The curve reports ‖ρ‖ = √F and ‖Lx‖ too: it is the L-curve, the chosen point marked on it.
#pragma once

#include <string>
#include <vector>

#include <span>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// The data's cost linearised at x*, in the scaled parameters (see above); p = x.size().
struct LinearizedCost {
  std::vector<double> a;     // JᵀJ, p×p row-major
  std::vector<double> g;     // Jᵀρ at x*
  std::vector<double> x;     // x*
  std::vector<double> mask;  // L: 1 for a regularised parameter, 0 otherwise
  double cost = 0.0;         // F* = ‖ρ*‖²
  int residuals = 0;         // n
};

// One weight of the curve: λ, the linearised residual norm √F(λ), the regularisation norm ‖Lx(λ)‖,
// the GCV function V(λ) and the evidence E(λ).
struct WeightCurvePoint {
  double weight = 0.0;
  double residual_norm = 0.0;
  double regularization_norm = 0.0;
  double gcv = 0.0;
  double evidence = 0.0;
};

// The weights scanned and the one the rule chooses there.
struct WeightCurve {
  std::vector<WeightCurvePoint> points;  // ascending weight
  WeightRule rule = WeightRule::kEvidence;
  int chosen = -1;                       // index of the rule's minimum
};

// The point of the linearised problem at weight λ (above).
WeightCurvePoint EvaluateWeight(const LinearizedCost& cost, double weight);

// The log grid the choice scans: kWeightsPerDecade per decade over kWeightDecades decades, ending
// a decade above twice the largest eigenvalue of LAL (beyond it every regularised direction is
// pinned); the minimum of `rule`'s function among them (the first where several are equal).
inline constexpr int kWeightsPerDecade = 8;
inline constexpr int kWeightDecades = 12;
WeightCurve ScanWeights(const LinearizedCost& cost, WeightRule rule);

// What a regularised fit reports: the block as configured, the weight used, the curve at the
// fitted point (the last linearisation) and, with `auto`, how many fits the choice took.
struct RegularizationSummary {
  bool enabled = false;
  RegularizationTarget toward = RegularizationTarget::kNominal;
  bool automatic = false;
  double weight = 0.0;
  WeightCurve curve;
  // The given weight's own point of the curve (weight given), or the chosen one (auto).
  WeightCurvePoint at_weight;
  int fits = 0;
};

// The data's cost of `problem` (its FRF sets and static tests with the weights of the fit's last
// pass, computed at u; its measured modes) linearised at u, in the scaled parameters of `map`'s
// regularisation basis; the map's priors are not part of it (regularization_linearize.cc).
LinearizedCost LinearizeCost(const Problem& problem, const ParameterMap& map,
                             const FitOptions& options, std::span<const double> u);

// The most fits a `weight: auto` fit makes: the first at the weight chosen at the initial point,
// then one from the previous fit's end each time the weight chosen there moves by more than half a
// grid step.
inline constexpr int kMaxRegularizedFits = 4;

}  // namespace frfit
