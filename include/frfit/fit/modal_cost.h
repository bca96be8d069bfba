// The modal cost: measured modes (cost/modal_sets.h) against the model's at every evaluation, on
// the host after each batched evaluation, as the priors' terms are (fit/prior.h): the evaluators
// never see it, so the cpu and cuda backends give the same bits by construction.
//
// Per measured mode, a fixed set of real residuals, each of unit variance so that the cost adds
// ½Σr² to the fit's F (twice F is the χ²): the frequency (f_model − f)/σ_f; with
// modes.damping the damping ratio (ζ_model − ζ)/σ_ζ; and the shape at the set's points, two per
// known entry (real and imaginary part) of (m̂ − α φ)/σ_shape, m̂ the measured shape at unit
// length, φ the model's shape there and α = φᴴm̂/φᴴφ the least-squares complex scale — one scale
// per mode over all of the set's points, a residual that does not depend on how either shape is
// scaled (docs/decisions.md, "Modal cost").
//
// Pairing: the measured modes of a set are paired one to one with the model's modes at every
// evaluation, by the least total |f_model − f|/f + (1 − MAC) (Kuhn–Munkres), with no frequency
// window: a function of the parameters alone, and the MAC keeps two modes apart where their
// frequencies cross. A measured mode left without a partner (the model has fewer modes) is
// scored as if the model's mode were at 0 Hz with a zero shape — an error term, never dropped.
//
// The Jacobian is exact: eigenvalue derivatives by first-order perturbation
// (ModeEigenvalueDerivatives), shape derivatives by modal expansion (ModeShapeDerivatives),
// chained through the coefficients (CoefficientJacobian) to the optimiser's u.
#pragma once

#include <Eigen/Core>
#include <span>
#include <string>
#include <vector>

#include "frfit/cost/modal_sets.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// One measured mode at one parameter vector.
struct ModalResidual {
  std::string source;             // its set's EMA file
  std::string posture;
  int mode = 0;                   // its index in the set
  double frequency_hz = 0.0;      // measured
  double frequency_sigma_hz = 0.0;
  int model_mode = -1;            // its partner among the model's modes; -1: unpaired
  double model_frequency_hz = 0.0;  // the partner's (NaN when unpaired)
  double frequency_residual = 0.0;  // (f_model − f)/σ_f, or f/σ_f unpaired
  double damping_residual = 0.0;    // (ζ_model − ζ)/σ_ζ; 0 unless modes.damping
  double mac = 0.0;                 // over the known axes (0 unpaired)
  double shape_residual = 0.0;      // √Σ of its shape residuals squared
  double cost = 0.0;                // ½Σ of all its residuals squared
};

struct ModalEvaluation {
  std::vector<double> residuals;     // in set, mode order; ModalResidualCount of them
  Eigen::MatrixXd jacobian;          // ∂r/∂u [residual][free parameter]; empty unless asked
  std::vector<ModalResidual> modes;  // one per measured mode, in set order
  double cost = 0.0;                 // ½Σr²
};

// Real residuals: per measured mode 1 + damping + 6 per point of its set.
int ModalResidualCount(const ModalData& data);

// The modal residuals (and with `jacobian` their derivatives by u) at one point u of `map`.
ModalEvaluation EvaluateModalData(const ModalData& data, const ParameterMap& map,
                                  std::span<const double> u, bool jacobian);

// Adds the modal cost to every finite cost of a packed batch u [point][dim]; nothing without
// modal data. A model whose eigenproblem fails at a point makes that point's cost +inf.
void AddModalCosts(const ModalData& data, const ParameterMap& map, std::span<const double> points,
                   std::span<double> costs);

// Adds ½Σr², ½Jᵀr and ½JᵀJ to every point's normal-equation terms ([point][NormalTermCount]),
// the Gauss–Newton terms of the cost above (kernels/line_normal.h's convention).
void AddModalNormalTerms(const ModalData& data, const ParameterMap& map,
                         std::span<const double> points, std::span<double> normal);

// The shapes' noise against modes.shape_std, estimated from their residuals in `e` (at the fitted
// point): their χ² over their degrees of freedom — 2 per known entry less 2 for the complex scale,
// of each paired mode, less the shapes' share of the `parameters` fitted — 1 when there are none.
// The frequencies keep their EMA σ. The identifiability weighs the shape residuals by 1/ratio
// (docs/decisions.md, "Modal cost").
double ShapeVarianceRatio(const ModalData& data, const ModalEvaluation& e, int parameters);

// AddModalNormalTerms at one point u with the shape residuals divided by √shape_variance_ratio:
// the identifiability's share of the modal data.
void AddModalNormalTermsForSigma(const ModalData& data, const ParameterMap& map,
                                 std::span<const double> u, double shape_variance_ratio,
                                 std::span<double> normal);

}  // namespace frfit
