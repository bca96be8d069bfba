// The problem each pass of a fit evaluates (fit/fit_run.h). Pass 0 is the search (GA ⇄
// refinement); passes 1, 2, ... refine its result:
//   - with noise weights, each pass recomputes the weights at the model's FRF for the point the
//     previous one ended at (cost.noise.reweight_passes, docs/noise.md);
//   - with cost.type normalized_complex the search runs on the log cost (log_complex, the same
//     weights in log form) and the passes on the linear one: |H_s − H|² has a minimum at every
//     placement of a mode across a measured peak, where the log cost has one valley, so the search
//     would end in wrong minima (docs/decisions.md);
//   - with noise weights the search multiplies them at clear peaks by search_peak_gain
//     (cost_options.h), the passes use them plain.
#pragma once

#include <span>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// [posture][line·9 + entry]: NoiseWeightsAtModel at every posture for the parameters of u.
std::vector<std::vector<double>> NoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                                                std::span<const double> u);

// The problem with those weights; `u` empty returns the problem as it is.
Problem WithNoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                           std::span<const double> u);
// Whether the problem of pass `pass` at u is the problem with NoiseWeightsAt(u): a refinement
// pass under noise weights. Then WithWeights(problem, NoiseWeightsAt(problem, map, u)) is
// ProblemForPass, to the bit.
bool PassReweights(const Problem& problem, int pass, std::span<const double> u);
// The problem with `weights` ([posture][line·9 + entry]) in place of its postures' own.
Problem WithWeights(const Problem& problem, std::vector<std::vector<double>> weights);

// What the search evaluates: the problem itself, or for normalized_complex its log_complex form.
Problem SearchProblem(const Problem& problem);

// The problem of pass `pass` (0: the search) whose weights are computed at u (ignored for pass
// 0), and its packing for the evaluator.
Problem ProblemForPass(const Problem& problem, const ParameterMap& map, int pass,
                       std::span<const double> u);
PackedProblem PackForPass(const Problem& problem, const ParameterMap& map, int pass,
                          std::span<const double> u);

// Whether a fit of these options refines its search's result in passes, and how many.
int RefinementPasses(const CostOptions& cost);

}  // namespace frfit
