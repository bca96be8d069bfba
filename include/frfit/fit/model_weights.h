// The reweighting passes of a noise-weighted fit (cost.noise.reweight_passes, fit/fit_run.h): the
// problem's weights recomputed at the model's FRF for a point u of the fit.
#pragma once

#include <span>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// [posture][line·9 + entry]: NoiseWeightsAtModel at every posture for the parameters of u.
std::vector<std::vector<double>> NoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                                                std::span<const double> u);

// The problem with those weights; `u` empty returns the problem as it is (the search's weights).
Problem WithNoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                           std::span<const double> u);

}  // namespace frfit
