#include "frfit/impact/windows.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "frfit/common/error.h"

namespace frfit {

Pulse FindPulse(const std::vector<double>& force) {
  Pulse p;
  const int n = static_cast<int>(force.size());
  for (int k = 0; k < n; ++k)
    if (std::abs(force[k]) > std::abs(p.peak_value)) {
      p.peak = k;
      p.peak_value = force[k];
    }
  const double edge = kPulseFraction * std::abs(p.peak_value);
  p.first = p.peak;
  while (p.first > 0 && std::abs(force[p.first]) >= edge) --p.first;
  p.last = p.peak;
  while (p.last < n - 1 && std::abs(force[p.last]) >= edge) ++p.last;
  return p;
}

bool ForceWindowOptions::IsValid(std::string* error) const {
  if (!(margin_s >= 0.0) || !std::isfinite(margin_s))
    return Invalid(error, "margin_s: expected seconds >= 0");
  if (!(taper_s >= 0.0) || !std::isfinite(taper_s))
    return Invalid(error, "taper_s: expected seconds >= 0");
  return true;
}

int ForceWindowStart(const Pulse& pulse, double sample_rate_hz, const ForceWindowOptions& o) {
  if (!o.enabled) return 0;
  const long margin = std::lround(o.margin_s * sample_rate_hz);
  const long taper = std::lround(o.taper_s * sample_rate_hz);
  return static_cast<int>(std::max(0L, pulse.first - margin - taper));
}

std::vector<double> ForceWindow(const Pulse& pulse, int samples, double sample_rate_hz,
                                const ForceWindowOptions& o) {
  std::vector<double> w(samples, o.enabled ? 0.0 : 1.0);
  if (!o.enabled) return w;
  const long margin = std::lround(o.margin_s * sample_rate_hz);
  const long taper = std::lround(o.taper_s * sample_rate_hz);
  const long one_from = pulse.first - margin, one_to = pulse.last + margin;
  for (long k = 0; k < samples; ++k) {
    // Distance (in samples) outside the flat part; the taper is a half cosine over `taper`.
    const long d = k < one_from ? one_from - k : (k > one_to ? k - one_to : 0);
    if (d == 0)
      w[k] = 1.0;
    else if (d < taper)
      w[k] = 0.5 * (1.0 + std::cos(std::numbers::pi * static_cast<double>(d) / taper));
  }
  return w;
}

double ExponentialWindowOptions::TimeConstant(double record_s) const {
  if (tau_s > 0.0) return tau_s;
  if (end_value > 0.0) return record_s / -std::log(end_value);
  return std::numeric_limits<double>::infinity();
}

bool ExponentialWindowOptions::IsValid(std::string* error) const {
  if (!(tau_s >= 0.0) || !std::isfinite(tau_s))
    return Invalid(error, "tau_s: expected seconds > 0");
  if (!(end_value >= 0.0 && end_value < 1.0))
    return Invalid(error, "end_value: expected the window's value at the record's end in (0, 1)");
  if (tau_s > 0.0 && end_value > 0.0)
    return Invalid(error, "tau_s: expected either tau_s or end_value, got both");
  return true;
}

std::vector<double> ExponentialWindow(int samples, double sample_rate_hz, double tau_s) {
  std::vector<double> w(samples, 1.0);
  if (!std::isfinite(tau_s)) return w;
  for (int k = 0; k < samples; ++k) w[k] = std::exp(-k / (sample_rate_hz * tau_s));
  return w;
}

double AddedDampingRatio(double tau_s, double omega_rad_s) {
  if (!std::isfinite(tau_s)) return 0.0;
  return 1.0 / (tau_s * omega_rad_s);
}

}  // namespace frfit
