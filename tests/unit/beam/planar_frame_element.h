// A textbook planar frame element, written independently of src/beam/ for the tests that check
// beam models against a dense assembly: Euler–Bernoulli axial and bending stiffness with the
// consistent mass, in global (u, v, θ) at its two nodes.
#pragma once

#include <Eigen/Dense>
#include <cmath>

namespace frfit::test {

struct PlanarSection {
  double e;    // Pa
  double a;    // m²
  double i;    // m⁴, about the axis normal to the plane
  double rho;  // kg/m³
};

// Adds the element from node `a` to node `b` (length l, its axis at `angle` from global x) to the
// global matrices *m and *k, three rows (u, v, θ) per node.
inline void AddPlanarFrameElement(int a, int b, double l, double angle, const PlanarSection& s,
                                  Eigen::MatrixXd* m, Eigen::MatrixXd* k) {
  const double ea = s.e * s.a / l, ei = s.e * s.i, rho_a = s.rho * s.a;
  Eigen::Matrix<double, 6, 6> kl = Eigen::Matrix<double, 6, 6>::Zero(), ml = kl;
  kl(0, 0) = kl(3, 3) = ea;
  kl(0, 3) = kl(3, 0) = -ea;
  const int bend[4] = {1, 2, 4, 5};
  const double kb[4][4] = {{12, 6 * l, -12, 6 * l}, {6 * l, 4 * l * l, -6 * l, 2 * l * l},
                           {-12, -6 * l, 12, -6 * l}, {6 * l, 2 * l * l, -6 * l, 4 * l * l}};
  const double mb[4][4] = {{156, 22 * l, 54, -13 * l}, {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l}, {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      kl(bend[r], bend[c]) = ei / (l * l * l) * kb[r][c];
      ml(bend[r], bend[c]) = rho_a * l / 420.0 * mb[r][c];
    }
  ml(0, 0) = ml(3, 3) = rho_a * l / 3.0;
  ml(0, 3) = ml(3, 0) = rho_a * l / 6.0;
  Eigen::Matrix<double, 6, 6> t = Eigen::Matrix<double, 6, 6>::Zero();
  const double c = std::cos(angle), sn = std::sin(angle);
  for (int h = 0; h < 2; ++h) {
    t(3 * h, 3 * h) = c, t(3 * h, 3 * h + 1) = sn;
    t(3 * h + 1, 3 * h) = -sn, t(3 * h + 1, 3 * h + 1) = c;
    t(3 * h + 2, 3 * h + 2) = 1.0;
  }
  const Eigen::Matrix<double, 6, 6> kg = t.transpose() * kl * t, mg = t.transpose() * ml * t;
  const int dofs[6] = {3 * a, 3 * a + 1, 3 * a + 2, 3 * b, 3 * b + 1, 3 * b + 2};
  for (int r = 0; r < 6; ++r)
    for (int q = 0; q < 6; ++q) (*k)(dofs[r], dofs[q]) += kg(r, q), (*m)(dofs[r], dofs[q]) += mg(r, q);
}

}  // namespace frfit::test
