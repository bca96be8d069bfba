// The tool tip's receptance at one posture in modal form, for evaluating it at many frequencies:
// H(ω) = Bᵀ(−ω²M + iωC + K)⁻¹B = L·diag(1/(iω − λ_r))·R over the 2n eigenvalues of the
// first-order form ẋ = A x (x = [Δq; Δq̇]), L = [Bᵀ 0]·V, R = V⁻¹·[0; M⁻¹B]. One eigensolution per
// posture, then 2n complex terms per entry and frequency (a direct solve is an n×n LU per
// frequency); exact while the eigenvalues are distinct, which the modal analysis assumes too.
#pragma once

#include <Eigen/Dense>
#include <complex>
#include <functional>

#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/posture.h"

namespace frfit {

class ToolTipReceptance {
 public:
  ToolTipReceptance(const Posture& posture, const JointCoefficients& coefficients);
  // H(ω) in m/N, sensor axes, at ω = 2π·frequency_hz.
  Eigen::Matrix3cd At(double frequency_hz) const;
  // |H_ii(ω)|² alone, the inner loop of the stiffness search (no square root, no full matrix).
  double DiagonalNorm(int i, double frequency_hz) const;
  // σ_max(H(ω))², the largest eigenvalue of HᴴH.
  double LargestSingularValueSquared(double frequency_hz) const;
  const Eigen::VectorXcd& eigenvalues() const { return lambda_; }

 private:
  Eigen::VectorXcd lambda_;
  Eigen::Matrix<std::complex<double>, 3, Eigen::Dynamic> left_;
  Eigen::Matrix<std::complex<double>, Eigen::Dynamic, 3> right_;
  // 1/(s − λ_r) for s = iω, written out: std::complex's division guards against infinities
  // (__divdc3) at several times the cost, and λ_r is never on the imaginary axis of a damped
  // structure.
  std::complex<double> Pole(int r, double omega) const {
    const double re = -lambda_(r).real(), im = omega - lambda_(r).imag();
    const double scale = 1.0 / (re * re + im * im);
    return {re * scale, -im * scale};
  }
};

// The frequency in [low_hz, high_hz] where `magnitude` is largest, found by a scan of `scan`
// points and golden-section refinement around the best (to 1e-9 of the bracket).
double PeakFrequency(const std::function<double(double)>& magnitude, double low_hz, double high_hz,
                     int scan = 48);

}  // namespace frfit
