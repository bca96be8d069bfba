#include "frfit/model/beam.h"

#include <algorithm>
#include <cmath>

namespace frfit {

const std::array<double, 4> kGaussPoints = {
    0.5 - 0.5 * 0.8611363115940526, 0.5 - 0.5 * 0.3399810435848563,
    0.5 + 0.5 * 0.3399810435848563, 0.5 + 0.5 * 0.8611363115940526};
const std::array<double, 4> kGaussWeights = {0.5 * 0.3478548451374538, 0.5 * 0.6521451548625461,
                                             0.5 * 0.6521451548625461, 0.5 * 0.3478548451374538};

double RectangleTorsionConstant(double a, double b) {
  if (a < b) std::swap(a, b);
  // J = a b³/3 · (1 − 192 b/(π⁵ a) Σ_{n odd} tanh(nπa/2b)/n⁵); the terms fall as n⁻⁵, so 200
  // of them leave a relative error far below 1e-12.
  double sum = 0.0;
  for (int n = 1; n < 400; n += 2) sum += std::tanh(n * M_PI * a / (2.0 * b)) / std::pow(n, 5);
  return a * b * b * b / 3.0 * (1.0 - 192.0 * b / (std::pow(M_PI, 5) * a) * sum);
}

void ShearParameters(const Beam& beam, double l, double* phi_xy, double* phi_xz) {
  *phi_xy = *phi_xz = 0.0;
  if (beam.theory != BeamTheory::kTimoshenko) return;
  const BeamSection& s = beam.section;
  const double kga = s.shear_coefficient * beam.shear_modulus_pa * s.area_m2;
  const double e = beam.youngs_modulus.initial;
  *phi_xy = 12.0 * e * s.iz_m4 / (kga * l * l);
  *phi_xz = 12.0 * e * s.iy_m4 / (kga * l * l);
}

namespace {

// One bending plane: deflection w and section rotation ψ (ψ = w' for Euler–Bernoulli) from the
// nodal (w_a, ψ_a, w_b, ψ_b), and their derivatives along the axis (per metre).
struct PlaneShape {
  double w[4], dw[4], psi[4], dpsi[4];
};

PlaneShape Plane(double l, double x, double phi) {
  const double m = 1.0 / (1.0 + phi), x2 = x * x, x3 = x2 * x;
  PlaneShape p;
  p.w[0] = m * (1.0 - 3.0 * x2 + 2.0 * x3 + phi * (1.0 - x));
  p.w[1] = m * l * (x - 2.0 * x2 + x3 + 0.5 * phi * (x - x2));
  p.w[2] = m * (3.0 * x2 - 2.0 * x3 + phi * x);
  p.w[3] = m * l * (-x2 + x3 - 0.5 * phi * (x - x2));
  p.dw[0] = m * (-6.0 * x + 6.0 * x2 - phi) / l;
  p.dw[1] = m * (1.0 - 4.0 * x + 3.0 * x2 + 0.5 * phi * (1.0 - 2.0 * x));
  p.dw[2] = m * (6.0 * x - 6.0 * x2 + phi) / l;
  p.dw[3] = m * (-2.0 * x + 3.0 * x2 - 0.5 * phi * (1.0 - 2.0 * x));
  p.psi[0] = m * 6.0 / l * (x2 - x);
  p.psi[1] = m * (1.0 - 4.0 * x + 3.0 * x2 + phi * (1.0 - x));
  p.psi[2] = m * 6.0 / l * (x - x2);
  p.psi[3] = m * (-2.0 * x + 3.0 * x2 + phi * x);
  p.dpsi[0] = m * 6.0 / (l * l) * (2.0 * x - 1.0);
  p.dpsi[1] = m * (-4.0 + 6.0 * x - phi) / l;
  p.dpsi[2] = m * 6.0 / (l * l) * (1.0 - 2.0 * x);
  p.dpsi[3] = m * (-2.0 + 6.0 * x + phi) / l;
  return p;
}

}  // namespace

BeamShape BeamShapeAt(double l, double xi, double phi_xy, double phi_xz) {
  BeamShape s;
  s.translation.setZero();
  s.rotation.setZero();
  s.axial.setZero();
  s.twist.setZero();
  s.curvature_y.setZero();
  s.curvature_z.setZero();
  s.shear_y.setZero();
  s.shear_z.setZero();
  enum { kUx, kUy, kUz, kRx, kRy, kRz };
  const int node[2] = {0, 6};
  // Axial and torsion: linear.
  for (int k = 0; k < 2; ++k) {
    const double n = k == 0 ? 1.0 - xi : xi, dn = (k == 0 ? -1.0 : 1.0) / l;
    s.translation(0, node[k] + kUx) = n;
    s.axial(node[k] + kUx) = dn;
    s.rotation(0, node[k] + kRx) = n;
    s.twist(node[k] + kRx) = dn;
  }
  // x–y plane: w = u_y, ψ = θ_z.  x–z plane: w = u_z, ψ = −θ_y (a positive θ_y tilts the axis
  // towards −z), so the θ_y columns take the opposite sign and θ_y = −ψ.
  const PlaneShape xy = Plane(l, xi, phi_xy), xz = Plane(l, xi, phi_xz);
  for (int k = 0; k < 2; ++k) {
    const int w = 2 * k, r = 2 * k + 1;  // the plane's nodal (w, ψ) of node k
    const int uy = node[k] + kUy, rz = node[k] + kRz, uz = node[k] + kUz, ry = node[k] + kRy;
    s.translation(1, uy) = xy.w[w];
    s.translation(1, rz) = xy.w[r];
    s.rotation(2, uy) = xy.psi[w];
    s.rotation(2, rz) = xy.psi[r];
    s.curvature_z(uy) = xy.dpsi[w];
    s.curvature_z(rz) = xy.dpsi[r];
    s.shear_y(uy) = xy.dw[w] - xy.psi[w];
    s.shear_y(rz) = xy.dw[r] - xy.psi[r];
    s.translation(2, uz) = xz.w[w];
    s.translation(2, ry) = -xz.w[r];
    s.rotation(1, uz) = -xz.psi[w];
    s.rotation(1, ry) = xz.psi[r];
    s.curvature_y(uz) = xz.dpsi[w];
    s.curvature_y(ry) = -xz.dpsi[r];
    s.shear_z(uz) = xz.dw[w] - xz.psi[w];
    s.shear_z(ry) = -(xz.dw[r] - xz.psi[r]);
  }
  return s;
}

}  // namespace frfit
