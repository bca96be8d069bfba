// The planar four-bar of the closed-chain tests (crank 0.1 m, coupler 0.35 m, rocker 0.25 m,
// ground pivots 0.4 m apart, each link a uniform rod) as a one-DOF Lagrangian in the crank angle:
// the rocker's angle from the loop's closure by this file's Newton, the mass and gravity's
// stiffness from numerical derivatives of the links' positions along the mechanism's motion.
#pragma once

#include <Eigen/Dense>
#include <cmath>

namespace frfit::four_bar_reference {

constexpr double kCrank = 0.1, kCoupler = 0.35, kRocker = 0.25, kGround = 0.4;

// The rocker's and the coupler's absolute angles at crank angle phi, by Newton from psi.
inline void Close(double phi, double* psi, double* gamma) {
  const Eigen::Vector2d C(kCrank * std::cos(phi), kCrank * std::sin(phi));
  for (int it = 0; it < 50; ++it) {
    const Eigen::Vector2d R(kGround + kRocker * std::cos(*psi), kRocker * std::sin(*psi));
    const Eigen::Vector2d dR(-kRocker * std::sin(*psi), kRocker * std::cos(*psi));
    const double f = (R - C).squaredNorm() - kCoupler * kCoupler;
    *psi -= f / (2.0 * (R - C).dot(dR));
    if (std::abs(f) < 1e-16) break;
  }
  const Eigen::Vector2d R(kGround + kRocker * std::cos(*psi), kRocker * std::sin(*psi));
  *gamma = std::atan2(R.y() - C.y(), R.x() - C.x());
}

// Heights and coupler centre of the links at crank angle phi: {crank y, coupler x, coupler y,
// rocker y, gamma, psi}.
inline Eigen::Matrix<double, 6, 1> Links(double phi, double psi) {
  double gamma;
  Close(phi, &psi, &gamma);
  Eigen::Matrix<double, 6, 1> out;
  out << 0.5 * kCrank * std::sin(phi),
      kCrank * std::cos(phi) + 0.5 * kCoupler * std::cos(gamma),
      kCrank * std::sin(phi) + 0.5 * kCoupler * std::sin(gamma), 0.5 * kRocker * std::sin(psi),
      gamma, psi;
  return out;
}

// The one-DOF mass and gravity stiffness at crank angle phi (psi: near the rocker's angle, the
// branch) with link masses m1, m2, m3 under gravity g along −y.
struct OneDof {
  double M, K_gravity;
};
inline OneDof Lagrangian(double phi, double psi, double m1, double m2, double m3, double g) {
  // Mass: Σ m v² + I ω² per unit crank rate, velocities by central differences.
  const double h = 1e-6;
  const Eigen::Matrix<double, 6, 1> d = (Links(phi + h, psi) - Links(phi - h, psi)) / (2.0 * h);
  OneDof out;
  out.M = m1 * kCrank * kCrank / 3.0 + m2 * (d(1) * d(1) + d(2) * d(2)) +
          m2 * kCoupler * kCoupler / 12.0 * d(4) * d(4) + m3 * kRocker * kRocker / 3.0 * d(5) * d(5);
  // Gravity: m g y summed, second derivative along the crank angle.
  auto U = [&](double p) {
    const Eigen::Matrix<double, 6, 1> l = Links(p, psi);
    return g * (m1 * l(0) + m2 * l(2) + m3 * l(3));
  };
  const double H = 1e-4;
  out.K_gravity = (U(phi + H) - 2.0 * U(phi) + U(phi - H)) / (H * H);
  return out;
}

}  // namespace frfit::four_bar_reference
