#include "beam_linearize.h"

namespace frfit {
namespace {

// One beam's view of the posture: the frame it lies in and the coordinates that move that frame.
struct BeamFrame {
  Eigen::Matrix3d R;
  std::vector<int> upstream;  // coordinates with a non-zero derivative of the beam frame
  Eigen::Matrix3Xd origin, axis, angular;  // per upstream coordinate: ∂o/∂q, ∂(R e_x)/∂q, J_ω
};

BeamFrame FrameOf(const TransformJet& jet, int n) {
  BeamFrame f;
  f.R = jet.T.block<3, 3>(0, 0);
  for (int p = 0; p < n; ++p)
    if (!jet.d[p].isZero(0.0)) f.upstream.push_back(p);
  const int m = static_cast<int>(f.upstream.size());
  f.origin.resize(3, m);
  f.axis.resize(3, m);
  f.angular.resize(3, m);
  for (int k = 0; k < m; ++k) {
    const Mat4& d = jet.d[f.upstream[k]];
    f.origin.col(k) = d.block<3, 1>(0, 3);
    f.axis.col(k) = d.block<3, 1>(0, 0);
    f.angular.col(k) = AngularJacobianColumn(jet.T, d);
  }
  return f;
}

// The global DOF of each of an element's 12 local DOFs (−1 at the clamped root).
std::array<int, 12> ElementDofs(const Beam& beam, int e) {
  std::array<int, 12> dofs;
  for (int c = 0; c < 6; ++c) {
    dofs[c] = beam.Dof(e, c);
    dofs[6 + c] = beam.Dof(e + 1, c);
  }
  return dofs;
}

// Distributed inertia and own weight: Gauss quadrature of ρA·JᵀJ + J_ωᵀ(R I_ρ Rᵀ)J_ω and of
// −ρA gᵀ∂²p along each element, J = [upstream: ∂T/∂q·x̄ | beam: R·N(x)] at the undeformed axis.
void AddInertia(const Model& model, const Beam& beam, const TransformJet& jet, Posture* posture) {
  const int n = posture->n;
  const BeamFrame f = FrameOf(jet, n);
  const int m = static_cast<int>(f.upstream.size());
  const BeamSection& s = beam.section;
  const double rho_a = beam.density_kg_m3 * s.area_m2;
  // Rotary inertia per length: the polar part always (torsion), the sections' bending rotary
  // inertia only in Timoshenko theory (Euler–Bernoulli neglects it).
  const double rotary = beam.theory == BeamTheory::kTimoshenko ? 1.0 : 0.0;
  const Eigen::Vector3d inertia_local = beam.density_kg_m3 *
      Eigen::Vector3d(s.iy_m4 + s.iz_m4, rotary * s.iy_m4, rotary * s.iz_m4);
  const Eigen::Matrix3d inertia = f.R * inertia_local.asDiagonal() * f.R.transpose();
  const Eigen::Vector3d& g = model.gravity_m_s2;
  // Active columns: upstream coordinates then the element's 12 local DOFs.
  Eigen::Matrix3Xd J(3, m + 12), Jw(3, m + 12);
  for (int e = 0; e < beam.num_nodes(); ++e) {
    const double xa = beam.NodeX(e), l = beam.NodeX(e + 1) - xa;
    double phi_xy, phi_xz;
    ShearParameters(beam, l, &phi_xy, &phi_xz);
    const std::array<int, 12> dofs = ElementDofs(beam, e);
    std::vector<int> columns(f.upstream);
    for (int i = 0; i < 12; ++i) columns.push_back(dofs[i]);
    Eigen::MatrixXd Me = Eigen::MatrixXd::Zero(m + 12, m + 12);
    Eigen::MatrixXd Ge = Eigen::MatrixXd::Zero(m, 12);  // gravity q–ū
    for (size_t gp = 0; gp < kGaussPoints.size(); ++gp) {
      const double xi = kGaussPoints[gp], w = kGaussWeights[gp] * l, x = xa + xi * l;
      const BeamShape shape = BeamShapeAt(l, xi, phi_xy, phi_xz);
      J.leftCols(m) = f.origin + x * f.axis;
      J.rightCols(12) = f.R * shape.translation;
      Jw.leftCols(m) = f.angular;
      Jw.rightCols(12) = f.R * shape.rotation;
      Me += w * (rho_a * J.transpose() * J + Jw.transpose() * inertia * Jw);
      for (int k = 0; k < m; ++k) {
        const Eigen::Matrix3d dR = jet.d[f.upstream[k]].block<3, 3>(0, 0);
        Ge.row(k) -= w * rho_a * (g.transpose() * dR * shape.translation);
      }
    }
    for (int a = 0; a < m + 12; ++a)
      for (int b = 0; b < m + 12; ++b)
        if (columns[a] >= 0 && columns[b] >= 0) posture->mass(columns[a], columns[b]) += Me(a, b);
    for (int k = 0; k < m; ++k)
      for (int i = 0; i < 12; ++i)
        if (dofs[i] >= 0) {
          posture->gravity_stiffness(f.upstream[k], dofs[i]) += Ge(k, i);
          posture->gravity_stiffness(dofs[i], f.upstream[k]) += Ge(k, i);
        }
  }
  // q–q: the beam's weight as a rigid body, −gᵀ∂²T/∂q∂q·∫ρA x̄ dx.
  const Eigen::Vector4d first_moment(rho_a * beam.length_m * beam.length_m / 2.0, 0.0, 0.0,
                                     rho_a * beam.length_m);
  for (int p : f.upstream)
    for (int r : f.upstream)
      posture->gravity_stiffness(p, r) -= g.dot(jet.dd[p * n + r].block<3, 4>(0, 0) * first_moment);
}

// K_E and K_G: the strain energy per unit E (axial, bending) and per unit G (torsion, shear) in
// the beam's coordinates, by Gauss quadrature of the element's strain rows.
void StiffnessParts(const Beam& beam, int n, Eigen::MatrixXd* ke, Eigen::MatrixXd* kg) {
  *ke = Eigen::MatrixXd::Zero(n, n);
  *kg = Eigen::MatrixXd::Zero(n, n);
  const BeamSection& s = beam.section;
  const double kappa_a = beam.theory == BeamTheory::kTimoshenko ? s.shear_coefficient * s.area_m2 : 0.0;
  for (int e = 0; e < beam.num_nodes(); ++e) {
    const double l = beam.NodeX(e + 1) - beam.NodeX(e);
    double phi_xy, phi_xz;
    ShearParameters(beam, l, &phi_xy, &phi_xz);
    Eigen::Matrix<double, 12, 12> le = Eigen::Matrix<double, 12, 12>::Zero(), lg = le;
    for (size_t gp = 0; gp < kGaussPoints.size(); ++gp) {
      const double w = kGaussWeights[gp] * l;
      const BeamShape sh = BeamShapeAt(l, kGaussPoints[gp], phi_xy, phi_xz);
      le += w * (s.area_m2 * sh.axial.transpose() * sh.axial +
                 s.iz_m4 * sh.curvature_z.transpose() * sh.curvature_z +
                 s.iy_m4 * sh.curvature_y.transpose() * sh.curvature_y);
      lg += w * (s.torsion_m4 * sh.twist.transpose() * sh.twist +
                 kappa_a * (sh.shear_y.transpose() * sh.shear_y + sh.shear_z.transpose() * sh.shear_z));
    }
    const std::array<int, 12> dofs = ElementDofs(beam, e);
    for (int a = 0; a < 12; ++a)
      for (int b = 0; b < 12; ++b)
        if (dofs[a] >= 0 && dofs[b] >= 0) {
          (*ke)(dofs[a], dofs[b]) += le(a, b);
          (*kg)(dofs[a], dofs[b]) += lg(a, b);
        }
  }
}

}  // namespace

void AddBeams(const Model& model, const std::vector<TransformJet>& frames, Posture* posture) {
  using T = AffinePart::Target;
  for (const Beam& beam : model.beams) {
    AddInertia(model, beam, frames[beam.frame], posture);
    Eigen::MatrixXd ke, kg;
    StiffnessParts(beam, posture->n, &ke, &kg);
    auto add = [&](T target, int coefficient, const Eigen::MatrixXd& matrix) {
      if (coefficient >= 0) posture->affine_parts.push_back({target, coefficient, matrix});
    };
    add(T::kStiffness, beam.part_e, ke);
    add(T::kStiffness, beam.part_g, kg);
    add(T::kLossStiffness, beam.part_loss_e, ke);
    add(T::kLossStiffness, beam.part_loss_g, kg);
    add(T::kDamping, beam.part_beta_e, ke);
    add(T::kDamping, beam.part_beta_g, kg);
  }
}

}  // namespace frfit
