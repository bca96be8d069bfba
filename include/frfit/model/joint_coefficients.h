// What a vector of elastic parameters puts into the linearised equations of motion: the numbers
// the per-line arithmetic needs, whatever the damping model. One struct for every damping model
// keeps the evaluators (cpu and cuda) free of model-specific branches:
//   K0 = K_gravity + diag(stiffness) + i·diag(hysteretic)
//   C0 = diag(viscous) + mass_proportional·M0
// and, when the model fits body masses, those masses (M0 and K_gravity then follow them:
// posture/posture.h, MassMatrix and GravityStiffness).
#pragma once

#include <span>
#include <vector>

#include "frfit/model/model.h"

namespace frfit {

struct JointCoefficients {
  std::vector<double> stiffness;   // k_j
  std::vector<double> viscous;     // d_j (viscous) or β·k_j (rayleigh)
  std::vector<double> hysteretic;  // η_j·k_j (structural), else 0
  double mass_proportional = 0.0;  // α (rayleigh), else 0
  std::vector<double> masses;      // kg, one per fitted mass (Model::mass_bodies order)
  // The affine coefficients of Posture::affine_parts (AffinePart::coefficient indexes here):
  // empty for models without beam bodies.
  std::vector<double> parts;
};

// Appends c in the kernels' packed order: k(n), viscous(n), hysteretic(n), α, masses, parts
// (kernels::CoefficientStride).
void AppendPacked(const JointCoefficients& c, std::vector<double>* out);

// `parameters` in Model::parameters order, at posture coordinates q (rad / m): posture-dependent
// stiffness laws are evaluated there. A law giving k <= 0 at q is an Error naming DOF and q.
JointCoefficients Coefficients(const Model& model, std::span<const double> parameters,
                               const std::vector<double>& q);
// For models without posture-dependent stiffness (throws Error for one that has it).
JointCoefficients Coefficients(const Model& model, std::span<const double> parameters);

// ∂(coefficients)/∂(parameters) at `parameters` and q, row-major
// [3n + 1 + masses + parts][num_parameters], rows in the packed coefficient order k(n),
// viscous(n), hysteretic(n), α, masses, parts (AppendPacked).
// Exact: the coefficients are linear in each parameter, or products of two (η·k, β·k, η·E, β·E).
std::vector<double> CoefficientJacobian(const Model& model, std::span<const double> parameters,
                                        const std::vector<double>& q);

}  // namespace frfit
