// Modal analysis of a linearised posture (paper Eqs. 18–20) and the modal assurance criterion.
#pragma once

#include <Eigen/Core>
#include <complex>
#include <vector>

#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/posture.h"

namespace frfit {

struct Mode {
  std::complex<double> eigenvalue;  // λ of the first-order pencil, Im λ > 0
  double frequency_hz = 0.0;        // Im λ / 2π (Eq. 20: the damped natural frequency)
  double damping_ratio = 0.0;       // −Re λ / |λ|, a fraction (0.0189 for 1.89 %)
  Eigen::VectorXcd shape;           // joint-space mode shape, largest entry scaled to 1
  // The same mode seen at the sensor, in sensor axes (Bᵀ·shape); for the modes of a multi-point
  // set, at its response point in that frame's axes (SeeShapesAt).
  Eigen::Vector3cd sensor_shape;
};

// Sets every mode's sensor_shape to the mode seen through `basis` (n×3, a measurement point's
// B = J_fᵀR_0,f): basisᵀ·shape, as ComputeModes does with the sensor's basis.
void SeeShapesAt(const Eigen::MatrixXd& basis, std::vector<Mode>* modes);

// Oscillating modes sorted by frequency; overdamped (real) eigenvalues and near-critical pairs
// (damping ratio ≥ kNearCriticalDamping) are left out.
std::vector<Mode> ComputeModes(const Posture& posture, const JointCoefficients& coefficients);

// Damping ratio from which a complex pair is near-critical rather than a mode.
inline constexpr double kNearCriticalDamping = 0.99;

// The whole eigenvalue picture: the oscillating modes (as ComputeModes), and the real eigenvalues
// of the 2n of the pencil, which belong to no mode — an overdamped DOF gives two, sorted from the
// slowest decay. n − modes.size() DOFs do not oscillate (rigid-body motions aside).
struct ModalAnalysis {
  std::vector<Mode> modes;
  std::vector<double> real_eigenvalues;  // 1/s
  int rigid_body_eigenvalues = 0;         // λ ≈ 0: two per rigid-body motion (a free base)
  // Complex pairs (Im λ > 0 listed) with damping ratio ≥ kNearCriticalDamping: one DOF each that
  // does not oscillate either, kept out of `modes` (docs/decisions.md), sorted by Im λ.
  std::vector<std::complex<double>> near_critical;
};
ModalAnalysis AnalyseModes(const Posture& posture, const JointCoefficients& coefficients);

// ∂(frequency_hz)/∂(joint coefficients) of every mode ComputeModes returns, in its order, packed
// [mode][3n + 1 + masses + parts] in the packed coefficient order (stiffness, viscous,
// hysteretic, mass-proportional α, fitted masses, affine parts): first-order eigenvalue perturbation
// with the left eigenvectors, exact for simple eigenvalues (chain with CoefficientJacobian for
// parameters).
std::vector<double> ModeFrequencyDerivatives(const Posture& posture,
                                             const JointCoefficients& coefficients);
// The same for the eigenvalue λ itself (complex), packed alike: what the damping ratio's
// derivative needs besides the frequency's.
std::vector<std::complex<double>> ModeEigenvalueDerivatives(const Posture& posture,
                                                            const JointCoefficients& coefficients);

// ∂(Mode::shape)/∂(joint coefficients) of every mode ComputeModes returns, in its order: one
// n×(3n + 1 + masses + parts) matrix per mode, columns in the packed coefficient order, the
// derivative of the shape exactly as ComputeModes scales it (largest entry 1). By modal expansion
// over all 2n eigenvectors of the first-order pencil (complete for simple eigenvalues, so exact,
// not truncated): dv_k = Σ_(m≠k) (w_m dA v_k)/(λ_k − λ_m) v_m, then the scaling's own derivative.
std::vector<Eigen::MatrixXcd> ModeShapeDerivatives(const Posture& posture,
                                                   const JointCoefficients& coefficients);

// MAC(a_i, b_j) = |a_iᴴ b_j|² / ((a_iᴴ a_i)(b_jᴴ b_j)), rows a, columns b.
Eigen::MatrixXd Mac(const std::vector<Eigen::VectorXcd>& a, const std::vector<Eigen::VectorXcd>& b);

}  // namespace frfit
