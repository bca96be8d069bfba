#include "frfit/cost/residual_weight.h"

#include <algorithm>
#include <limits>

namespace frfit {

double LinearWeightScale(CostType type, std::complex<double> h) {
  return type == CostType::kNormalizedComplex ? 1.0 : std::norm(h);
}

double InverseNoiseVariance(CostType type, std::complex<double> h, double variance) {
  variance = std::max(variance, 1e-28 * std::norm(h));
  if (!(variance < std::numeric_limits<double>::infinity())) return 0.0;
  if (!(variance > 0.0)) variance = std::numeric_limits<double>::min();  // h = 0 and σ = 0
  return LinearWeightScale(type, h) / variance;
}

double WeightUnder(CostType to, CostType from, std::complex<double> h, double weight) {
  return weight * (LinearWeightScale(to, h) / LinearWeightScale(from, h));
}

bool NormalizesWeights(const CostOptions& cost, bool is_static) {
  return cost.type == CostType::kNormalizedComplex && cost.weights.mode != WeightMode::kNoise &&
         !is_static;
}

double NoiseVarianceAt(const FrfSet& measured, const NoiseEstimate& estimate, std::size_t i,
                       std::complex<double> h) {
  if (measured.noise_source != "estimated") return measured.noise_variance[i];
  const int e = static_cast<int>(i % 9);
  const double a = estimate.relative[e], b = estimate.floor[e];
  return a * a * std::norm(h) + b * b;
}

}  // namespace frfit
