// FitResult: everything a finished fit reports — parameters, cost, history, settings and
// provenance, and per posture the measured and fitted FRFs, weights and the modal comparison —
// and its HDF5 file (layout: docs/file-formats.md): one writer and one reader
// (results/fit_result_file.cc), which every command, report, fleet and the Python module use.
#pragma once

#include <array>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/constraints.h"
#include "frfit/fit/fit_run.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/modal_cost.h"
#include "frfit/results/model_check.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/fit/regularization.h"

namespace frfit {

struct PostureResult {
  std::string name;
  std::string frf_source;
  FrfSet measured;               // as fitted: in band, symmetrised, in the fitted format
  FrfSet fitted;                 // the fitted model on the same lines and format
  std::vector<double> weights;   // [line][9]
  double cost = 0.0;             // this posture's share of the cost (posture weight included)
  std::vector<double> dropped_hz;
  ModalComparison modal;
};

// A static deflection test of the fit (cost/static_sets.h): measured and fitted displacement in
// the displacement frame's axes, m, with the measurement's 1σ.
struct StaticTestResult {
  std::string source;  // file, entry and line
  std::string posture, force_frame, displacement_frame;
  std::array<double, 3> force_n{}, measured_m{}, fitted_m{}, std_m{};

  // Σ ((fitted − measured)/σ)² over the three components.
  double Chi2() const;
};

// The result file's /modal_data/modes table: one row per measured mode with these columns.
inline constexpr const char* kModalDataColumns =
    "frequency_hz, frequency_sigma_hz, model_frequency_hz, frequency_residual, damping_residual, "
    "mac, shape_residual, cost";

struct FitResult {
  std::string frfit_version = FRFIT_VERSION;
  std::string model_name;
  std::string model_file;
  std::vector<std::string> parameter_names;
  std::vector<std::string> parameter_units;
  std::vector<double> parameters;          // fitted, Model::parameters order
  std::vector<double> initial_parameters;  // where the search started
  std::vector<double> lower, upper;        // effective bounds
  std::vector<int> free;                   // 1 where the parameter was fitted
  double cost = 0.0;
  double initial_population_best_cost = 0.0;
  std::int64_t evaluations = 0, ga_evaluations = 0, nm_evaluations = 0, lm_evaluations = 0;
  std::int64_t rounds = 0;  // evaluator calls (FitRun::rounds)
  double wall_seconds = 0.0, ga_seconds = 0.0, nm_seconds = 0.0, lm_seconds = 0.0;
  // The local refinement ("levenberg_marquardt" or "nelder_mead") and, for the former, its last
  // run's starts: final costs in start order, how many agree on the best minimum, and how the
  // best start stopped.
  std::string refinement;
  std::vector<double> start_costs;  // under the search's problem (fit/fit_passes.h)
  double search_cost = 0.0;         // the search's best, comparable with start_costs
  int refinement_passes = 0;        // passes after the search (FitRun::pass)
  std::vector<std::vector<double>> start_parameters;  // each start's free parameters (map order)
  int starts_agreeing = 0;
  std::string refinement_termination;
  int cycles = 0;
  std::string termination;
  std::uint64_t seed = 0;
  std::string backend_given, backend_used;
  std::string settings_yaml;
  std::vector<HistoryRow> history;
  std::vector<PostureResult> postures;  // the FRF sets
  // Per posture measured at several response points, its modes over all of them.
  std::vector<ModalComparisonPoints> modal_comparison_points;
  std::vector<StaticTestResult> static_tests;
  // Measured modes fitted (frfit fit --modes, fit/modal_cost.h): each mode's pairing and
  // residuals at the fitted point; empty when the fit had none.
  std::vector<ModalResidual> modal_data;
  // The shape residuals' χ² per degree of freedom at the fitted point (ShapeVarianceRatio): the
  // σ of the parameters weigh the shapes by its inverse.
  double modal_shape_variance_ratio = 1.0;
  // How well the data determine the free parameters, at the fitted point (docs/identifiability.md).
  Identifiability identifiability;
  // Every mode's 1σ per FRF set (postures' order), propagated from `identifiability` on the set's
  // host posture (fit/host_posture.h): the modal comparisons' σ, kept whole for a caller that
  // reports the modes' 1σ too (the fleet's drift) instead of propagating them again.
  std::vector<std::vector<ModeSigma>> mode_sigmas;
  // Whether the model explains the data as well as their noise allows (docs/noise.md).
  ModelCheck model_check;
  // The configured constraints at the fitted point (fit/constraints.h); empty without any.
  std::vector<ConstraintStatus> constraints;
  // The sets fitted on a reduced basis (fit/reduce_problem.h); empty when none was reduced.
  std::vector<SetReduction> reductions;
  // The regularisation (fit/regularization.h): its weight and curve; enabled false without one.
  RegularizationSummary regularization;

  // Read back (ReadFitResult): the file's path, and whether it holds the sections that files of
  // earlier versions lack. A fit in memory has both sections and no path.
  std::string file;
  bool has_identifiability = true;
  bool has_model_check = true;
};

// Collects a finished run's outcome: synthesises the fitted FRFs and modes of every posture and
// compares them with the reference modes, per set and over each posture's points.
FitResult AssembleFitResult(const Problem& problem, const ParameterMap& map, const FitRun& run,
                            const FitOptions& options);

void WriteFitResult(const std::string& path, const FitResult& result);  // atomic
// The bytes WriteFitResult writes to `path` (named in errors), for a caller that writes them
// itself: the fleet builds them under its lock on the HDF5 library and writes them outside it.
std::string FitResultImage(const std::string& path, const FitResult& result);
// What ReadFitResult reads: the whole file, or all but its per-set arrays and tables
// (/postures, /modal_comparison_points, /history, /static_tests, /modal_data) for a caller that
// needs the parameters, the cost, the provenance, identifiability, model check and constraints.
enum class FitResultSections { kAll, kSummary };

// Reads a result file WriteFitResult wrote (or an earlier version's: what it lacks stays at its
// default, NaN for the timings and costs). Not stored, so left at their defaults: search_cost,
// refinement_passes, start_parameters, each modal comparison row's fitted_index, the sets'
// coherence, averages and provenance. Postures and comparisons over points come in name order.
// Throws Error naming `path` and the object when the file is missing, not a fit result, or
// holds arrays of inconsistent shapes.
FitResult ReadFitResult(const std::string& path,
                        FitResultSections sections = FitResultSections::kAll);

// What ReadFitResult(path) returns for the file WriteFitResult(path, result) writes, without the
// file: the reader's path and sections set, what the file does not hold left at the reader's
// defaults, the sets and the comparisons over points in name order, a multi-point-free set's
// posture its name. nullopt where the file keeps part of the result only in part: an EMA
// reference (its group holds neither the FRFs nor the dropped columns, and its modes' eigenvalues
// are recomputed on reading), so a caller reads the file then. For a caller that has the result
// in memory and must show what the file holds (the fleet's reports); fit_result_file_test.cc
// checks the two equal, field by field and as the report renders them.
std::optional<FitResult> AsReadBack(FitResult result, const std::string& path);

// The --json object of `frfit fit` (DESIGN.md §5).
nlohmann::ordered_json FitResultToJson(const FitResult& result);

// Fitted parameters of a result file, in Model::parameters order; names must match the model.
std::vector<double> ParametersFromResult(const std::string& path, const Model& model);
// The same from a result already read (ReadFitResult of `path`, which errors name).
std::vector<double> ParametersFromResult(const FitResult& result, const Model& model,
                                         const std::string& path);

}  // namespace frfit
