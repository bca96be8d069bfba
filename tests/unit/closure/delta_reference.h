// The Delta robot of datasets/delta computed from the geometry alone, for the tests of
// closed chains: the arms' angles from the platform centre in closed form (each arm's circle
// meets the sphere of its parallelogram), the platform from the three closure equations by this
// file's own Newton, and the 3-DOF Lagrangian in the arm rotations — the mass matrix from the
// implicit Jacobian of the platform position, the gravity stiffness from numerical second
// derivatives of the potential on the constraint manifold — and the FRF and modes it gives.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <vector>

namespace frfit::delta_reference {

constexpr double kPi = 3.14159265358979323846;
constexpr double kBase = 0.30, kArm = 0.75, kBar = 0.95, kPlatform = 0.10;
constexpr double kArmMass = 4.0, kArmInertia = 0.75, kPlatformMass = 6.64, kG = 9.81;

inline Eigen::Vector3d U(int i) {
  const double phi = 2.0 * kPi * i / 3.0;
  return {std::cos(phi), std::sin(phi), 0.0};
}
inline Eigen::Vector3d Elbow(int i, double angle) {
  return kBase * U(i) + kArm * (std::cos(angle) * U(i) - std::sin(angle) * Eigen::Vector3d::UnitZ());
}
inline Eigen::Vector3d dElbow(int i, double angle) {
  return kArm * (-std::sin(angle) * U(i) - std::cos(angle) * Eigen::Vector3d::UnitZ());
}

// The arm angle (below the horizontal) that reaches platform centre E with the elbow outward:
// of the two solutions of |elbow(θ) − P_i| = L, the one whose elbow lies farther from the axis.
inline double ArmAngle(int i, const Eigen::Vector3d& E) {
  const Eigen::Vector3d w = E + kPlatform * U(i) - kBase * U(i);
  const double wu = w.dot(U(i)), wz = w.z();
  const double K = (kArm * kArm + w.squaredNorm() - kBar * kBar) / (2.0 * kArm);
  const double R = std::hypot(wu, wz), alpha = std::atan2(wz, wu);
  const double a = std::acos(K / R);
  const double t1 = a - alpha, t2 = -a - alpha;
  return Elbow(i, t1).dot(U(i)) > Elbow(i, t2).dot(U(i)) ? t1 : t2;
}

// The platform centre closing the three loops at arm angles t, by Newton from E0.
inline Eigen::Vector3d Platform(const std::array<double, 3>& t, Eigen::Vector3d E) {
  for (int it = 0; it < 50; ++it) {
    Eigen::Vector3d f;
    Eigen::Matrix3d J;
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d d = Elbow(i, t[i]) - E - kPlatform * U(i);
      f(i) = d.squaredNorm() - kBar * kBar;
      J.row(i) = -2.0 * d.transpose();
    }
    E -= J.partialPivLu().solve(f);
    if (f.cwiseAbs().maxCoeff() < 1e-15) break;
  }
  return E;
}

// ∂E/∂a = −(∂f/∂E)⁻¹ ∂f/∂a with f_i = |elbow_i − E − 0.1 u_i|² − L²: the platform centre's
// (the sensor's) Jacobian in the arm rotations.
inline Eigen::Matrix3d PlatformJacobian(const Eigen::Vector3d& E) {
  Eigen::Matrix3d fE, fa = Eigen::Matrix3d::Zero();
  for (int i = 0; i < 3; ++i) {
    const double t = ArmAngle(i, E);
    const Eigen::Vector3d d = Elbow(i, t) - E - kPlatform * U(i);
    fE.row(i) = -2.0 * d.transpose();
    fa(i, i) = 2.0 * d.dot(dElbow(i, t));
  }
  return -fE.inverse() * fa;
}

struct Lagrangian {
  Eigen::Matrix3d M, K_gravity;
  Eigen::Matrix3d JE;  // the platform centre's Jacobian
};

// The Lagrangian at platform centre E with the platform's mass `platform_kg`.
inline Lagrangian Independent(const Eigen::Vector3d& E, double platform_kg = kPlatformMass) {
  std::array<double, 3> t;
  for (int i = 0; i < 3; ++i) t[i] = ArmAngle(i, E);
  Lagrangian out;
  out.JE = PlatformJacobian(E);
  out.M = kArmInertia * Eigen::Matrix3d::Identity() + platform_kg * out.JE.transpose() * out.JE;
  // Potential m g z: the arms' analytically, the platform's by central differences of E_z(a).
  auto platform_z = [&](const Eigen::Vector3d& a) {
    std::array<double, 3> ta{t[0] + a(0), t[1] + a(1), t[2] + a(2)};
    return Platform(ta, E).z();
  };
  const double h = 1e-4;
  for (int p = 0; p < 3; ++p)
    for (int r = 0; r < 3; ++r) {
      Eigen::Vector3d ep = Eigen::Vector3d::Unit(p) * h, er = Eigen::Vector3d::Unit(r) * h;
      const double d2 = (platform_z(ep + er) - platform_z(ep - er) - platform_z(-ep + er) +
                         platform_z(-ep - er)) / (4.0 * h * h);
      out.K_gravity(p, r) = platform_kg * kG * d2;
    }
  for (int i = 0; i < 3; ++i) out.K_gravity(i, i) += kArmMass * kG * 0.5 * kArm * std::sin(t[i]);
  return out;
}

// K = K_gravity + diag(k), C = diag(d).
inline Eigen::Matrix3d Stiffness(const Lagrangian& l, const std::array<double, 3>& k) {
  Eigen::Matrix3d K = l.K_gravity;
  for (int i = 0; i < 3; ++i) K(i, i) += k[i];
  return K;
}

// The platform centre's receptance (m/N, base axes) at f Hz: J_E (K − ω²M + iωC)⁻¹ J_Eᵀ.
inline Eigen::Matrix3cd Receptance(const Lagrangian& l, const std::array<double, 3>& k,
                                   const std::array<double, 3>& d, double f) {
  const double w = 2.0 * kPi * f;
  Eigen::Matrix3cd Z = (Stiffness(l, k) - w * w * l.M).cast<std::complex<double>>();
  for (int i = 0; i < 3; ++i) Z(i, i) += std::complex<double>(0.0, w * d[i]);
  const Eigen::Matrix3cd JE = l.JE.cast<std::complex<double>>();
  return JE * Z.inverse() * JE.transpose();
}

struct ReferenceMode {
  double frequency_hz, damping_ratio;
};
// The damped modes (Im λ/2π, −Re λ/|λ|) of M ẍ + C ẋ + K x = 0 by the first-order form,
// ascending.
inline std::vector<ReferenceMode> Modes(const Lagrangian& l, const std::array<double, 3>& k,
                                        const std::array<double, 3>& d) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(6, 6);
  const Eigen::Matrix3d Minv = l.M.inverse();
  A.topRightCorner(3, 3) = Eigen::Matrix3d::Identity();
  A.bottomLeftCorner(3, 3) = -Minv * Stiffness(l, k);
  Eigen::Matrix3d C = Eigen::Matrix3d::Zero();
  for (int i = 0; i < 3; ++i) C(i, i) = d[i];
  A.bottomRightCorner(3, 3) = -Minv * C;
  std::vector<ReferenceMode> out;
  const Eigen::VectorXcd lambda = Eigen::EigenSolver<Eigen::MatrixXd>(A).eigenvalues();
  for (int j = 0; j < 6; ++j)
    if (lambda(j).imag() > 0.0)
      out.push_back({lambda(j).imag() / (2.0 * kPi), -lambda(j).real() / std::abs(lambda(j))});
  std::sort(out.begin(), out.end(),
            [](const ReferenceMode& a, const ReferenceMode& b) { return a.frequency_hz < b.frequency_hz; });
  return out;
}

}  // namespace frfit::delta_reference
