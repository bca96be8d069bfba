#include "frfit/fit/prior.h"

#include <cmath>

#include "frfit/common/error.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

void CheckBatch(const ParameterMap& map, size_t points, size_t values, int per_point) {
  const size_t dim = static_cast<size_t>(map.dim());
  if (points % dim != 0 || values != points / dim * static_cast<size_t>(per_point))
    throw Error("", "prior", "expected " + std::to_string(per_point) + " values per point");
}

}  // namespace

double PriorCost(const ParameterMap& map, std::span<const double> u) {
  const std::vector<Prior>& priors = map.priors();
  if (priors.empty()) return 0.0;
  double cost = 0.0;
  for (int j = 0; j < map.dim(); ++j) {
    if (priors[j].std == 0.0) continue;
    const double z = (map.space().ToPhysical(j, u[j]) - priors[j].mean) / priors[j].std;
    cost += 0.5 * z * z;
  }
  return cost;
}

void AddPriorCosts(const ParameterMap& map, std::span<const double> points,
                   std::span<double> costs) {
  if (map.priors().empty()) return;
  CheckBatch(map, points.size(), costs.size(), 1);
  const size_t dim = static_cast<size_t>(map.dim());
  for (size_t i = 0; i < costs.size(); ++i)
    if (std::isfinite(costs[i])) costs[i] += PriorCost(map, points.subspan(i * dim, dim));
}

void AddPriorNormalTerms(const ParameterMap& map, std::span<const double> points,
                         std::span<double> normal) {
  const std::vector<Prior>& priors = map.priors();
  if (priors.empty()) return;
  const int p = map.dim(), terms = kernels::NormalTermCount(p);
  CheckBatch(map, points.size(), normal.size(), terms);
  for (size_t i = 0; i < normal.size() / terms; ++i) {
    double* out = normal.data() + i * terms;
    if (!std::isfinite(out[0])) continue;
    const std::span<const double> u = points.subspan(i * p, p);
    out[0] += PriorCost(map, u);
    for (int j = 0; j < p; ++j) {
      if (priors[j].std == 0.0) continue;
      const double sigma = priors[j].std, slope = map.space().Slope(j, u[j]);
      const double z = (map.space().ToPhysical(j, u[j]) - priors[j].mean) / sigma;
      out[1 + j] += z * slope / (2.0 * sigma);
      out[kernels::NormalTermIndex(p, j, j)] += slope * slope / (2.0 * sigma * sigma);
    }
  }
}

}  // namespace frfit
