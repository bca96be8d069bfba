#include "tool_tip_receptance.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace frfit {

using Cplx = std::complex<double>;

ToolTipReceptance::ToolTipReceptance(const Posture& posture, const JointCoefficients& coefficients) {
  const int n = posture.n;
  const Eigen::MatrixXcd M = MassMatrix(posture, coefficients).cast<Cplx>();
  const Eigen::PartialPivLU<Eigen::MatrixXcd> mass_lu(M);
  Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(2 * n, 2 * n);
  A.topRightCorner(n, n).setIdentity();
  A.bottomLeftCorner(n, n) = -mass_lu.solve(TangentStiffness(posture, coefficients));
  A.bottomRightCorner(n, n) = -mass_lu.solve(TangentDamping(posture, coefficients).cast<Cplx>());
  const Eigen::ComplexEigenSolver<Eigen::MatrixXcd> solver(A);
  lambda_ = solver.eigenvalues();
  const Eigen::MatrixXcd& V = solver.eigenvectors();
  const Eigen::MatrixXcd B = posture.sensor_basis.cast<Cplx>();  // n×3
  left_ = B.transpose() * V.topRows(n);
  Eigen::MatrixXcd input = Eigen::MatrixXcd::Zero(2 * n, 3);
  input.bottomRows(n) = mass_lu.solve(B);
  right_ = V.partialPivLu().solve(input);
}

Eigen::Matrix3cd ToolTipReceptance::At(double frequency_hz) const {
  const double omega = 2.0 * M_PI * frequency_hz;
  Eigen::Matrix3cd h = Eigen::Matrix3cd::Zero();
  for (int r = 0; r < lambda_.size(); ++r) {
    const Cplx pole = Pole(r, omega);
    for (int j = 0; j < 3; ++j) {
      const Cplx scaled = right_(r, j) * pole;
      for (int i = 0; i < 3; ++i) h(i, j) += left_(i, r) * scaled;
    }
  }
  return h;
}

double ToolTipReceptance::DiagonalNorm(int i, double frequency_hz) const {
  const double omega = 2.0 * M_PI * frequency_hz;
  Cplx h = 0.0;
  for (int r = 0; r < lambda_.size(); ++r) h += left_(i, r) * right_(r, i) * Pole(r, omega);
  return std::norm(h);
}

double ToolTipReceptance::LargestSingularValueSquared(double frequency_hz) const {
  const Eigen::Matrix3cd h = At(frequency_hz);
  const Eigen::Matrix3cd gram = h.adjoint() * h;
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3cd>(gram, Eigen::EigenvaluesOnly).eigenvalues()(2);
}

double PeakFrequency(const std::function<double(double)>& magnitude, double low_hz, double high_hz,
                     int scan) {
  // The scan finds the peak's neighbourhood (a bracket may hold two close modes); golden section
  // then refines within one scan step either side, where the peak is the only maximum.
  double best = low_hz, best_value = magnitude(low_hz);
  const double step = (high_hz - low_hz) / scan;
  for (int k = 1; k <= scan; ++k) {
    const double f = low_hz + k * step, value = magnitude(f);
    if (value > best_value) best = f, best_value = value;
  }
  double a = std::max(low_hz, best - step), b = std::min(high_hz, best + step);
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = magnitude(c), fd = magnitude(d);
  while (b - a > 1e-9 * (high_hz - low_hz)) {
    if (fc > fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a), fc = magnitude(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a), fd = magnitude(d);
    }
  }
  const double refined = 0.5 * (a + b);
  return magnitude(refined) >= best_value ? refined : best;
}

}  // namespace frfit
