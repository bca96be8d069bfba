#include "frfit/posture/posture.h"

#include <Eigen/Cholesky>

#include "frfit/common/error.h"
#include "frfit/posture/closure.h"
#include "frfit/posture/kinematics.h"
#include "beam_linearize.h"
#include "linearize_tree.h"

namespace frfit {

Posture LinearizeTree(const Model& model, const std::vector<double>& q, const std::string& name) {
  if (static_cast<int>(q.size()) != model.num_coordinates())
    throw Error(model.source, "posture " + name,
                "expected " + std::to_string(model.num_coordinates()) + " coordinates, got " +
                    std::to_string(q.size()));
  const int n = model.num_dofs();
  Posture posture;
  posture.name = name;
  posture.q = q;
  posture.n = n;
  posture.mass = Eigen::MatrixXd::Zero(n, n);
  posture.gravity_stiffness = Eigen::MatrixXd::Zero(n, n);

  const std::vector<TransformJet> frames = FrameJets(model, q, /*second_derivatives=*/true);
  for (const Body& body : model.bodies) {
    const TransformJet jet = Offset(frames[body.frame], body.com_m);
    const Eigen::Matrix3d R = jet.T.block<3, 3>(0, 0);
    Eigen::Matrix3Xd JS(3, n), Jw(3, n);
    for (int p = 0; p < n; ++p) {
      JS.col(p) = jet.d[p].block<3, 1>(0, 3);
      Jw.col(p) = AngularJacobianColumn(jet.T, jet.d[p]);
    }
    const Eigen::Matrix3d inertia_ground = R * body.inertia_kg_m2 * R.transpose();
    posture.mass += body.mass_kg * JS.transpose() * JS + Jw.transpose() * inertia_ground * Jw;
    // Gravity potential V = −Σ m gᵀe; its Hessian is the gravity part of ∂f/∂q.
    Eigen::MatrixXd gravity_per_kg(n, n);
    for (int p = 0; p < n; ++p)
      for (int r = 0; r < n; ++r)
        gravity_per_kg(p, r) = -model.gravity_m_s2.dot(jet.dd[p * n + r].block<3, 1>(0, 3));
    posture.gravity_stiffness += body.mass_kg * gravity_per_kg;
    if (body.has_fitted_mass) {
      MassPart part;
      part.mass = JS.transpose() * JS + Jw.transpose() * (inertia_ground / body.mass_kg) * Jw;
      part.mass = 0.5 * (part.mass + part.mass.transpose()).eval();
      part.gravity = 0.5 * (gravity_per_kg + gravity_per_kg.transpose());
      part.nominal_kg = body.mass_kg;
      posture.mass_parts.push_back(std::move(part));
    }
  }
  if (!model.beams.empty()) AddBeams(model, frames, &posture);
  // Symmetrise away the rounding of the two triangles.
  posture.mass = 0.5 * (posture.mass + posture.mass.transpose()).eval();
  posture.gravity_stiffness =
      0.5 * (posture.gravity_stiffness + posture.gravity_stiffness.transpose()).eval();

  const TransformJet& sensor = frames[model.sensor_frame];
  posture.sensor_rotation = sensor.T.block<3, 3>(0, 0);
  posture.sensor_position_m = sensor.T.block<3, 1>(0, 3);
  posture.sensor_jacobian.resize(3, n);
  for (int p = 0; p < n; ++p) posture.sensor_jacobian.col(p) = sensor.d[p].block<3, 1>(0, 3);
  posture.sensor_basis = posture.sensor_jacobian.transpose() * posture.sensor_rotation;
  return posture;
}

void CheckMassMatrix(const Model& model, const Posture& posture, const std::string& name) {
  const int n = posture.n;
  if (Eigen::LLT<Eigen::MatrixXd>(posture.mass).info() != Eigen::Success) {
    // Name the DOFs that move no mass at all: a zero diagonal entry of M0.
    const double largest = posture.mass.diagonal().cwiseAbs().maxCoeff();
    std::string massless;
    for (int j = 0; j < n; ++j)
      if (!(posture.mass(j, j) > 1e-12 * largest))
        massless += (massless.empty() ? "" : ", ") + model.dofs[j].name;
    throw Error(
        model.source, "posture " + name,
        "the mass matrix is singular here: " +
            (massless.empty() ? std::string("some elastic DOFs move the same mass")
                              : "elastic DOF " + massless + " moves no mass") +
            " (check the frames the bodies are attached to; a URDF link without <inertial> is "
            "massless)");
  }
}

Posture Linearize(const Model& model, const std::vector<double>& q, const std::string& name) {
  if (model.closure.closed()) return LinearizeClosed(model, q, name);
  Posture posture = LinearizeTree(model, q, name);
  CheckMassMatrix(model, posture, name);
  return posture;
}

Posture Linearize(const Model& model, const std::string& posture_name) {
  return Linearize(model, model.posture(posture_name).q, posture_name);
}

namespace {

// B_f = J_fᵀ R_0,f of frame `frame` at the posture's q, as Linearize computes the sensor's.
Eigen::MatrixXd FrameBasis(const std::vector<TransformJet>& frames, int frame, int n) {
  const TransformJet& jet = frames[frame];
  Eigen::Matrix3Xd J(3, n);
  for (int p = 0; p < n; ++p) J.col(p) = jet.d[p].block<3, 1>(0, 3);
  return J.transpose() * jet.T.block<3, 3>(0, 0);
}

int FrameIndex(const Model& model, const std::string& name, const std::string& what) {
  if (name.empty()) return model.sensor_frame;
  const int frame = model.FindFrame(name);
  if (frame < 0) {
    std::string known;
    for (const Frame& f : model.frames) known += (known.empty() ? "" : ", ") + f.name;
    throw Error(model.source, what,
                "model '" + model.name + "' has no frame '" + name + "' (it has " + known + ")");
  }
  return frame;
}

}  // namespace

MeasurementPoints PointsAt(const Model& model, const Posture& posture,
                           const std::string& response_frame, const std::string& excitation_frame,
                           const std::string& what) {
  const int a = FrameIndex(model, response_frame, what);
  const int b = FrameIndex(model, excitation_frame, what);
  MeasurementPoints points;
  points.response_frame = response_frame;
  points.excitation_frame = excitation_frame;
  if (model.closure.closed()) {
    points.response_basis = a == model.sensor_frame ? posture.sensor_basis
                                                    : ClosedFrameBasis(model, posture.q, a);
    points.excitation_basis = b == model.sensor_frame ? posture.sensor_basis
                                                      : ClosedFrameBasis(model, posture.q, b);
    return points;
  }
  if (a == model.sensor_frame && b == model.sensor_frame) {
    // The sensor's basis as Linearize computed it, to the bit: tool-tip sets fit as before.
    points.response_basis = posture.sensor_basis;
    points.excitation_basis = posture.sensor_basis;
    return points;
  }
  const std::vector<TransformJet> frames = FrameJets(model, posture.q, false);
  points.response_basis =
      a == model.sensor_frame ? posture.sensor_basis : FrameBasis(frames, a, posture.n);
  points.excitation_basis =
      b == model.sensor_frame ? posture.sensor_basis : FrameBasis(frames, b, posture.n);
  return points;
}

namespace {

// `nominal` + Σ_b (m_b − nominal_b)·part_b: exactly `nominal` at the file's masses.
Eigen::MatrixXd AtMasses(const Posture& posture, const JointCoefficients& c,
                         const Eigen::MatrixXd& nominal, Eigen::MatrixXd MassPart::*part) {
  if (c.masses.empty()) return nominal;
  if (c.masses.size() != posture.mass_parts.size())
    throw Error("posture " + posture.name, "masses",
                "expected " + std::to_string(posture.mass_parts.size()) + " fitted masses, got " +
                    std::to_string(c.masses.size()));
  Eigen::MatrixXd out = nominal;
  for (size_t b = 0; b < c.masses.size(); ++b) {
    const MassPart& p = posture.mass_parts[b];
    if (c.masses[b] != p.nominal_kg) out += (c.masses[b] - p.nominal_kg) * (p.*part);
  }
  return out;
}

// Adds Σ c.parts[a]·matrix_a over the parts of `target` (none for lumped-joint models: their
// matrices keep their bits).
template <typename Matrix>
void AddParts(const Posture& posture, const JointCoefficients& c, AffinePart::Target target,
              typename Matrix::Scalar unit, Matrix* out) {
  for (const AffinePart& part : posture.affine_parts) {
    if (part.target != target) continue;
    if (part.coefficient < 0 || part.coefficient >= static_cast<int>(c.parts.size()))
      throw Error("posture " + posture.name, "affine parts",
                  "expected a coefficient index below " + std::to_string(c.parts.size()) +
                      ", got " + std::to_string(part.coefficient));
    *out += (unit * c.parts[part.coefficient]) * part.matrix.cast<typename Matrix::Scalar>();
  }
}

}  // namespace

Eigen::MatrixXd MassMatrix(const Posture& posture, const JointCoefficients& c) {
  Eigen::MatrixXd M = AtMasses(posture, c, posture.mass, &MassPart::mass);
  AddParts(posture, c, AffinePart::Target::kMass, 1.0, &M);
  return M;
}

Eigen::MatrixXd GravityStiffness(const Posture& posture, const JointCoefficients& c) {
  return AtMasses(posture, c, posture.gravity_stiffness, &MassPart::gravity);
}

Eigen::MatrixXcd MassPartDerivative(const Posture& posture, const JointCoefficients& c, int b,
                                    double omega) {
  const MassPart& part = posture.mass_parts[b];
  const Eigen::MatrixXd real = part.gravity - omega * omega * part.mass;
  return real.cast<std::complex<double>>() +
         std::complex<double>(0.0, omega * c.mass_proportional) * part.mass.cast<std::complex<double>>();
}

Eigen::MatrixXcd TangentStiffness(const Posture& posture, const JointCoefficients& c) {
  Eigen::MatrixXcd K = GravityStiffness(posture, c).cast<std::complex<double>>();
  for (int j = 0; j < posture.n; ++j) K(j, j) += std::complex<double>(c.stiffness[j], c.hysteretic[j]);
  AddParts(posture, c, AffinePart::Target::kStiffness, std::complex<double>(1.0, 0.0), &K);
  AddParts(posture, c, AffinePart::Target::kLossStiffness, std::complex<double>(0.0, 1.0), &K);
  return K;
}

Eigen::MatrixXd TangentDamping(const Posture& posture, const JointCoefficients& c) {
  Eigen::MatrixXd C = c.mass_proportional * MassMatrix(posture, c);
  for (int j = 0; j < posture.n; ++j) C(j, j) += c.viscous[j];
  AddParts(posture, c, AffinePart::Target::kDamping, 1.0, &C);
  return C;
}

}  // namespace frfit
