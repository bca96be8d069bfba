// The one rule for what a residual weighs under each cost type (docs/noise.md). A measured H with
// noise variance σ² gives a linear residual (normalized_complex) of variance σ² and, to first order
// in σ/|H|, a log residual of variance σ²/|H|²: the same line weighs |H|² times as much under a
// log cost as under the linear one. The fit's noise weights, the search's log stand-in for the
// normalized_complex cost (fit/fit_passes.h) and the packed normaliser 1/Σ w|H|² (Pack) all take
// their weights from here. It holds no weighting scheme (peaks, bands: ComputeWeights).
#pragma once

#include <complex>
#include <cstddef>

#include "frfit/cost/cost_options.h"
#include "frfit/frf/frf_set.h"
#include "frfit/frf/noise_estimate.h"

namespace frfit {

// The weight of H's residual under `type` per unit weight of its linear residual: 1 for
// normalized_complex, |H|² for the log costs.
double LinearWeightScale(CostType type, std::complex<double> h);

// The maximum-likelihood weight of one residual under `type`: 1/σ²_log = |H|²/σ² for the log
// costs, 1/σ² for normalized_complex. A variance of 0 (a noise-free file) is held at double
// precision's relative floor; an infinite one weighs nothing.
double InverseNoiseVariance(CostType type, std::complex<double> h, double variance);

// A residual's weight under `from` expressed under `to` (what it weighs there for the same
// knowledge of H).
double WeightUnder(CostType to, CostType from, std::complex<double> h, double weight);

// Whether a set's packed weights carry normalized_complex's 1/Σ w|H|² (papers/003): not with noise
// weights, which make the cost a χ² as they stand, nor for a static test, weighed by 1/σ² already.
bool NormalizesWeights(const CostOptions& cost, bool is_static);

// The noise variance of the residual at line-entry i (line-major, 9 entries) where the model gives
// h: the measured set's own (noise_variance) or, where that was estimated from the data, the
// estimate's pooled two-term model at the model's FRF, relative_e²|h|² + floor_e² (docs/noise.md)
// — the model's |h| rather than the noisy measured one, as the noise weights and the model check
// both take it.
double NoiseVarianceAt(const FrfSet& measured, const NoiseEstimate& estimate, std::size_t i,
                       std::complex<double> h);
}  // namespace frfit
