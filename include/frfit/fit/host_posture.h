// The posture on which the host computes a set's results after a fit (docs/reduction.md, "In a
// fit"): the fitted FRFs, the reference and fitted modes and their uncertainty, the model check
// and the noise weights of the reweighting passes. A set fitted on a reduced posture is assessed
// on that reduced posture — its FRFs agree with the full model's to the reduction error the fit
// reports, at a fraction of the cost of the full model's eigenproblems and solves — unless
// `reduction.assess_on: full` asks for the full model; every other set on its full posture, so
// that a model without beams keeps its bits.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model.h"

namespace frfit {

struct HostPosture {
  const Posture* full = nullptr;         // the set's full posture
  const Posture* posture = nullptr;      // the one the host solves: *full or the reduced one
  const Reduction* reduction = nullptr;  // null when posture is the full one
  MeasurementPoints points;              // the set's points, in posture's coordinates

  // The model's coefficients at `parameters` in posture's layout (ReducedCoefficients).
  JointCoefficients CoefficientsAt(const Model& model, std::span<const double> parameters) const;
  // ∂(coefficients)/∂(parameters) in posture's packed layout (CoefficientJacobian's, with the
  // reduced posture's diagonal rows: the joints' rows, then zeros).
  std::vector<double> CoefficientJacobianAt(const Model& model,
                                            std::span<const double> parameters) const;
  // A basis of the full model's coordinates (n×k) in posture's: Vᵀ B when reduced.
  Eigen::MatrixXd InPosture(const Eigen::MatrixXd& full_basis) const;
};

// The set's host posture as above.
HostPosture HostPostureOf(const ProblemPosture& pp);
// A full posture as itself (for callers without a problem).
HostPosture FullHostPosture(const Posture& posture);

}  // namespace frfit
