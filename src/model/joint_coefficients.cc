#include "frfit/model/joint_coefficients.h"

#include "frfit/common/error.h"

namespace frfit {

JointCoefficients Coefficients(const Model& model, std::span<const double> parameters) {
  if (static_cast<int>(parameters.size()) != model.num_parameters())
    throw Error(model.source, "parameters",
                "expected " + std::to_string(model.num_parameters()) + " values, got " +
                    std::to_string(parameters.size()));
  const int n = model.num_dofs();
  JointCoefficients c;
  c.stiffness.assign(n, 0.0);
  c.viscous.assign(n, 0.0);
  c.hysteretic.assign(n, 0.0);
  double beta = 0.0;
  for (int i = 0; i < model.num_parameters(); ++i) {
    const ParameterSpec& spec = model.parameters[i];
    switch (spec.kind) {
      case ParameterKind::kStiffness: c.stiffness[spec.dof] = parameters[i]; break;
      case ParameterKind::kDamping: c.viscous[spec.dof] = parameters[i]; break;
      case ParameterKind::kLossFactor: c.hysteretic[spec.dof] = parameters[i]; break;
      case ParameterKind::kRayleighAlpha: c.mass_proportional = parameters[i]; break;
      case ParameterKind::kRayleighBeta: beta = parameters[i]; break;
    }
  }
  for (int j = 0; j < n; ++j) {
    c.hysteretic[j] *= c.stiffness[j];
    if (model.damping_model == DampingModel::kRayleigh) c.viscous[j] = beta * c.stiffness[j];
  }
  return c;
}

}  // namespace frfit
