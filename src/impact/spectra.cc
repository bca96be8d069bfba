#include "frfit/impact/spectra.h"

#include <cmath>
#include <numbers>

#include "frfit/common/enum_names.h"

namespace frfit {

std::vector<std::complex<double>> DftAtBins(const std::vector<double>& x, const std::vector<int>& bins) {
  const long n = static_cast<long>(x.size());
  std::vector<std::complex<double>> twiddle(n);
  for (long m = 0; m < n; ++m) {
    const double a = -2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
    twiddle[m] = {std::cos(a), std::sin(a)};
  }
  std::vector<std::complex<double>> out(bins.size());
  for (size_t b = 0; b < bins.size(); ++b) {
    std::complex<double> sum;
    long phase = 0;  // k·m mod N, advanced without overflow
    for (long m = 0; m < n; ++m) {
      sum += x[m] * twiddle[phase];
      phase += bins[b];
      if (phase >= n) phase -= n;
    }
    out[b] = sum;
  }
  return out;
}

constexpr std::pair<FrfEstimator, const char*> kEstimators[] = {
    {FrfEstimator::kH1, "h1"}, {FrfEstimator::kH2, "h2"}, {FrfEstimator::kHv, "hv"}};

std::string ToString(FrfEstimator estimator) { return EnumName(kEstimators, estimator); }
bool FromString(const std::string& text, FrfEstimator* estimator) {
  return EnumFromName(kEstimators, text, estimator);
}

std::complex<double> Estimate(const CrossSpectra& s, FrfEstimator estimator) {
  switch (estimator) {
    case FrfEstimator::kH1: return s.gfx / s.gff;
    case FrfEstimator::kH2: return s.gxx / std::conj(s.gfx);
    case FrfEstimator::kHv: {
      // The eigenvector of [[G_ff, G_fx], [G_xf, G_xx]] of the smaller eigenvalue is (H, −1)
      // up to scale: H = (G_xx − G_ff + √((G_xx − G_ff)² + 4|G_fx|²)) / (2·G_xf). Written
      // without cancellation for either sign of G_xx − G_ff.
      const double d = s.gxx - s.gff;
      const double root = std::sqrt(d * d + 4.0 * std::norm(s.gfx));
      if (d >= 0.0) return (d + root) / (2.0 * std::conj(s.gfx));
      return 2.0 * s.gfx / (root - d);  // = (d + root)/(2 G_xf) times (root − d)/(root − d)
    }
  }
  return {};
}

double Coherence(const CrossSpectra& s) {
  if (s.gff <= 0.0 || s.gxx <= 0.0) return 0.0;
  return std::min(1.0, std::norm(s.gfx) / (s.gff * s.gxx));
}

}  // namespace frfit
