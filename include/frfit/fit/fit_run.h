// FitRun: the paper's Fig. 2 loop for one problem — GA, then a local refinement (Levenberg–
// Marquardt from the best distinct GA individuals, or the paper's Nelder–Mead from the best point),
// and while J > δ and cycles remain, a new GA seeded with the refined result — written as an
// ask/tell state machine. It never evaluates anything itself: a driver (fit/fit_driver.h) packs
// the points of many runs into one evaluator call, which is how fleets share one GPU job.
//
// The search may be followed by passes of the refinement from its result, one start each
// (RefinementPasses, fit/fit_passes.h): reweighting at the model with noise weights, the linear
// cost after a log-cost search for normalized_complex. The run names its pass and the point the
// previous one ended at (pass, pass_point); the driver installs that pass's problem before asking.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frfit/cost/modal_sets.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/optim/genetic_algorithm.h"
#include "frfit/optim/levenberg_marquardt.h"
#include "frfit/optim/nelder_mead.h"

namespace frfit {

struct Problem;

enum class FitPhase { kGeneticAlgorithm, kNelderMead, kLevenbergMarquardt, kDone };
std::string ToString(FitPhase phase);  // "ga" | "nm" | "lm" | "done"
// The number a phase is stored as in result files and history logs: 0 genetic algorithm,
// 1 Nelder–Mead, 2 Levenberg–Marquardt. PhaseFromCode returns false for any other number.
int PhaseCode(FitPhase phase);
bool PhaseFromCode(int code, FitPhase* phase);
inline constexpr const char* kPhaseCodes =
    "0 = genetic algorithm, 1 = Nelder-Mead, 2 = Levenberg-Marquardt";

// How a fit ended, named by what happened (docs/fit-config.md, "How a fit ends"):
// kConverged: a Levenberg–Marquardt refinement met its convergence tests and enough of its
//   starts agree on the best minimum, or one start fitted the data exactly;
// kCostBelowTolerance: the cost fell below fitter.fitness_tolerance (δ);
// kCostPlateau: stall_cycles cycles in a row lowered the cost by less than
//   min_cycle_improvement — the usual end of a search without refinement, an exact fit included;
// kCycleLimit: max_cycles cycles ran while the cost was still falling: more cycles may help.
enum class FitTermination { kNotDone, kCostBelowTolerance, kCycleLimit, kCostPlateau, kConverged };
std::string ToString(FitTermination termination);  // "converged", "cost_plateau", ...
// Reads ToString's names, and the names versions before 2026-11 wrote ("stalled", "max_cycles",
// "fitness_tolerance") so that their checkpoints resume. False for anything else.
bool FromString(const std::string& text, FitTermination* termination);
// One sentence for people: what the named termination means for the result ("" if unknown).
std::string TerminationMeaning(const std::string& termination);

// Where SaveState puts the cost history: inline in the state (a single fit's checkpoint), or only
// its row count, the rows themselves kept in a HistoryLog (fleets: fit/history_log.h).
enum class StateHistory { kInline, kRowCountOnly };

// One row of the cost history: after each GA generation and each Nelder–Mead iteration.
struct HistoryRow {
  int cycle = 0;
  FitPhase phase = FitPhase::kGeneticAlgorithm;
  int step = 0;                  // generation or iteration within the phase (LM: lock-step round)
  std::int64_t evaluations = 0;  // cumulative over the run
  double best_cost = 0.0;        // best of the run so far
};

class FitRun {
 public:
  FitRun(const ParameterMap& map, const FitOptions& options, std::uint64_t seed);
  // Continues a run saved by SaveState (same map and options). A state saved with
  // StateHistory::kRowCountOnly takes its history from `history`, which must hold that many rows.
  FitRun(const ParameterMap& map, const FitOptions& options, const nlohmann::json& state,
         std::vector<HistoryRow> history = {});

  bool Done() const { return phase_ == FitPhase::kDone; }
  // Points to evaluate next, packed [point][dim] in u ∈ [0,1]; empty when done.
  const std::vector<double>& Ask() const;
  // Whether the asked points need their normal equations (Levenberg–Marquardt) or costs only.
  bool WantsNormalEquations() const { return phase_ == FitPhase::kLevenbergMarquardt; }
  // Costs of the asked points, in order; `seconds` is the wall time the evaluation took.
  void Tell(std::span<const double> costs, double seconds);
  // The asked points' normal-equation terms ([point][NormalTermCount(dim)]), when
  // WantsNormalEquations().
  void TellNormalEquations(std::span<const double> normal, double seconds);

  // Measured modes whose cost joins every evaluation's on the host (fit/modal_cost.h); not
  // owned, must outlive the run; null (the default): none. Not part of the saved state: a
  // resumed run is given them again (MakeFitJob does).
  void UseModalData(const ModalData* modes) { modes_ = modes && !modes->empty() ? modes : nullptr; }
  const ModalData* modal_data() const { return modes_; }
  // The cost at or below which the search's least-squares refinement takes a start for an exact
  // fit, beside its relative test (LevenbergMarquardt::set_exact_fit_cost): the floor a reduced
  // model's reduction error explains (ReductionFloor, fit/reduce_problem.h); 0 (the default):
  // none. The search's only: a refinement pass has other weights and one start. Not part of the
  // saved state: a resumed run is given it again (MakeFitJob does).
  void UseReductionFloor(double cost);
  double reduction_floor() const { return reduction_floor_; }

  const FitOptions& options() const { return options_; }
  FitPhase phase() const { return phase_; }
  FitTermination termination() const { return termination_; }
  int cycle() const { return cycle_; }
  std::uint64_t seed() const { return seed_; }
  double best_cost() const { return best_cost_; }
  // The best cost the search ended with, under the search's weights: what lm_start_costs are
  // comparable with (best_cost is under the last refinement pass's problem).
  double search_best_cost() const { return pass_ > 0 ? search_best_cost_ : best_cost_; }
  const std::vector<double>& best_u() const { return best_u_; }
  const std::vector<double>& initial_u() const { return initial_u_; }
  double initial_population_best_cost() const { return initial_population_best_; }
  std::int64_t evaluations() const { return ga_evaluations_ + nm_evaluations_ + lm_evaluations_; }
  std::int64_t ga_evaluations() const { return ga_evaluations_; }
  // Evaluator calls this run took part in (Tell or TellNormalEquations): the sequential depth of
  // the fit, what a batched backend's wall time follows.
  std::int64_t rounds() const { return rounds_; }
  std::int64_t nm_evaluations() const { return nm_evaluations_; }
  // Points whose normal equations were evaluated (each also counts as one evaluation).
  std::int64_t lm_evaluations() const { return lm_evaluations_; }
  double ga_seconds() const { return ga_seconds_; }
  double nm_seconds() const { return nm_seconds_; }
  double lm_seconds() const { return lm_seconds_; }
  // The last Levenberg–Marquardt refinement's starts: their final costs (in start order), how
  // many agree with the best, and how the best start stopped. Empty / 0 before one has finished.
  const std::vector<double>& lm_start_costs() const { return lm_start_costs_; }
  // Where the last (or current) Levenberg–Marquardt refinement started: [start][dim] in u.
  const std::vector<double>& lm_start_points() const { return lm_start_points_; }
  int lm_starts_agreeing() const { return lm_starts_agreeing_; }
  const std::string& lm_termination() const { return lm_termination_; }
  const std::vector<HistoryRow>& history() const { return history_; }
  // The current phase's step (generation or NM iteration), for progress lines.
  int step() const;
  // The pass the run is in (0: the search) and the point the previous pass ended at (empty in
  // the search): the problem of the pass is ProblemForPass(problem, map, pass(), pass_point()).
  int pass() const { return pass_; }
  const std::vector<double>& pass_point() const { return pass_point_; }
  // The noise weights of a refinement pass's problem (NoiseWeightsAt `problem` at `point`,
  // fit/fit_passes.h) as the driver's packer computed them, kept so that the result
  // (AssembleFitResult) does not compute them again. PassWeights gives them only for the same
  // problem object, pass and point (to the bit) as the run's now; a caller that changes the
  // problem in place after the drive forgets them first.
  void KeepPassWeights(const Problem* problem, int pass, std::span<const double> point,
                       std::vector<std::vector<double>> weights);
  const std::vector<std::vector<double>>* PassWeights(const Problem& problem) const;
  void ForgetPassWeights();

  nlohmann::json SaveState(StateHistory history = StateHistory::kInline) const;

 private:
  void StartGa(const std::vector<double>& guess);
  void StartRefinement();
  void EndCycle();
  void Improve(const std::vector<double>& u, double cost);
  // The search (or a pass) has ended for `why`: the next refinement pass follows when one is due,
  // else Finish.
  void Conclude(FitTermination why);
  void StartRefinementPass();
  void Finish(FitTermination why);
  // Constraints (fit/parameter_map.h): Levenberg–Marquardt's projected step, and the repair of
  // the genetic algorithm's and Nelder–Mead's points, whose costs are then the repaired points'
  // raised by their distance from them.
  bool Constrained() const { return !map_->inequalities().empty(); }
  void StartLm(std::span<const double> starts);
  void PenaliseRepairs(std::vector<double>* costs) const;

  const ParameterMap* map_;
  const ModalData* modes_ = nullptr;
  double reduction_floor_ = 0.0;
  FitOptions options_;
  std::uint64_t seed_ = 0;
  FitPhase phase_ = FitPhase::kGeneticAlgorithm;
  FitTermination termination_ = FitTermination::kNotDone;
  int cycle_ = 1;
  std::optional<GeneticAlgorithm> ga_;
  std::optional<BoundedNelderMead> nm_;
  std::optional<LevenbergMarquardt> lm_;
  std::vector<double> initial_u_;
  std::vector<double> best_u_;
  double best_cost_ = 0.0;
  double previous_cycle_best_ = 0.0;
  int stalled_cycles_ = 0;
  double initial_population_best_ = 0.0;
  bool have_best_ = false;
  bool initial_recorded_ = false;
  int last_nm_iteration_ = -1;
  std::int64_t ga_evaluations_ = 0, nm_evaluations_ = 0, lm_evaluations_ = 0, rounds_ = 0;
  double ga_seconds_ = 0.0, nm_seconds_ = 0.0, lm_seconds_ = 0.0;
  std::vector<double> lm_start_costs_;
  std::vector<double> lm_start_points_;
  int lm_starts_agreeing_ = 0;
  std::string lm_termination_;
  std::vector<HistoryRow> history_;
  int pass_ = 0;
  std::vector<double> pass_point_;
  struct KeptPassWeights {
    const Problem* problem = nullptr;
    int pass = 0;
    std::vector<double> point;
    std::vector<std::vector<double>> weights;
  } kept_weights_;
  FitTermination search_termination_ = FitTermination::kNotDone;
  double search_best_cost_ = 0.0;
  mutable std::vector<double> repaired_;  // the repaired points of the last Ask (constraints)
};

}  // namespace frfit
