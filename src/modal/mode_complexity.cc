#include "frfit/modal/mode_complexity.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace frfit {
namespace {

struct Scatter {
  double xx = 0.0, yy = 0.0, xy = 0.0;  // Σ Re², Σ Im², Σ Re·Im
};

Scatter Of(std::span<const std::complex<double>> shape) {
  Scatter s;
  for (const std::complex<double>& v : shape)
    s.xx += v.real() * v.real(), s.yy += v.imag() * v.imag(), s.xy += v.real() * v.imag();
  return s;
}

}  // namespace

double ModalPhaseCollinearity(std::span<const std::complex<double>> shape) {
  const Scatter s = Of(shape);
  const double trace = s.xx + s.yy;
  if (!(trace > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  // λ1 − λ2 of [[xx, xy], [xy, yy]], over λ1 + λ2 = the trace.
  const double spread = std::hypot(s.xx - s.yy, 2.0 * s.xy);
  return (spread / trace) * (spread / trace);
}

double MeanPhaseDeviationDeg(std::span<const std::complex<double>> shape) {
  const Scatter s = Of(shape);
  const double line = 0.5 * std::atan2(2.0 * s.xy, s.xx - s.yy);  // the principal direction
  double weighted = 0.0, weight = 0.0;
  for (const std::complex<double>& v : shape) {
    const double magnitude = std::abs(v);
    if (!(magnitude > 0.0)) continue;
    // The angle to the line, folded: a component opposite the line lies on it.
    double d = std::fmod(std::abs(std::arg(v) - line), std::numbers::pi);
    if (d > std::numbers::pi / 2) d = std::numbers::pi - d;
    weighted += magnitude * d, weight += magnitude;
  }
  if (!(weight > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return weighted / weight * 180.0 / std::numbers::pi;
}

}  // namespace frfit
