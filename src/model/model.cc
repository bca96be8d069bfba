#include "frfit/model/model.h"

#include <cmath>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"

namespace frfit {
namespace {

template <typename T>
int IndexByName(const std::vector<T>& items, const std::string& name) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return -1;
}

// The beams' parameters (every E_<beam>, then every eta_<beam>) and their affine coefficients,
// numbered beam by beam: E, G, then η·E, η·G (loss factor), then β·E, β·G (Rayleigh).
void FinalizeBeams(Model* model) {
  int part = 0;
  for (size_t b = 0; b < model->beams.size(); ++b) {
    Beam& beam = model->beams[b];
    if (beam.fitted_modulus) {
      ParameterSpec spec{"E_" + beam.name, ParameterKind::kYoungsModulus, -1, -1,
                         beam.youngs_modulus, "Pa"};
      spec.beam = static_cast<int>(b);
      model->parameters.push_back(spec);
    }
    beam.part_e = part++;
    beam.part_g = part++;
    beam.part_loss_e = beam.part_loss_g = beam.part_beta_e = beam.part_beta_g = -1;
    if (beam.has_loss_factor) {
      beam.part_loss_e = part++;
      beam.part_loss_g = part++;
    }
    if (model->damping_model == DampingModel::kRayleigh) {
      beam.part_beta_e = part++;
      beam.part_beta_g = part++;
    }
  }
  for (size_t b = 0; b < model->beams.size(); ++b) {
    const Beam& beam = model->beams[b];
    if (!beam.has_loss_factor) continue;
    ParameterSpec spec{"eta_" + beam.name, ParameterKind::kBeamLossFactor, -1, -1,
                       beam.loss_factor, "1"};
    spec.beam = static_cast<int>(b);
    model->parameters.push_back(spec);
  }
  model->num_parts = part;
}

}  // namespace

constexpr std::pair<DofKind, const char*> kDofKinds[] = {
    {DofKind::kRotational, "rotational"}, {DofKind::kTranslational, "translational"}};
constexpr std::pair<DampingModel, const char*> kDampingModels[] = {
    {DampingModel::kViscous, "viscous"},
    {DampingModel::kStructural, "structural"},
    {DampingModel::kRayleigh, "rayleigh"}};

std::string ToString(DofKind kind) { return EnumName(kDofKinds, kind); }
std::string ToString(DampingModel model) { return EnumName(kDampingModels, model); }
bool FromString(const std::string& text, DampingModel* model) {
  return EnumFromName(kDampingModels, text, model);
}

bool IsRotation(TransformStep::Kind kind) {
  return kind == TransformStep::Kind::kRotX || kind == TransformStep::Kind::kRotY ||
         kind == TransformStep::Kind::kRotZ;
}

int Model::FindDof(const std::string& n) const { return IndexByName(dofs, n); }
int Model::FindFrame(const std::string& n) const { return IndexByName(frames, n); }
int Model::FindPosture(const std::string& n) const { return IndexByName(postures, n); }
int Model::FindParameter(const std::string& n) const { return IndexByName(parameters, n); }

int Model::FindCoordinate(const std::string& n) const {
  const int dof = FindDof(n);
  if (dof >= 0) return dof;
  for (size_t i = 0; i < rigid_coordinates.size(); ++i)
    if (rigid_coordinates[i] == n) return num_dofs() + static_cast<int>(i);
  return -1;
}

std::string Model::PostureNames() const {
  std::string names;
  for (const PostureSpec& p : postures) names += (names.empty() ? "" : ", ") + p.name;
  return names.empty() ? "none" : names;
}

const PostureSpec& Model::posture(const std::string& n) const {
  const int index = FindPosture(n);
  if (index < 0) {
    std::string known;
    for (const auto& p : postures) known += (known.empty() ? "" : ", ") + p.name;
    throw Error(source, "postures", "no posture named '" + n + "' (the model has: " + known + ")");
  }
  return postures[index];
}

std::vector<double> Model::InitialParameters() const {
  std::vector<double> values;
  for (const auto& p : parameters) values.push_back(p.bounds.initial);
  return values;
}

double BasisFunction::Evaluate(const std::vector<double>& q) const {
  double s = 0.0;
  for (const auto& [coordinate, factor] : terms) s += factor * q[coordinate];
  switch (kind) {
    case Kind::kOne: return 1.0;
    case Kind::kLinear: return s;
    case Kind::kCos: return std::cos(s);
    case Kind::kSin: return std::sin(s);
  }
  return 0.0;
}

bool Model::has_posture_dependent_stiffness() const {
  for (const Dof& dof : dofs)
    if (!dof.stiffness_law.empty()) return true;
  return false;
}

void FinalizeModel(Model* model) {
  model->parameters.clear();
  for (int j = 0; j < model->num_dofs(); ++j) {
    const Dof& dof = model->dofs[j];
    if (!dof.spring) continue;  // a beam's coordinate: its stiffness is the beam's
    const std::string unit = dof.kind == DofKind::kRotational ? "N*m/rad" : "N/m";
    if (dof.stiffness_law.empty()) {
      model->parameters.push_back({"k_" + dof.name, ParameterKind::kStiffness, j, -1, dof.stiffness, unit});
      continue;
    }
    for (size_t t = 0; t < dof.stiffness_law.size(); ++t) {
      const Bounds& b = dof.stiffness_law[t].coefficient;
      model->parameters.push_back({"k_" + dof.name + "_" + std::to_string(t), ParameterKind::kStiffness,
                                   j, static_cast<int>(t), b, unit, b.min > 0.0});
    }
  }
  switch (model->damping_model) {
    case DampingModel::kViscous:
      for (int j = 0; j < model->num_dofs(); ++j) {
        const Dof& dof = model->dofs[j];
        if (!dof.spring) continue;
        const bool rot = dof.kind == DofKind::kRotational;
        model->parameters.push_back({"d_" + dof.name, ParameterKind::kDamping, j, -1, dof.damping,
                                     rot ? "N*m*s/rad" : "N*s/m"});
      }
      break;
    case DampingModel::kStructural:
      for (int j = 0; j < model->num_dofs(); ++j)
        if (model->dofs[j].spring)
          model->parameters.push_back({"eta_" + model->dofs[j].name, ParameterKind::kLossFactor, j,
                                     -1, model->dofs[j].damping, "1"});
      break;
    case DampingModel::kRayleigh:
      model->parameters.push_back(
          {"rayleigh_alpha", ParameterKind::kRayleighAlpha, -1, -1, model->rayleigh_alpha, "1/s"});
      model->parameters.push_back(
          {"rayleigh_beta", ParameterKind::kRayleighBeta, -1, -1, model->rayleigh_beta, "s"});
      break;
  }
  model->mass_bodies.clear();
  for (size_t b = 0; b < model->bodies.size(); ++b) {
    const Body& body = model->bodies[b];
    if (!body.has_fitted_mass) continue;
    ParameterSpec spec{"m_" + body.name, ParameterKind::kMass, -1, -1, body.fitted_mass, "kg"};
    spec.body = static_cast<int>(b);
    model->parameters.push_back(spec);
    model->mass_bodies.push_back(static_cast<int>(b));
  }
  FinalizeBeams(model);
}

}  // namespace frfit
