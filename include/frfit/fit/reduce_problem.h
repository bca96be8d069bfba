// Reduction in the fit path (docs/reduction.md): a posture with beam coordinates is reduced to a
// small basis (posture/reduction.h) before it is packed for the evaluators, whose per-line solve
// holds at most kernels::kMaxDofs coordinates. Fit (fit/fit.h) and the fleet call it, so that
// `frfit fit`, the Python module and `frfit fleet` reduce a model the same way. Models without
// beams are never reduced, and every result of theirs keeps its bits. Needs nothing of results/
// (which includes fit/, never the reverse): FitResult holds the SetReduction declared here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// `auto` reduces a beam model past this many elastic coordinates. Below the kernels' capacity
// (kernels::kMaxDofs, 64): a full solve's per-line cost grows as n³, and 32 is where a reduced
// basis already pays (docs/reduction.md); fixed, so that no fit changes with the capacity.
constexpr int kReducePast = 32;

// Reduces every posture of `problem` as `settings` ask (auto: when the model has more than
// kReducePast elastic coordinates; always: when it has beam coordinates; never: never, an Error
// naming `config_source` past the kernels' capacity), every posture to the same size, at the
// parameter samples of `map` (the initial point, and each free parameter at its two bounds with
// the others initial), and sets `map`'s coefficient layout to match. Returns whether it reduced.
bool ReduceProblem(const ReductionSettings& settings, const std::string& config_source,
                   ParameterMap* map, Problem* problem);

// Whether ReduceProblem would reduce `problem` (false when a posture of it is reduced already),
// with its Error for `reduction.mode: never` past the kernels' capacity (a problem of modes alone,
// without postures, is never reduced and never refused: no kernel solves it line by line).
bool WillReduce(const ReductionSettings& settings, const std::string& config_source,
                const Problem& problem);

// The cost a reduced problem's search can fall to through its reduction error alone: with each
// set's ReductionError ε (‖H_full − H_reduced‖_F ≤ ε‖H_full‖_F per line at the samples), a set of
// noise-free FRFs that the full model makes costs the reduced model at most ε²·S, S the set's
// cost scale under the search's weights — Σ over lines of ‖H‖²_F times the largest weight of a
// unit relative (log costs) or absolute (linear) residual among its fitted entries, normalised
// and weighted as Pack weighs the set — summed over the sets and times kReductionFloorMargin
// (docs/decisions.md, "The exact fit of a reduced model"). A search whose cost falls to it has
// fitted the data as exactly as the reduced model can (FitRun::UseReductionFloor). 0 for a
// problem without a reduced set: no other fit changes.
double ReductionFloor(const Problem& problem);
// ε is measured at the reduction's samples, not at every point of the box: the floor allows a
// tenfold error between them (RecoversTheTruthThroughTheReduction checks the fitted point's
// against that), a hundredfold cost.
constexpr double kReductionFloorMargin = 100.0;

// One FRF set's reduction (docs/reduction.md): its full and reduced coordinates and the reduced
// FRFs' largest relative error against the full model's over its lines, at the parameter samples.
struct SetReduction {
  std::string set;  // SetName
  int full_n = 0, reduced_n = 0, modes = 0, corrections = 0;
  double max_relative_error = 0.0;
  double basis_seconds = 0.0, error_seconds = 0.0;  // wall time of the basis, of the error check
};

// Each reduced set of `problem`, for FitResult::reductions.
std::vector<SetReduction> Reductions(const Problem& problem);
// The `reduction` object of `frfit fit --json`:
// {set: {full_n, reduced_n, modes, corrections, max_relative_error, seconds: {basis, error}}}.
nlohmann::ordered_json ReductionsToJson(const std::vector<SetReduction>& reductions);

// The coordinates a reduction keeps: every DOF before the beams' (Model::dofs' first ones) — the
// joints' with their springs and a free base's six without, whose rigid-body motions the
// reduction's constraint modes then carry exactly (the beams fixed to it: K_bb stays definite).
int KeptCoordinates(const Model& model);

}  // namespace frfit
