#include "frfit/predict/stability_lobes.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"

namespace frfit {
namespace {

using Complex = std::complex<double>;

// ½[cos 2φ − 2K_r φ + K_r sin 2φ] etc. at one angle; the factors are their differences.
DirectionalFactors Primitive(double phi, double kr) {
  const double c = std::cos(2.0 * phi), s = std::sin(2.0 * phi);
  return {0.5 * (c - 2.0 * kr * phi + kr * s), 0.5 * (-s - 2.0 * phi + kr * c),
          0.5 * (-s + 2.0 * phi + kr * c), 0.5 * (-c - 2.0 * kr * phi - kr * s)};
}

}  // namespace

DirectionalFactors AverageDirectionalFactors(double entry_rad, double exit_rad, double kr_ratio) {
  const DirectionalFactors a = Primitive(exit_rad, kr_ratio), b = Primitive(entry_rad, kr_ratio);
  return {a.xx - b.xx, a.xy - b.xy, a.yx - b.yx, a.yy - b.yy};
}

bool LobeOptions::IsValid(std::string* error) const {
  // Messages appended piece by piece: "literal" + std::string&& makes GCC 12 warn -Wrestrict.
  std::string m;
  if (teeth < 1) {
    m = "teeth: expected an integer >= 1, got ";
    m += std::to_string(teeth);
  } else if (!(kt_n_per_m2 > 0.0) || !std::isfinite(kt_n_per_m2)) {
    m = "kt_n_per_m2: expected a finite number > 0, got ";
    m += FormatDouble(kt_n_per_m2);
  } else if (!(speed_min_rpm > 0.0) || !(speed_max_rpm > speed_min_rpm) ||
             !std::isfinite(speed_max_rpm)) {
    m = "spindle_speed_rpm: expected 0 < min < max, got [";
    m += FormatDouble(speed_min_rpm);
    m += ", ";
    m += FormatDouble(speed_max_rpm);
    m += "]";
  } else if (speed_points < 2) {
    m = "speed_points: expected at least 2, got ";
    m += std::to_string(speed_points);
  } else if (max_lobes < 0 || max_lobes > kLobeLimit) {
    m = "lobes: expected 0 (all) to ";
    m += std::to_string(kLobeLimit);
    m += ", got ";
    m += std::to_string(max_lobes);
  } else {
    for (double v : {alpha.xx, alpha.xy, alpha.yx, alpha.yy})
      if (!std::isfinite(v)) m = "alpha: expected finite directional factors";
  }
  return m.empty() || Invalid(error, m);
}

std::vector<Complex> DirectionalEigenvalues(const CuttingPlaneFrf& frf,
                                            const DirectionalFactors& alpha) {
  const int lines = frf.num_lines();
  std::vector<Complex> out(2 * static_cast<size_t>(lines));
  for (int l = 0; l < lines; ++l) {
    const Complex* p = &frf.receptance[4 * static_cast<size_t>(l)];
    // M = Φ α, 2×2.
    const Complex m00 = p[0] * alpha.xx + p[1] * alpha.yx, m01 = p[0] * alpha.xy + p[1] * alpha.yy;
    const Complex m10 = p[2] * alpha.xx + p[3] * alpha.yx, m11 = p[2] * alpha.xy + p[3] * alpha.yy;
    const Complex half_trace = 0.5 * (m00 + m11);
    const Complex root = std::sqrt(half_trace * half_trace - (m00 * m11 - m01 * m10));
    Complex a = half_trace + root, b = half_trace - root;
    // Keep each branch continuous: the sqrt's cut would swap them between neighbouring lines.
    if (l > 0 && std::abs(a - out[2 * l - 2]) + std::abs(b - out[2 * l - 1]) >
                     std::abs(b - out[2 * l - 2]) + std::abs(a - out[2 * l - 1]))
      std::swap(a, b);
    out[2 * l] = a;
    out[2 * l + 1] = b;
  }
  return out;
}

std::vector<Complex> OrientedFrf(const CuttingPlaneFrf& frf, const DirectionalFactors& alpha) {
  std::vector<Complex> out = DirectionalEigenvalues(frf, alpha);
  for (Complex& v : out) v *= -1.0 / (4.0 * M_PI);
  return out;
}

namespace {

void CheckFrf(const CuttingPlaneFrf& frf) {
  const int lines = frf.num_lines();
  if (lines < 2 || frf.receptance.size() != 4 * static_cast<size_t>(lines))
    throw Error("stability lobes: expected an FRF of at least 2 lines with 4 entries each");
  for (int l = 0; l < lines; ++l)
    if (!(frf.frequency_hz[l] > (l ? frf.frequency_hz[l - 1] : 0.0)))
      throw Error("stability lobes: expected increasing frequencies > 0");
}

// Per line and branch of the directional eigenvalues: the depth limit a_lim (NaN where Re λ <= 0:
// no positive depth) and the phase ε; the smallest depth at any speed goes to `out`.
struct LineDepths {
  std::vector<double> depth, phase;
  double f_max_valid = 0.0;  // the highest line with a depth
};

LineDepths DepthsOfLines(const CuttingPlaneFrf& frf, const std::vector<Complex>& lambda,
                         const LobeOptions& options, StabilityLobes* out) {
  LineDepths d{std::vector<double>(lambda.size(), StabilityLobes::kNaN),
               std::vector<double>(lambda.size(), 0.0), 0.0};
  // An eigenvalue that is zero but for rounding (a direction without flexibility, e.g. Φ of one
  // axis only) would give a finite but meaningless depth of 1e17 m: below 1e-12 of the largest
  // |λ| it counts as zero.
  double scale = 0.0;
  for (const Complex& v : lambda) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < lambda.size(); ++i) {
    const Complex Lambda = -1.0 / lambda[i];
    if (!(lambda[i].real() > 1e-12 * scale) || !std::isfinite(Lambda.real())) continue;
    const double kappa = Lambda.imag() / Lambda.real();
    d.depth[i] = -2.0 * M_PI * Lambda.real() * (1.0 + kappa * kappa) / (options.teeth * options.kt_n_per_m2);
    d.phase[i] = M_PI - 2.0 * std::atan(kappa);
    const double f = frf.frequency_hz[i / 2];
    d.f_max_valid = std::max(d.f_max_valid, f);
    if (d.depth[i] < out->absolute_critical_depth_m) {
      out->absolute_critical_depth_m = d.depth[i];
      out->absolute_chatter_frequency_hz = f;
    }
  }
  return d;
}

// Lobe k reaches speeds up to 60 f/(N(ε/2π + k)) < 60 f/(N k): no more lobes are needed than
// reach speed_min_rpm.
int LobesNeeded(const LineDepths& d, const LobeOptions& options, StabilityLobes* out) {
  const double needed = std::floor(60.0 * d.f_max_valid / (options.teeth * options.speed_min_rpm)) + 1.0;
  int lobes = static_cast<int>(std::min<double>(needed, kLobeLimit));
  out->lobes_truncated = options.max_lobes == 0 && needed > kLobeLimit;
  if (options.max_lobes > 0) lobes = std::min(lobes, options.max_lobes);
  out->lobes_computed = lobes;
  return lobes;
}

void SpeedGrid(const LobeOptions& options, StabilityLobes* out) {
  const int points = options.speed_points;
  const double n0 = options.speed_min_rpm, n1 = options.speed_max_rpm;
  const double dn = (n1 - n0) / (points - 1);
  out->spindle_speed_rpm.resize(points);
  for (int g = 0; g < points; ++g) out->spindle_speed_rpm[g] = g == points - 1 ? n1 : n0 + g * dn;
  out->depth_limit_m.assign(points, StabilityLobes::kInf);
  out->chatter_frequency_hz.assign(points, StabilityLobes::kNaN);
}

// Lobe k's lowest point inside the speed range, kept in out->lobes when it has one. `speed`: each
// line's and branch's spindle speed on lobe k.
void LobeMinimumOf(int k, const CuttingPlaneFrf& frf, const LineDepths& d, const std::vector<double>& speed,
                   const LobeOptions& options, StabilityLobes* out) {
  LobeMinimum minimum{k, StabilityLobes::kInf, StabilityLobes::kNaN, StabilityLobes::kNaN};
  size_t best = 0;
  for (size_t i = 0; i < speed.size(); ++i) {
    if (std::isnan(d.depth[i]) || speed[i] < options.speed_min_rpm || speed[i] > options.speed_max_rpm ||
        d.depth[i] >= minimum.depth_m)
      continue;
    minimum = {k, d.depth[i], speed[i], frf.frequency_hz[i / 2]};
    best = i;
  }
  if (!std::isfinite(minimum.depth_m)) return;
  // A neighbour on the same branch that is lower was left out: it lies outside the range.
  for (const size_t j : {best - 2, best + 2})
    if (j < speed.size() && d.depth[j] < minimum.depth_m) minimum.clipped = true;
  out->lobes.push_back(minimum);
}

// Each branch's curve of lobe k between adjacent lines, linear in speed, onto the envelope's grid.
void AddLobeToEnvelope(const CuttingPlaneFrf& frf, const LineDepths& d, const std::vector<double>& speed,
                       const LobeOptions& options, StabilityLobes* out) {
  const int points = options.speed_points;
  const double n0 = options.speed_min_rpm, n1 = options.speed_max_rpm;
  const double dn = (n1 - n0) / (points - 1);
  for (int branch = 0; branch < 2; ++branch)
    for (int l = 0; l + 1 < frf.num_lines(); ++l) {
      const size_t i = 2 * l + branch, j = i + 2;
      if (std::isnan(d.depth[i]) || std::isnan(d.depth[j])) continue;
      const double lo = std::min(speed[i], speed[j]), hi = std::max(speed[i], speed[j]);
      if (hi < n0 || lo > n1) continue;
      const int g0 = std::max(0, static_cast<int>(std::ceil((lo - n0) / dn)));
      const int g1 = std::min(points - 1, static_cast<int>(std::floor((hi - n0) / dn)));
      for (int g = g0; g <= g1; ++g) {
        const double n = out->spindle_speed_rpm[g];
        if (n < lo || n > hi) continue;
        const double t = hi > lo ? (n - speed[i]) / (speed[j] - speed[i]) : 0.0;
        const double a = d.depth[i] + t * (d.depth[j] - d.depth[i]);
        if (a < out->depth_limit_m[g]) {
          out->depth_limit_m[g] = a;
          out->chatter_frequency_hz[g] = frf.frequency_hz[l] + t * (frf.frequency_hz[l + 1] - frf.frequency_hz[l]);
        }
      }
    }
}

}  // namespace

StabilityLobes ComputeStabilityLobes(const CuttingPlaneFrf& frf, const LobeOptions& options) {
  if (std::string problem; !options.IsValid(&problem)) throw Error("stability lobes", "", problem);
  CheckFrf(frf);
  const std::vector<Complex> lambda = DirectionalEigenvalues(frf, options.alpha);
  StabilityLobes out;
  const LineDepths d = DepthsOfLines(frf, lambda, options, &out);
  const int lobes = LobesNeeded(d, options, &out);
  SpeedGrid(options, &out);
  std::vector<double> speed(lambda.size());
  for (int k = 0; k < lobes; ++k) {
    for (size_t i = 0; i < lambda.size(); ++i) {
      const double omega = 2.0 * M_PI * frf.frequency_hz[i / 2];
      speed[i] = 60.0 * omega / (options.teeth * (d.phase[i] + 2.0 * M_PI * k));
    }
    LobeMinimumOf(k, frf, d, speed, options, &out);
    AddLobeToEnvelope(frf, d, speed, options, &out);
  }
  for (size_t g = 0; g < out.depth_limit_m.size(); ++g)
    if (out.depth_limit_m[g] < out.critical_depth_m) {
      out.critical_depth_m = out.depth_limit_m[g];
      out.critical_spindle_speed_rpm = out.spindle_speed_rpm[g];
      out.critical_chatter_frequency_hz = out.chatter_frequency_hz[g];
    }
  return out;
}

}  // namespace frfit
