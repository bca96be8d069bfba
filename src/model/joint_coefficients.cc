#include "frfit/model/joint_coefficients.h"

#include "frfit/common/error.h"

namespace frfit {

JointCoefficients Coefficients(const Model& model, std::span<const double> parameters) {
  if (model.has_posture_dependent_stiffness())
    throw Error(model.source, "dofs",
                "the model has posture-dependent stiffness: its coefficients need a posture");
  return Coefficients(model, parameters, std::vector<double>(model.num_coordinates(), 0.0));
}

JointCoefficients Coefficients(const Model& model, std::span<const double> parameters,
                               const std::vector<double>& q) {
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
      case ParameterKind::kStiffness:
        if (spec.term < 0) {
          c.stiffness[spec.dof] = parameters[i];
        } else {
          c.stiffness[spec.dof] +=
              parameters[i] * model.dofs[spec.dof].stiffness_law[spec.term].basis.Evaluate(q);
        }
        break;
      case ParameterKind::kDamping: c.viscous[spec.dof] = parameters[i]; break;
      case ParameterKind::kLossFactor: c.hysteretic[spec.dof] = parameters[i]; break;
      case ParameterKind::kRayleighAlpha: c.mass_proportional = parameters[i]; break;
      case ParameterKind::kRayleighBeta: beta = parameters[i]; break;
    }
  }
  for (int j = 0; j < n; ++j) {
    if (!model.dofs[j].stiffness_law.empty() && !(c.stiffness[j] > 0.0)) {
      std::string where;
      for (int k = 0; k < model.num_coordinates(); ++k)
        where += (k ? ", " : "") + FormatDouble(q[k]);
      throw Error(model.source, "dofs." + model.dofs[j].name + ".stiffness_law",
                  "expected a positive stiffness, got " + FormatDouble(c.stiffness[j]) +
                      " at q = (" + where + ") (rad / m)");
    }
    c.hysteretic[j] *= c.stiffness[j];
    if (model.damping_model == DampingModel::kRayleigh) c.viscous[j] = beta * c.stiffness[j];
  }
  return c;
}

}  // namespace frfit
