#include "frfit/frf/noise_estimate.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

#include "frfit/common/error.h"

namespace frfit {
namespace {

constexpr int kNumeratorDegree = 2;
constexpr int kDenominatorDegree = 2;
constexpr int kUnknowns = kNumeratorDegree + 1 + kDenominatorDegree;
// A sample whose leverage leaves less than this of its variance says little; it is not used.
constexpr double kMinResidualShare = 0.05;
// Samples beyond this many times the pooled variance are taken for lines the local model could
// not follow and trimmed (an Exp(1) exceeds 8 with probability 3e-4).
constexpr double kTrimRatio = 8.0;
// Relative precision of double arithmetic: no estimate goes below it (noise-free data).
constexpr double kRelativeFloor = 1e-14;

struct Sample {
  double variance;   // |r|² / (1 − h)
  double magnitude2;  // |Ĥ|²
};

// The local rational model of `entry` around line `centre`: the centre's variance sample, |Ĥ|²
// there, and whether the sample is usable.
bool LocalSample(const FrfSet& set, int entry, int centre, int half_window, Sample* out) {
  const int lines = set.num_lines(), width = 2 * half_window + 1;
  const int first = std::clamp(centre - half_window, 0, lines - width);
  const double scale = 0.5 * (set.frequency_hz[first + width - 1] - set.frequency_hz[first]);
  Eigen::MatrixXcd x(width, kUnknowns);
  Eigen::VectorXcd y(width);
  for (int r = 0; r < width; ++r) {
    const int l = first + r;
    const double s = (set.frequency_hz[l] - set.frequency_hz[centre]) / scale;
    const std::complex<double> h = set.H[l * 9 + entry];
    double power = 1.0;
    for (int d = 0; d <= kNumeratorDegree; ++d, power *= s) x(r, d) = power;
    power = s;
    for (int d = 1; d <= kDenominatorDegree; ++d, power *= s) x(r, kNumeratorDegree + d) = -h * power;
    y(r) = h;
  }
  const Eigen::HouseholderQR<Eigen::MatrixXcd> qr(x);
  const Eigen::VectorXcd theta = qr.solve(y);
  const Eigen::MatrixXcd q = qr.householderQ() * Eigen::MatrixXcd::Identity(width, kUnknowns);
  const int row = centre - first;
  const double leverage = q.row(row).squaredNorm();
  if (!(1.0 - leverage >= kMinResidualShare)) return false;
  // s is the offset from the centre line, so there D = 1 and the model's value is N(0): the
  // linearised residual H·D − N is the FRF's own.
  const std::complex<double> h = set.H[centre * 9 + entry];
  const std::complex<double> fitted = theta(0);
  out->variance = std::norm(h - fitted) / (1.0 - leverage);
  out->magnitude2 = std::norm(fitted);
  return std::isfinite(out->variance) && std::isfinite(out->magnitude2);
}

// σ² = α·m + β pooled over `samples` by trimmed maximum likelihood. Written with the floor's share
// u = β / (α·M + β) at the median magnitude M, the scale c = α·M + β has a closed form for each u,
// which leaves a search over u ∈ [0, 1].
void PoolSamples(std::vector<Sample> samples, double* alpha, double* beta, int* used, int* trimmed) {
  std::vector<double> m;
  for (const Sample& s : samples) m.push_back(s.magnitude2);
  std::nth_element(m.begin(), m.begin() + m.size() / 2, m.end());
  const double median = std::max(m[m.size() / 2], std::numeric_limits<double>::min());
  std::vector<char> keep(samples.size(), 1);
  double best_u = 1.0, best_c = 0.0;
  for (int round = 0; round < 4; ++round) {
    auto criterion = [&](double u, double* c) {
      double sum_log = 0.0, sum_ratio = 0.0;
      int count = 0;
      for (size_t k = 0; k < samples.size(); ++k) {
        if (!keep[k]) continue;
        const double shape = (1.0 - u) * samples[k].magnitude2 / median + u;
        if (!(shape > 0.0)) return std::numeric_limits<double>::infinity();
        sum_log += std::log(shape);
        sum_ratio += samples[k].variance / shape;
        ++count;
      }
      *c = sum_ratio / count;
      return sum_log + count * std::log(*c);
    };
    double best = std::numeric_limits<double>::infinity(), c = 0.0;
    int best_index = 0;
    std::vector<double> grid = {0.0};
    for (int i = 0; i <= 160; ++i) grid.push_back(std::pow(10.0, -16.0 + 0.1 * i));
    for (size_t i = 0; i < grid.size(); ++i) {
      const double value = criterion(grid[i], &c);
      if (value < best) best = value, best_index = static_cast<int>(i), best_u = grid[i], best_c = c;
    }
    // Golden-section refinement between the grid neighbours, in log u.
    if (best_index > 0 && best_index + 1 < static_cast<int>(grid.size())) {
      double lo = std::log(grid[std::max(best_index - 1, 1)]), hi = std::log(grid[best_index + 1]);
      const double g = 0.5 * (std::sqrt(5.0) - 1.0);
      for (int it = 0; it < 40; ++it) {
        const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
        double ca, cb;
        if (criterion(std::exp(a), &ca) < criterion(std::exp(b), &cb)) hi = b;
        else lo = a;
      }
      const double u = std::exp(0.5 * (lo + hi));
      if (criterion(u, &c) < best) best_u = u, best_c = c;
    }
    int changed = 0;
    for (size_t k = 0; k < samples.size(); ++k) {
      const double shape = (1.0 - best_u) * samples[k].magnitude2 / median + best_u;
      const char next = samples[k].variance <= kTrimRatio * best_c * shape;
      changed += next != keep[k];
      keep[k] = next;
    }
    if (changed == 0) break;
  }
  *alpha = best_c * (1.0 - best_u) / median;
  *beta = best_c * best_u;
  *used = static_cast<int>(std::count(keep.begin(), keep.end(), 1));
  *trimmed = static_cast<int>(samples.size()) - *used;
}

}  // namespace

NoiseEstimate EstimateNoise(const FrfSet& set, const std::string& source,
                            const NoiseEstimateOptions& options) {
  const int lines = set.num_lines(), half = options.half_window_lines;
  if (half < 2) throw Error(source, "noise", "expected a half window of at least 2 lines");
  if (lines < 2 * half + 2)
    throw Error(source, "frequency_hz",
                "cannot estimate the noise from " + std::to_string(lines) + " lines: at least " +
                    std::to_string(2 * half + 2) + " are needed (or give the noise in the file)");
  NoiseEstimate out;
  out.variance.assign(static_cast<size_t>(lines) * 9, 0.0);
  out.smoothed_magnitude.assign(static_cast<size_t>(lines) * 9, 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.relative.fill(nan);
  out.floor.fill(nan);
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    double peak = 0.0;
    for (int k = 0; k < lines; ++k) peak = std::max(peak, std::abs(set.H[k * 9 + e]));
    std::vector<Sample> samples;
    std::vector<double> magnitude2(lines);
    for (int k = 0; k < lines; ++k) {
      Sample s{0.0, std::norm(set.H[k * 9 + e])};
      if (LocalSample(set, e, k, half, &s)) {
        // Below double precision nothing is noise: keeps noise-free data finite.
        s.variance = std::max(s.variance, std::pow(kRelativeFloor * peak, 2));
        samples.push_back(s);
      }
      magnitude2[k] = s.magnitude2;
    }
    if (samples.size() < 4)
      throw Error(source, "H_" + EntryName(e),
                  "cannot estimate the noise: the local models fit too few lines");
    double alpha = 0.0, beta = 0.0;
    int used = 0, trimmed = 0;
    PoolSamples(samples, &alpha, &beta, &used, &trimmed);
    beta = std::max(beta, std::pow(kRelativeFloor * peak, 2));
    out.relative[e] = std::sqrt(alpha);
    out.floor[e] = std::sqrt(beta);
    out.samples_used += used;
    out.samples_trimmed += trimmed;
    for (int k = 0; k < lines; ++k) {
      out.variance[k * 9 + e] = alpha * magnitude2[k] + beta;
      out.smoothed_magnitude[k * 9 + e] = std::sqrt(magnitude2[k]);
    }
  }
  return out;
}

NoiseTerms PooledNoiseTerms(const FrfSet& set) {
  NoiseTerms out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.relative.fill(nan);
  out.floor_of_peak.fill(nan);
  if (set.noise_variance.size() != set.H.size()) return out;
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    double peak = 0.0;
    std::vector<Sample> samples;
    for (int k = 0; k < set.num_lines(); ++k) {
      const double v = set.noise_variance[k * 9 + e];
      peak = std::max(peak, std::abs(set.H[k * 9 + e]));
      if (std::isfinite(v)) samples.push_back({v, std::norm(set.H[k * 9 + e])});
    }
    if (samples.size() < 4 || !(peak > 0.0)) continue;
    double alpha = 0.0, beta = 0.0;
    int used = 0, trimmed = 0;
    PoolSamples(samples, &alpha, &beta, &used, &trimmed);
    out.relative[e] = std::sqrt(alpha);
    out.floor_of_peak[e] = std::sqrt(beta) / peak;
  }
  return out;
}

}  // namespace frfit
