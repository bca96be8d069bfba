#include "frfit/frf/noise_estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "frfit/common/error.h"
#include "src/frf/exp_likelihood.h"
#include "src/frf/local_rational.h"

namespace frfit {
namespace {

// A sample whose leverage leaves less than this of its variance says little; it is not used.
constexpr double kMinResidualShare = 0.05;
// Samples beyond this many times the pooled variance are taken for lines the local model could
// not follow and trimmed (an Exp(1) exceeds 8 with probability 3e-4).
constexpr double kTrimRatio = 8.0;
// Relative precision of double arithmetic: no variance sample goes below it (noise-free data).
constexpr double kRelativeFloor = 1e-14;
// No estimate claims less relative noise than this: no measurement is better than 0.01 %, and on
// noise-free (synthesised) data the local models' approximation error, which is all an estimate
// sees there, differs by decades from entry to entry — weights from it would let one entry's
// rounding outweigh the others (a KUKA search then fell into a wrong minimum where uniform
// weights did not).
constexpr double kMinRelativeNoise = 1e-4;

struct Sample {
  double variance;   // |r|² / (1 − h)
  double magnitude2;  // |Ĥ|²
};

// Newton's steps on the likelihood's slope stop when they move log x by less than this
// (relative to max(1, |log x|)): the minimum to a few units of the last place, where the golden
// section this replaces ended at the flat bottom's rounding noise (about 1e-8 relative).
constexpr double kLogTolerance = 1e-13;
// Quadratic convergence needs a handful; bisection of the widest bracket (64 in log x) to the
// tolerance about 50.
constexpr int kMaxNewtonSteps = 100;

// The minimum over log x ∈ [log lo, log hi] of a smooth function known by its slope in log x
// (`slope(x)`: first and second derivative): Newton's method from `start`, inside a bracket of
// the slope's sign change that halves wherever Newton would leave it or the curvature is not
// positive. A slope that does not change sign puts the minimum at that bound.
template <typename F>
double MinimiseInLog(F slope, double lo, double hi, double start) {
  if (slope(lo).first >= 0.0) return lo;
  if (slope(hi).first <= 0.0) return hi;
  double a = std::log(lo), b = std::log(hi);
  double t = std::clamp(std::log(start), a, b);
  for (int step = 0; step < kMaxNewtonSteps; ++step) {
    const LogSlope s = slope(std::exp(t));
    if (s.first == 0.0) break;
    (s.first < 0.0 ? a : b) = t;
    double next = t - s.first / s.second;
    if (!(s.second > 0.0) || !(next > a && next < b)) next = 0.5 * (a + b);
    const bool settled = std::fabs(next - t) <= kLogTolerance * std::max(1.0, std::fabs(t));
    t = next;
    if (settled) break;
  }
  return std::exp(t);
}

// One entry's kept samples side by side, in line order, for the likelihood's loops.
struct KeptSamples {
  std::vector<double> magnitude2, variance;
  LogSlope Slope(double alpha, double beta, bool wrt_alpha) const {
    return ExpNegLogLikelihoodSlope(magnitude2.data(), variance.data(), magnitude2.size(), alpha,
                                    beta, wrt_alpha);
  }
};

// The samples of each entry that `keep` marks, in line order.
std::vector<KeptSamples> Kept(const std::vector<std::vector<Sample>>& by_entry,
                              const std::vector<std::vector<char>>& keep) {
  std::vector<KeptSamples> out(by_entry.size());
  for (size_t e = 0; e < by_entry.size(); ++e)
    for (size_t k = 0; k < by_entry[e].size(); ++k)
      if (keep[e][k]) {
        out[e].magnitude2.push_back(by_entry[e][k].magnitude2);
        out[e].variance.push_back(by_entry[e][k].variance);
      }
  return out;
}

// σ²(entry e, line) = α·m + β_e, one relative term α shared by the entries and a floor β_e per
// entry, by trimmed maximum likelihood (each sample v ~ σ²·Exp(1): minimise Σ log σ² + v/σ²),
// coordinate by coordinate. The relative error of an impact test (the hammer's scatter, the
// calibration, leakage) is common to its entries, and sharing it takes it from every entry's
// high lines: a cross entry that sits under its floor on most lines cannot tell it on its own,
// and alone would end at either extreme. Samples beyond kTrimRatio times their pooled variance are
// taken for lines the local model could not follow and left out, from the third round on (a
// trimming from a first guess could confirm the guess).
struct Pooled {
  double alpha = 0.0;
  std::vector<double> beta;
  int used = 0, trimmed = 0;
};
Pooled PoolSamples(const std::vector<std::vector<Sample>>& by_entry, double alpha_floor,
                   const std::vector<double>& beta_floor) {
  const size_t entries = by_entry.size();
  std::vector<std::vector<char>> keep(entries);
  Pooled out;
  out.beta.assign(entries, 0.0);
  // First guesses: the floor from each entry's lower half of |Ĥ|, the relative term from the
  // upper halves (medians of an Exp(1) sample are ln 2).
  std::vector<double> ratios;
  double max_ratio = alpha_floor, max_v = 0.0;
  for (size_t e = 0; e < entries; ++e) {
    const std::vector<Sample>& s = by_entry[e];
    keep[e].assign(s.size(), 1);
    std::vector<double> m, low;
    for (const Sample& x : s) m.push_back(x.magnitude2), max_v = std::max(max_v, x.variance);
    std::vector<double> sorted = m;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
    for (const Sample& x : s) {
      if (x.magnitude2 <= median) low.push_back(x.variance);
      else if (x.magnitude2 > 0.0) ratios.push_back(x.variance / x.magnitude2);
      if (x.magnitude2 > 0.0) max_ratio = std::max(max_ratio, x.variance / x.magnitude2);
    }
    std::sort(low.begin(), low.end());
    out.beta[e] = std::max(low.empty() ? 0.0 : low[low.size() / 2] / std::log(2.0), beta_floor[e]);
  }
  std::sort(ratios.begin(), ratios.end());
  out.alpha = std::max(ratios.empty() ? alpha_floor : ratios[ratios.size() / 2] / std::log(2.0), alpha_floor);
  std::vector<KeptSamples> kept = Kept(by_entry, keep);
  std::vector<double> beta_hi(entries);
  for (size_t e = 0; e < entries; ++e) beta_hi[e] = std::max(2.0 * max_v, beta_floor[e] * 4.0);
  for (int round = 0; round < 12; ++round) {
    for (size_t e = 0; e < entries; ++e)
      out.beta[e] = MinimiseInLog(
          [&](double b) { return kept[e].Slope(out.alpha, b, false); }, beta_floor[e],
          beta_hi[e], out.beta[e]);
    out.alpha = MinimiseInLog(
        [&](double a) {
          LogSlope sum;
          for (size_t e = 0; e < entries; ++e) {
            const LogSlope s = kept[e].Slope(a, out.beta[e], true);
            sum.first += s.first, sum.second += s.second;
          }
          return sum;
        },
        alpha_floor, std::max(2.0 * max_ratio, alpha_floor * 4.0), out.alpha);
    if (round < 2) continue;
    for (size_t e = 0; e < entries; ++e)
      for (size_t k = 0; k < by_entry[e].size(); ++k)
        keep[e][k] = by_entry[e][k].variance <=
                     kTrimRatio * (out.alpha * by_entry[e][k].magnitude2 + out.beta[e]);
    kept = Kept(by_entry, keep);
  }
  for (const std::vector<char>& k : keep) {
    out.used += static_cast<int>(std::count(k.begin(), k.end(), 1));
    out.trimmed += static_cast<int>(std::count(k.begin(), k.end(), 0));
  }
  return out;
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
  std::vector<std::vector<Sample>> by_entry;
  std::vector<int> entries;
  std::vector<double> beta_floor;
  std::vector<std::vector<double>> magnitude2;
  LocalRationalWorkspace workspace;
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    double peak = 0.0;
    for (int k = 0; k < lines; ++k) peak = std::max(peak, std::abs(set.H[k * 9 + e]));
    std::vector<Sample> samples;
    std::vector<double> m(lines);
    for (int k = 0; k < lines; ++k) {
      Sample s{0.0, std::norm(set.H[k * 9 + e])};
      if (LocalRationalSample(set, e, k, half, kMinResidualShare, &workspace, &s.variance,
                              &s.magnitude2)) {
        // Below double precision nothing is noise: keeps noise-free data finite.
        s.variance = std::max(s.variance, std::pow(kRelativeFloor * peak, 2));
        samples.push_back(s);
      }
      m[k] = s.magnitude2;
    }
    if (samples.size() < 4)
      throw Error(source, "H_" + EntryName(e),
                  "cannot estimate the noise: the local models fit too few lines");
    by_entry.push_back(std::move(samples));
    entries.push_back(e);
    beta_floor.push_back(std::max(std::pow(kRelativeFloor * peak, 2), std::numeric_limits<double>::min()));
    magnitude2.push_back(std::move(m));
  }
  const Pooled pooled = PoolSamples(by_entry, kMinRelativeNoise * kMinRelativeNoise, beta_floor);
  out.samples_used = pooled.used;
  out.samples_trimmed = pooled.trimmed;
  for (size_t i = 0; i < entries.size(); ++i) {
    const int e = entries[i];
    out.relative[e] = std::sqrt(pooled.alpha);
    out.floor[e] = std::sqrt(pooled.beta[i]);
    for (int k = 0; k < lines; ++k) {
      out.variance[k * 9 + e] = pooled.alpha * magnitude2[i][k] + pooled.beta[i];
      out.smoothed_magnitude[k * 9 + e] = std::sqrt(magnitude2[i][k]);
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
  std::vector<std::vector<Sample>> by_entry;
  std::vector<int> entries;
  std::vector<double> peaks, beta_floor;
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
    by_entry.push_back(std::move(samples));
    entries.push_back(e);
    peaks.push_back(peak);
    beta_floor.push_back(std::max(std::pow(kRelativeFloor * peak, 2), std::numeric_limits<double>::min()));
  }
  if (entries.empty()) return out;
  const Pooled pooled = PoolSamples(by_entry, kMinRelativeNoise * kMinRelativeNoise, beta_floor);
  for (size_t i = 0; i < entries.size(); ++i) {
    out.relative[entries[i]] = std::sqrt(pooled.alpha);
    out.floor_of_peak[entries[i]] = std::sqrt(pooled.beta[i]) / peaks[i];
  }
  return out;
}

}  // namespace frfit
