#include "frfit/results/model_check_noise.h"

#include <cmath>

namespace frfit {
namespace {

// The averages at which entry e's variance is the coherence formula on every usable line; 0 if
// none. The formula solved for n: n = 2 + (1 − γ²)·|H|²/(γ²·σ²).
int AveragesBehindVariance(const FrfSet& set, int e) {
  int found = 0;
  for (int k = 0; k < set.num_lines(); ++k) {
    const size_t i = static_cast<size_t>(k) * 9 + e;
    const double g = set.coherence[i], v = set.noise_variance[i], h2 = std::norm(set.H[i]);
    if (!(g > 0.0 && g < 1.0 && v > 0.0 && std::isfinite(v) && h2 > 0.0)) continue;
    const double n = 2.0 + (1.0 - g) * h2 / (g * v);
    const long rounded = std::lround(n);
    if (rounded < kMinAveragesForNoise || std::abs(n - rounded) > 1e-6 * n) return 0;
    if (found != 0 && rounded != found) return 0;
    found = static_cast<int>(rounded);
  }
  return found;
}

}  // namespace

std::array<int, 9> VarianceAverages(const FrfSet& set) {
  std::array<int, 9> out{};
  const size_t values = set.H.size();
  if (set.coherence.size() != values || set.noise_variance.size() != values) return out;
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    if (set.noise_source == "coherence")
      out[e] = set.averages >= kMinAveragesForNoise ? set.averages : 0;
    else if (set.noise_source == "variance")
      out[e] = AveragesBehindVariance(set, e);
  }
  return out;
}

double KnownVarianceEquivalent(double z2, int averages) {
  if (averages < kMinAveragesForNoise) return z2;
  return (averages - 1) * std::log1p(z2 / (averages - 2));
}

}  // namespace frfit
