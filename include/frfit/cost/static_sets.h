// Static deflection tests as sets of a fitting problem. Each test becomes one ProblemPosture with
// is_static set: a single line at 0 Hz in receptance, whose excitation point is the test's force
// (the columns of its basis are B_b·F) and whose response point is the displacement's frame, so
// entries (i, 0) of H = B_aᵀ K0⁻¹ B_b F are the predicted displacement in m. The kernels score it
// with the linear residual (kernels::kCostNormalizedComplex) weighted by 1/σ², whatever the FRFs'
// cost: twice its cost is the χ² of the deflections, and its normal equations are exact as for
// the FRFs. Z at ω = 0 is K0 exactly for viscous and Rayleigh damping; structural damping's
// i·η·k stays at 0 Hz, so a model with it is refused.
#pragma once

#include <string>

#include "frfit/cost/problem.h"
#include "frfit/deflection/static_tests.h"

namespace frfit {

// Appends every test of `tests` to `problem` (whose model must be set). An unknown posture or
// frame, or a model with structural damping, is an Error naming the file and the test.
void AddStaticTests(const StaticTests& tests, Problem* problem);

// The displacement (m, in the displacement frame's axes) that the model with `parameters`
// predicts for `pp`, a static set AddStaticTests made: B_aᵀ K0⁻¹ B_b F at its posture.
Eigen::Vector3d PredictedDeflection(const Model& model, const ProblemPosture& pp,
                                    const std::vector<double>& parameters);

// The problem without its static sets: what the per-set FRF analyses (modal comparison, model
// check, report) look at.
Problem FrfSetsOnly(const Problem& problem);

}  // namespace frfit
