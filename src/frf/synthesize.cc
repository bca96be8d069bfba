#include "frfit/frf/synthesize.h"

#include <Eigen/LU>
#include <cmath>
#include <cstdlib>

#include "frfit/common/error.h"

namespace frfit {

std::vector<double> MakeBand(double f0_hz, double f1_hz, double df_hz, const std::string& what) {
  if (!std::isfinite(f0_hz) || !std::isfinite(f1_hz) || !std::isfinite(df_hz))
    throw Error(what, "", "expected finite numbers F0:F1:DF");
  if (f0_hz < 0.0) throw Error(what, "", "expected F0 >= 0 Hz, got " + FormatDouble(f0_hz));
  if (!(df_hz > 0.0)) throw Error(what, "", "expected DF > 0 Hz, got " + FormatDouble(df_hz));
  if (f1_hz < f0_hz)
    throw Error(what, "", "expected a non-empty band F0 <= F1, got " + FormatDouble(f0_hz) +
                                  " > " + FormatDouble(f1_hz));
  const double count = std::floor((f1_hz - f0_hz) / df_hz + 1e-9) + 1.0;
  if (count > 1e7) throw Error(what, "", "expected at most 1e7 lines");
  std::vector<double> lines(static_cast<size_t>(count));
  for (size_t k = 0; k < lines.size(); ++k) lines[k] = f0_hz + static_cast<double>(k) * df_hz;
  return lines;
}

std::vector<double> ParseBand(const std::string& text, const std::string& what) {
  double v[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? text.find(':', start) : text.size();
    if (end == std::string::npos) throw Error(what, "", "expected F0:F1:DF, got '" + text + "'");
    const std::string part = text.substr(start, end - start);
    char* stop = nullptr;
    v[i] = std::strtod(part.c_str(), &stop);
    if (part.empty() || *stop != '\0')
      throw Error(what, "", "expected F0:F1:DF in Hz, got '" + text + "'");
    start = end + 1;
  }
  return MakeBand(v[0], v[1], v[2], what);
}

FrfSet Synthesize(const Posture& posture, const JointCoefficients& coefficients,
                  const std::vector<double>& frequency_hz, FrfFormat format) {
  return Synthesize(posture, coefficients, frequency_hz, format,
                    MeasurementPoints{"", "", posture.sensor_basis, posture.sensor_basis});
}

FrfSet Synthesize(const Posture& posture, const JointCoefficients& coefficients,
                  const std::vector<double>& frequency_hz, FrfFormat format,
                  const MeasurementPoints& points) {
  using Cplx = std::complex<double>;
  const Eigen::MatrixXcd M = MassMatrix(posture, coefficients).cast<Cplx>();
  const Eigen::MatrixXcd K = TangentStiffness(posture, coefficients);
  const Eigen::MatrixXcd C = TangentDamping(posture, coefficients).cast<Cplx>();
  const Eigen::MatrixXcd Ba = points.response_basis.cast<Cplx>();
  const Eigen::MatrixXcd B = points.excitation_basis.cast<Cplx>();
  FrfSet set;
  set.posture = posture.name;
  set.response_frame = points.response_frame;
  set.excitation_frame = points.excitation_frame;
  set.format = format;
  set.frequency_hz = frequency_hz;
  set.present.fill(true);
  set.H.resize(frequency_hz.size() * 9);
  // One dynamic matrix, factorisation and solution for all lines: the same arithmetic as
  // fresh ones per line, without their allocations (a fleet night synthesizes every robot's
  // FRFs at each reweighting and for its results).
  const Eigen::Index n = M.rows();
  Eigen::MatrixXcd Z(n, n), X(n, B.cols());
  Eigen::PartialPivLU<Eigen::MatrixXcd> lu(n);
  for (size_t k = 0; k < frequency_hz.size(); ++k) {
    const double omega = 2.0 * M_PI * frequency_hz[k];
    Z = -omega * omega * M + Cplx(0.0, omega) * C + K;
    lu.compute(Z);
    X = lu.solve(B);
    const Eigen::Matrix3cd H = Ba.transpose() * X;
    const Cplx factor = ConversionFactor(FrfFormat::kReceptance, format, omega);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) set.at(static_cast<int>(k), i, j) = factor * H(i, j);
  }
  return set;
}

}  // namespace frfit
