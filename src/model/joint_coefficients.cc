#include "frfit/model/joint_coefficients.h"

#include "frfit/common/error.h"

namespace frfit {
namespace {

// E and η of each beam at `parameters` (the file's E where it is not fitted, η = 0 where the beam
// has no loss factor).
void BeamMaterial(const Model& model, std::span<const double> parameters, std::vector<double>* e,
                  std::vector<double>* eta) {
  e->assign(model.beams.size(), 0.0);
  eta->assign(model.beams.size(), 0.0);
  for (size_t b = 0; b < model.beams.size(); ++b) (*e)[b] = model.beams[b].youngs_modulus.initial;
  for (int i = 0; i < model.num_parameters(); ++i) {
    const ParameterSpec& spec = model.parameters[i];
    if (spec.kind == ParameterKind::kYoungsModulus) (*e)[spec.beam] = parameters[i];
    if (spec.kind == ParameterKind::kBeamLossFactor) (*eta)[spec.beam] = parameters[i];
  }
}

// The affine coefficients of the beams (Beam::part_*): E, G, η·E, η·G, β·E, β·G.
std::vector<double> BeamParts(const Model& model, std::span<const double> parameters,
                              double beta) {
  std::vector<double> parts(model.num_parts, 0.0);
  std::vector<double> e, eta;
  BeamMaterial(model, parameters, &e, &eta);
  for (size_t b = 0; b < model.beams.size(); ++b) {
    const Beam& beam = model.beams[b];
    const double g = beam.shear_modulus_pa;
    parts[beam.part_e] = e[b];
    parts[beam.part_g] = g;
    if (beam.part_loss_e >= 0) parts[beam.part_loss_e] = eta[b] * e[b];
    if (beam.part_loss_g >= 0) parts[beam.part_loss_g] = eta[b] * g;
    if (beam.part_beta_e >= 0) parts[beam.part_beta_e] = beta * e[b];
    if (beam.part_beta_g >= 0) parts[beam.part_beta_g] = beta * g;
  }
  return parts;
}

// Rows of ∂(parts)/∂(parameters) into `d` from row `first` on (the product rule on η·E, β·E).
void BeamPartRows(const Model& model, std::span<const double> parameters, double beta, int first,
                  std::vector<double>* d) {
  const int count = model.num_parameters();
  std::vector<double> e, eta;
  BeamMaterial(model, parameters, &e, &eta);
  auto at = [&](int part, int i) -> double& {
    return (*d)[static_cast<size_t>(first + part) * count + i];
  };
  for (int i = 0; i < count; ++i) {
    const ParameterSpec& spec = model.parameters[i];
    if (spec.kind == ParameterKind::kYoungsModulus) {
      const Beam& beam = model.beams[spec.beam];
      at(beam.part_e, i) = 1.0;
      if (beam.part_loss_e >= 0) at(beam.part_loss_e, i) = eta[spec.beam];
      if (beam.part_beta_e >= 0) at(beam.part_beta_e, i) = beta;
    } else if (spec.kind == ParameterKind::kBeamLossFactor) {
      const Beam& beam = model.beams[spec.beam];
      at(beam.part_loss_e, i) = e[spec.beam];
      at(beam.part_loss_g, i) = beam.shear_modulus_pa;
    } else if (spec.kind == ParameterKind::kRayleighBeta) {
      for (size_t b = 0; b < model.beams.size(); ++b) {
        at(model.beams[b].part_beta_e, i) = e[b];
        at(model.beams[b].part_beta_g, i) = model.beams[b].shear_modulus_pa;
      }
    }
  }
}

}  // namespace

void AppendPacked(const JointCoefficients& c, std::vector<double>* out) {
  out->insert(out->end(), c.stiffness.begin(), c.stiffness.end());
  out->insert(out->end(), c.viscous.begin(), c.viscous.end());
  out->insert(out->end(), c.hysteretic.begin(), c.hysteretic.end());
  out->push_back(c.mass_proportional);
  out->insert(out->end(), c.masses.begin(), c.masses.end());
  out->insert(out->end(), c.parts.begin(), c.parts.end());
}

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
  c.masses.assign(model.num_masses(), 0.0);
  int next_mass = 0;  // masses come last, in Model::mass_bodies order
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
      case ParameterKind::kMass: c.masses[next_mass++] = parameters[i]; break;
      case ParameterKind::kYoungsModulus:
      case ParameterKind::kBeamLossFactor: break;  // BeamParts below
    }
  }
  c.parts = BeamParts(model, parameters, beta);
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

std::vector<double> CoefficientJacobian(const Model& model, std::span<const double> parameters,
                                        const std::vector<double>& q) {
  const JointCoefficients c = Coefficients(model, parameters, q);  // checks sizes and laws
  const int n = model.num_dofs(), count = model.num_parameters();
  const bool rayleigh = model.damping_model == DampingModel::kRayleigh;
  // ∂k/∂θ first: the hysteretic and Rayleigh rows follow from it by the product rule.
  std::vector<double> dk(static_cast<size_t>(n) * count, 0.0);
  std::vector<double> eta(n, 0.0);
  double beta = 0.0;
  for (int i = 0; i < count; ++i) {
    const ParameterSpec& spec = model.parameters[i];
    if (spec.kind == ParameterKind::kStiffness)
      dk[spec.dof * count + i] =
          spec.term < 0 ? 1.0 : model.dofs[spec.dof].stiffness_law[spec.term].basis.Evaluate(q);
    else if (spec.kind == ParameterKind::kLossFactor) eta[spec.dof] = parameters[i];
    else if (spec.kind == ParameterKind::kRayleighBeta) beta = parameters[i];
  }
  std::vector<double> d(
      static_cast<size_t>(3 * n + 1 + model.num_masses() + model.num_parts) * count, 0.0);
  int next_mass = 0;
  auto at = [&](int row, int i) -> double& { return d[static_cast<size_t>(row) * count + i]; };
  for (int i = 0; i < count; ++i) {
    const ParameterSpec& spec = model.parameters[i];
    for (int j = 0; j < n; ++j) {
      at(j, i) = dk[j * count + i];
      at(2 * n + j, i) = eta[j] * dk[j * count + i];
      if (rayleigh) at(n + j, i) = beta * dk[j * count + i];
    }
    switch (spec.kind) {
      case ParameterKind::kStiffness: break;
      // A Rayleigh model overwrites the viscous coefficients with β·k (Coefficients).
      case ParameterKind::kDamping: if (!rayleigh) at(n + spec.dof, i) = 1.0; break;
      case ParameterKind::kLossFactor: at(2 * n + spec.dof, i) = c.stiffness[spec.dof]; break;
      case ParameterKind::kRayleighAlpha: at(3 * n, i) = 1.0; break;
      case ParameterKind::kRayleighBeta:
        if (rayleigh)
          for (int j = 0; j < n; ++j) at(n + j, i) = c.stiffness[j];
        break;
      case ParameterKind::kMass: at(3 * n + 1 + next_mass++, i) = 1.0; break;
      case ParameterKind::kYoungsModulus:
      case ParameterKind::kBeamLossFactor: break;  // BeamPartRows
    }
  }
  if (model.num_parts > 0) BeamPartRows(model, parameters, beta, 3 * n + 1 + model.num_masses(), &d);
  return d;
}

}  // namespace frfit
