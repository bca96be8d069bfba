#include "frfit/modal/modal.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <functional>

namespace frfit {

std::vector<Mode> ComputeModes(const Posture& posture, const JointCoefficients& coefficients) {
  return AnalyseModes(posture, coefficients).modes;
}

ModalAnalysis AnalyseModes(const Posture& posture, const JointCoefficients& coefficients) {
  const int n = posture.n;
  using Cplx = std::complex<double>;
  const Eigen::MatrixXcd M = posture.mass.cast<Cplx>();
  const Eigen::MatrixXcd K = TangentStiffness(posture, coefficients);
  const Eigen::MatrixXcd C = TangentDamping(posture, coefficients).cast<Cplx>();
  // First-order form of Eq. 18–19 as a standard eigenproblem: ẋ = A x, x = [Δq; Δq̇].
  const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(M);
  Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(2 * n, 2 * n);
  A.topRightCorner(n, n).setIdentity();
  A.bottomLeftCorner(n, n) = -lu.solve(K);
  A.bottomRightCorner(n, n) = -lu.solve(C);
  const Eigen::ComplexEigenSolver<Eigen::MatrixXcd> solver(A);

  ModalAnalysis out;
  std::vector<Mode>& modes = out.modes;
  for (int k = 0; k < 2 * n; ++k) {
    const Cplx lambda = solver.eigenvalues()(k);
    if (!(std::abs(lambda.imag()) > 1e-9 * std::abs(lambda)))
      out.real_eigenvalues.push_back(lambda.real());
    if (!(lambda.imag() > 1e-9 * std::abs(lambda))) continue;
    Mode mode;
    mode.eigenvalue = lambda;
    mode.frequency_hz = lambda.imag() / (2.0 * M_PI);
    mode.damping_ratio = -lambda.real() / std::abs(lambda);
    Eigen::VectorXcd shape = solver.eigenvectors().col(k).head(n);
    Eigen::Index largest;
    shape.cwiseAbs().maxCoeff(&largest);
    shape /= shape(largest);
    mode.shape = shape;
    mode.sensor_shape = posture.sensor_basis.transpose().cast<Cplx>() * shape;
    modes.push_back(std::move(mode));
  }
  std::sort(modes.begin(), modes.end(),
            [](const Mode& a, const Mode& b) { return a.frequency_hz < b.frequency_hz; });
  std::sort(out.real_eigenvalues.begin(), out.real_eigenvalues.end(), std::greater<double>());
  return out;
}

Eigen::MatrixXd Mac(const std::vector<Eigen::VectorXcd>& a,
                    const std::vector<Eigen::VectorXcd>& b) {
  Eigen::MatrixXd mac(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      const double cross = std::norm(a[i].dot(b[j]));  // dot conjugates its first argument
      mac(i, j) = cross / (a[i].squaredNorm() * b[j].squaredNorm());
    }
  return mac;
}

}  // namespace frfit
