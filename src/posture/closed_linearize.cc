// Linearisation of a closed chain by embedding (papers/003, Eqs. 28–32): the tree is linearised
// in u = (elastic DOFs z, passive coordinates w), the loops Φ(u) = 0 give w(z) with
// ∂w/∂z = −Φ_w⁺ Φ_z, and the energies are taken on the constraint manifold:
//   M = Vᵀ M_u V,   K_gravity = d²V_g/dz² = Vᵀ ∇²V_g V − Σ_k λ_k Vᵀ ∇²Φ_k V,   λ = Φ_w⁺ᵀ ∂V_g/∂w,
// the second term being the loops' curvature under the forces they carry (w_zz = −Φ_w⁺ Vᵀ∇²Φ V).
// The springs act on z itself, so diag(k), diag(d) and every evaluator keep their form.
#include <Eigen/SVD>

#include "frfit/common/error.h"
#include "frfit/posture/closure.h"
#include "linearize_tree.h"

namespace frfit {
namespace {

Eigen::Vector3d PointOf(const Mat4& T, const Eigen::Vector3d& at) {
  return T.block<3, 3>(0, 0) * at + T.block<3, 1>(0, 3);
}

// Gradient and Hessian of a point mass's gravity potential −m gᵀx(u), x a point of a frame
// (frame −1: the ground, no derivatives), and its velocity Jacobian.
struct PointTerms {
  Eigen::Matrix3Xd jacobian;
  Eigen::VectorXd gradient;  // per kg
  Eigen::MatrixXd hessian;   // per kg
};
PointTerms PointAt(const std::vector<TransformJet>& jets, const FramePoint& p,
                   const Eigen::Vector3d& g, int N) {
  PointTerms out{Eigen::Matrix3Xd::Zero(3, N), Eigen::VectorXd::Zero(N), Eigen::MatrixXd::Zero(N, N)};
  if (p.frame < 0) return out;
  const TransformJet& jet = jets[p.frame];
  for (int k = 0; k < N; ++k) {
    out.jacobian.col(k) = PointOf(jet.d[k], p.at_m);
    out.gradient(k) = -g.dot(out.jacobian.col(k));
    for (int l = 0; l < N; ++l)
      out.hessian(k, l) = -g.dot(PointOf(jet.dd[k * N + l], p.at_m));
  }
  return out;
}

// ∂V_g/∂u per kg of `body`.
Eigen::VectorXd BodyGradient(const std::vector<TransformJet>& jets, const Body& body,
                             const Eigen::Vector3d& g, int N) {
  const TransformJet& jet = jets[body.frame];
  Eigen::VectorXd out(N);
  for (int k = 0; k < N; ++k)
    out(k) = -g.dot(PointOf(jet.d[k], body.com_m));
  return out;
}

// The bars' masses, uniform slender rods: kinetic energy m/6 (v_a² + v_a·v_b + v_b²), potential
// at the midpoint.
void AddBars(const Model& model, const std::vector<TransformJet>& jets, Posture* full,
             Eigen::VectorXd* gradient) {
  const int N = full->n;
  for (const LoopJoint& joint : model.closure.joints) {
    if (joint.kind != LoopJoint::Kind::kBar || joint.mass_kg == 0.0) continue;
    const double m = joint.mass_kg;
    const PointTerms a = PointAt(jets, joint.parent, model.gravity_m_s2, N);
    const PointTerms b = PointAt(jets, joint.child, model.gravity_m_s2, N);
    full->mass += (m / 3.0) * (a.jacobian.transpose() * a.jacobian + b.jacobian.transpose() * b.jacobian) +
                  (m / 6.0) * (a.jacobian.transpose() * b.jacobian + b.jacobian.transpose() * a.jacobian);
    full->gravity_stiffness += 0.5 * m * (a.hessian + b.hessian);
    *gradient += 0.5 * m * (a.gradient + b.gradient);
  }
}

// ∂V_g/∂u of the beams' distributed weight through their frames, −gᵀ ∂T/∂u·∫ρA x̄ dx (their
// lumped masses are bodies). Only its passive coordinates' share is used (the loops' forces λ),
// and a passive coordinate moves a beam only through its frame.
void AddBeamWeights(const Model& model, const std::vector<TransformJet>& jets,
                    Eigen::VectorXd* gradient) {
  for (const Beam& beam : model.beams) {
    const double rho_a = beam.density_kg_m3 * beam.section.area_m2;
    const Eigen::Vector4d first_moment(rho_a * beam.length_m * beam.length_m / 2.0, 0.0, 0.0,
                                       rho_a * beam.length_m);
    const TransformJet& jet = jets[beam.frame];
    for (int k = 0; k < gradient->size(); ++k)
      (*gradient)(k) -= model.gravity_m_s2.dot(jet.d[k].block<3, 4>(0, 0) * first_moment);
  }
}

// Vᵀ A V.
Eigen::MatrixXd Project(const Eigen::MatrixXd& V, const Eigen::MatrixXd& A) {
  const Eigen::MatrixXd P = V.transpose() * A * V;
  return 0.5 * (P + P.transpose());
}

// −Σ_k λ_k Vᵀ ∇²Φ_k V with λ = Φ_w⁺ᵀ f_w: the curvature of the loops under the gradient f.
Eigen::MatrixXd Curvature(const LoopEquations& eq, const Eigen::MatrixXd& V,
                          const Eigen::VectorXd& gradient, int n) {
  const int N = static_cast<int>(V.rows());
  const Eigen::MatrixXd Pw = eq.jacobian.rightCols(N - n);
  const Eigen::VectorXd lambda =
      Eigen::JacobiSVD<Eigen::MatrixXd>(Pw.transpose(), Eigen::ComputeThinU | Eigen::ComputeThinV)
          .solve(gradient.tail(N - n));
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < lambda.size(); ++k) out -= lambda(k) * Project(V, eq.hessian[k]);
  return out;
}

}  // namespace

Posture LinearizeClosed(const Model& model, const std::vector<double>& q, const std::string& name) {
  if (static_cast<int>(q.size()) != model.num_coordinates())
    throw Error(model.source, "posture " + name,
                "expected " + std::to_string(model.num_coordinates()) + " coordinates, got " +
                    std::to_string(q.size()));
  const ClosureSolution closed =
      SolveClosure(model, q, model.closure.passive, nullptr, "posture " + name);
  const Embedding embedding = EmbeddingAt(model, closed.q, "posture " + name);
  const Eigen::MatrixXd& V = embedding.basis;
  const Model& tree = embedding.tree.model;
  const int n = model.num_dofs();
  const int N = tree.num_dofs();

  Posture full = LinearizeTree(tree, embedding.q, name);
  const std::vector<TransformJet> jets = FrameJets(tree, embedding.q, true);
  const LoopEquations eq = EvaluateLoops(tree, jets, true);
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(N);
  std::vector<Eigen::VectorXd> fitted;
  for (const Body& body : tree.bodies) {
    const Eigen::VectorXd per_kg = BodyGradient(jets, body, model.gravity_m_s2, N);
    gradient += body.mass_kg * per_kg;
    if (body.has_fitted_mass) fitted.push_back(per_kg);
  }
  AddBars(model, jets, &full, &gradient);
  AddBeamWeights(tree, jets, &gradient);

  Posture posture;
  posture.name = name;
  posture.q = closed.q;
  posture.n = n;
  posture.mass = Project(V, full.mass);
  posture.gravity_stiffness = Project(V, full.gravity_stiffness) + Curvature(eq, V, gradient, n);
  for (size_t b = 0; b < full.mass_parts.size(); ++b) {
    MassPart part = full.mass_parts[b];
    part.mass = Project(V, part.mass);
    part.gravity = Project(V, part.gravity) + Curvature(eq, V, fitted[b], n);
    posture.mass_parts.push_back(std::move(part));
  }
  for (AffinePart part : full.affine_parts) {
    part.matrix = Project(V, part.matrix);
    posture.affine_parts.push_back(std::move(part));
  }
  posture.sensor_rotation = full.sensor_rotation;
  posture.sensor_position_m = full.sensor_position_m;
  posture.sensor_jacobian = full.sensor_jacobian * V;
  posture.sensor_basis = posture.sensor_jacobian.transpose() * posture.sensor_rotation;
  CheckMassMatrix(model, posture, name);
  return posture;
}

Eigen::MatrixXd ClosedFrameBasis(const Model& model, const std::vector<double>& q, int frame) {
  const Embedding embedding = EmbeddingAt(model, q, "frame " + model.frames[frame].name);
  const std::vector<TransformJet> jets = FrameJets(embedding.tree.model, embedding.q, false);
  const TransformJet& jet = jets[frame];
  Eigen::Matrix3Xd J(3, embedding.tree.model.num_dofs());
  for (int k = 0; k < J.cols(); ++k) J.col(k) = jet.d[k].block<3, 1>(0, 3);
  return (J * embedding.basis).transpose() * jet.T.block<3, 3>(0, 0);
}

}  // namespace frfit
