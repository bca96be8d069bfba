// Which posture, measurement point or static load case to measure next (docs/identifiability.md,
// "Choosing the next posture"): for each candidate (a posture, a pair of response and excitation
// points at a posture: a roving accelerometer or hammer, or static deflection tests), the FRFs
// the fitted model predicts there are weighted as a measurement would be (the fit's cost options,
// peaks of the predicted FRFs) — or the deflections by their 1/σ² —, and their information JᵀWJ
// is added to the fit's. Candidates are ranked by the D-optimal criterion, the gain in log det of the
// combined information (relative parameters): how much the volume of the confidence ellipsoid
// shrinks. The predicted 1σ assumes the fit's residual level at the new posture.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/deflection/static_tests.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// A set one could measure: at `posture`, between two frames of the model ("" = the sensor); or,
// when `static_tests` is not empty, a static load case: those deflection tests at `posture` (a
// posture of the model), whose displacements are taken as the fitted model predicts them.
struct DesignCandidate {
  PostureSpec posture;  // name and coordinates (rad / m)
  std::string response_frame;
  std::string excitation_frame;
  std::vector<StaticTest> static_tests;
};

struct CandidateRanking {
  PostureSpec posture;        // name and coordinates (rad / m)
  std::string response_frame, excitation_frame;  // "" = the sensor
  std::vector<StaticTest> static_tests;          // a static load case's tests, else empty
  double log_det_gain = 0.0;  // nats; NatsToHalveEverySigma(p) halves every 1σ on average
  Identifiability predicted;  // with this posture's predicted FRFs added to the fit's
};

struct PostureDesign {
  Identifiability current;                   // of the fit as it is
  std::vector<CandidateRanking> candidates;  // best first
};

// The log det gain that halves every 1σ of p parameters on average (geometric mean): each σ is
// 1/√(an eigenvalue of JᵀWJ), so halving them multiplies the information by 4 and its log det by
// 4^p, a gain of p·ln 4 = 2p·ln 2 nats (25 for p = 18). Doubling the information (repeating a
// measurement) gains p·ln 2 and shrinks each σ by √2.
double NatsToHalveEverySigma(int p);

// `fitted`: the fit's problem (its postures' measured FRFs and weights); `u`: the fitted point.
// Candidate FRFs use the first fitted posture's lines and format and the entries any fitted
// posture has. Throws Error naming a candidate whose mass matrix is singular or that duplicates a
// fitted posture's name.
PostureDesign RankCandidatePostures(const Problem& fitted, const ParameterMap& map,
                                    std::span<const double> u,
                                    const std::vector<PostureSpec>& candidates);

// The same for candidates that may name measurement points; a candidate may sit at a fitted
// posture when its points differ from the fitted sets' there. `progress`, when set, is called with
// (candidates done, candidates) after each.
PostureDesign RankCandidates(const Problem& fitted, const ParameterMap& map,
                             std::span<const double> u,
                             const std::vector<DesignCandidate>& candidates,
                             const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace frfit
