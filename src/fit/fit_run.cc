#include "frfit/fit/fit_run.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/common/rng.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/modal_cost.h"
#include "frfit/fit/prior.h"
#include "frfit/optim/state_json.h"

namespace frfit {
namespace {

const std::vector<double> kNothing;

}  // namespace

constexpr std::pair<FitPhase, const char*> kPhases[] = {{FitPhase::kGeneticAlgorithm, "ga"},
                                                        {FitPhase::kNelderMead, "nm"},
                                                        {FitPhase::kLevenbergMarquardt, "lm"},
                                                        {FitPhase::kDone, "done"}};
// The names results and checkpoints give; kOlderTerminations: earlier names, still read.
constexpr std::pair<FitTermination, const char*> kTerminations[] = {
    {FitTermination::kNotDone, "not_done"},
    {FitTermination::kCostBelowTolerance, "cost_below_tolerance"},
    {FitTermination::kCycleLimit, "cycle_limit"},
    {FitTermination::kCostPlateau, "cost_plateau"},
    {FitTermination::kConverged, "converged"}};
constexpr std::pair<FitTermination, const char*> kOlderTerminations[] = {
    {FitTermination::kCostBelowTolerance, "fitness_tolerance"},
    {FitTermination::kCycleLimit, "max_cycles"},
    {FitTermination::kCostPlateau, "stalled"}};

std::string ToString(FitPhase phase) { return EnumName(kPhases, phase); }
static bool FromString(const std::string& text, FitPhase* phase) {
  return EnumFromName(kPhases, text, phase);
}

int PhaseCode(FitPhase phase) {
  return phase == FitPhase::kNelderMead ? 1 : phase == FitPhase::kLevenbergMarquardt ? 2 : 0;
}

bool PhaseFromCode(int code, FitPhase* phase) {
  if (code < 0 || code > 2) return false;
  *phase = code == 0   ? FitPhase::kGeneticAlgorithm
           : code == 1 ? FitPhase::kNelderMead
                       : FitPhase::kLevenbergMarquardt;
  return true;
}

std::string ToString(FitTermination t) { return EnumName(kTerminations, t); }
bool FromString(const std::string& text, FitTermination* termination) {
  return EnumFromName(kTerminations, text, termination) ||
         EnumFromName(kOlderTerminations, text, termination);
}

std::string TerminationMeaning(const std::string& termination) {
  FitTermination t;
  if (!FromString(termination, &t)) return "";
  switch (t) {
    case FitTermination::kConverged:
      return "the least-squares refinement converged and its starts agree on the best minimum "
             "(or one fitted the data exactly)";
    case FitTermination::kCostBelowTolerance:
      return "the cost fell below fitter.fitness_tolerance";
    case FitTermination::kCostPlateau:
      return "the last cycles lowered the cost by less than fitter.min_cycle_improvement: the "
             "search has settled (an exact fit ends so too); not a failure";
    case FitTermination::kCycleLimit:
      return "fitter.max_cycles cycles ran while the cost was still falling: more cycles may "
             "lower it further";
    case FitTermination::kNotDone: return "the fit has not finished";
  }
  return "";
}

// Seeds derived with SplitMix64 give the random initial guess and each cycle's GA their own
// reproducible streams.
FitRun::FitRun(const ParameterMap& map, const FitOptions& options, std::uint64_t seed)
    : map_(&map), options_(options), seed_(seed) {
  if (options.parameters.initial == InitialGuess::kRandom) {
    Rng rng(SplitMix64(seed ^ 0x5EEDF00DULL));
    initial_u_.resize(map.dim());
    for (double& u : initial_u_) u = rng.Uniform();
  } else {
    initial_u_ = map.InitialU();
  }
  if (Constrained()) initial_u_ = map.Repair(initial_u_);
  StartGa(initial_u_);
}

void FitRun::StartGa(const std::vector<double>& guess) {
  phase_ = FitPhase::kGeneticAlgorithm;
  const std::uint64_t cycle_seed = SplitMix64(seed_ + 1000003ULL * cycle_);
  if (cycle_ > 1 && options_.fitter.restart == RestartMode::kIndependent) {
    GaOptions fresh = options_.genetic_algorithm;
    fresh.init_mode = GaInitMode::kWholeBounds;
    ga_.emplace(fresh, map_->dim(), std::span<const double>(), cycle_seed);
    return;
  }
  ga_.emplace(options_.genetic_algorithm, map_->dim(), guess, cycle_seed);
}

// Levenberg–Marquardt starts: the best point so far, the fit's initial guess, then the GA's
// ranked population, skipping any point within start_separation (in every coordinate) of one
// already taken and any whose cost is not finite.
void FitRun::StartRefinement() {
  const int dim = map_->dim();
  if (options_.fitter.refinement == Refinement::kNelderMead) {
    // Nelder–Mead starts from the best point seen so far (the GA's, or an earlier cycle's).
    nm_.emplace(options_.nelder_mead, best_u_);
    phase_ = FitPhase::kNelderMead;
    last_nm_iteration_ = -1;
    return;
  }
  const LevenbergMarquardtOptions& lm = options_.levenberg_marquardt;
  std::vector<double> starts(best_u_);
  std::vector<const double*> candidates = {initial_u_.data()};
  const std::vector<double>& population = ga_->population();
  const std::vector<double>& costs = ga_->costs();
  for (size_t i = 0; i < costs.size(); ++i)
    if (std::isfinite(costs[i])) candidates.push_back(population.data() + i * dim);
  std::vector<std::vector<double>> repaired;  // GA individuals are repaired before they start
  if (Constrained())
    for (const double*& candidate : candidates)
      candidate = repaired.emplace_back(map_->Repair(std::span<const double>(candidate, dim))).data();
  for (const double* candidate : candidates) {
    if (static_cast<int>(starts.size()) >= lm.starts * dim) break;
    bool distinct = true;
    for (size_t at = 0; at < starts.size() && distinct; at += dim) {
      double distance = 0.0;
      for (int k = 0; k < dim; ++k)
        distance = std::max(distance, std::abs(candidate[k] - starts[at + k]));
      distinct = distance >= lm.start_separation && distance > 0.0;
    }
    if (distinct) starts.insert(starts.end(), candidate, candidate + dim);
  }
  StartLm(starts);
  lm_start_points_ = std::move(starts);
  phase_ = FitPhase::kLevenbergMarquardt;
}

const std::vector<double>& FitRun::Ask() const {
  if (Constrained() && (phase_ == FitPhase::kGeneticAlgorithm || phase_ == FitPhase::kNelderMead)) {
    const std::vector<double>& asked =
        phase_ == FitPhase::kGeneticAlgorithm ? ga_->Ask() : nm_->Ask();
    const size_t dim = static_cast<size_t>(map_->dim());
    repaired_.resize(asked.size());
    for (size_t at = 0; at < asked.size(); at += dim) {
      const std::vector<double> point = map_->Repair(std::span<const double>(asked).subspan(at, dim));
      std::copy(point.begin(), point.end(), repaired_.begin() + at);
    }
    return repaired_;
  }
  if (phase_ == FitPhase::kGeneticAlgorithm) return ga_->Ask();
  if (phase_ == FitPhase::kNelderMead) return nm_->Ask();
  if (phase_ == FitPhase::kLevenbergMarquardt) return lm_->Ask();
  return kNothing;
}

int FitRun::step() const {
  if (phase_ == FitPhase::kGeneticAlgorithm) return ga_->generation();
  if (phase_ == FitPhase::kNelderMead) return nm_->iterations();
  if (phase_ == FitPhase::kLevenbergMarquardt) return lm_->round();
  return 0;
}

void FitRun::Improve(const std::vector<double>& u, double cost) {
  if (!have_best_ || cost < best_cost_) {
    best_u_ = Constrained() ? map_->Repair(u) : u;
    best_cost_ = cost;
    have_best_ = true;
  }
}

void FitRun::Conclude(FitTermination why) {
  if (pass_ == 0) search_termination_ = why, search_best_cost_ = best_cost_;
  if (pass_ < RefinementPasses(options_.cost) && have_best_) return StartRefinementPass();
  Finish(search_termination_);
}

// One start of the configured refinement from the best point, on the next pass's problem. Its
// costs are not comparable with the previous pass's: the best is what this pass finds.
void FitRun::StartRefinementPass() {
  ++pass_;
  pass_point_ = best_u_;
  ga_.reset();
  nm_.reset();
  lm_.reset();
  have_best_ = false;
  best_cost_ = std::numeric_limits<double>::infinity();
  // The same cycle: a pass finishes the refinement it follows, its history rows counting on.
  if (options_.fitter.refinement == Refinement::kNelderMead) {
    nm_.emplace(options_.nelder_mead, pass_point_);
    phase_ = FitPhase::kNelderMead;
    last_nm_iteration_ = -1;
    return;
  }
  StartLm(pass_point_);
  phase_ = FitPhase::kLevenbergMarquardt;
}

void FitRun::UseReductionFloor(double cost) {
  reduction_floor_ = cost;
  if (lm_ && pass_ == 0) lm_->set_exact_fit_cost(cost);
}

void FitRun::StartLm(std::span<const double> starts) {
  lm_.emplace(options_.levenberg_marquardt, map_->dim(), starts);
  if (pass_ == 0) lm_->set_exact_fit_cost(reduction_floor_);
  if (!Constrained()) return;
  const ParameterMap* map = map_;
  lm_->set_step_projection([map](std::span<const double> u, std::span<const double> target,
                                 std::span<const double> metric) {
    return map->ProjectStep(u, target, metric);
  });
}

// A repaired point's cost is the cost at its repair times 1 + its distance from it in u: the
// search sees the infeasible side rise away from the boundary instead of a plateau.
void FitRun::PenaliseRepairs(std::vector<double>* costs) const {
  const std::vector<double>& asked = phase_ == FitPhase::kGeneticAlgorithm ? ga_->Ask() : nm_->Ask();
  const size_t dim = static_cast<size_t>(map_->dim());
  for (size_t i = 0; i < costs->size(); ++i) {
    double distance2 = 0.0;
    for (size_t j = 0; j < dim; ++j) {
      const double d = asked[i * dim + j] - repaired_[i * dim + j];
      distance2 += d * d;
    }
    (*costs)[i] *= 1.0 + std::sqrt(distance2);
  }
}

void FitRun::Finish(FitTermination why) {
  phase_ = FitPhase::kDone;
  termination_ = why;
  ga_.reset();
  nm_.reset();
  lm_.reset();
}

void FitRun::Tell(std::span<const double> told, double seconds) {
  if (Done()) throw Error("", "fit", "Tell on a finished run");
  if (WantsNormalEquations())
    throw Error("", "fit", "the refinement needs normal equations, not costs");
  // The prior's and the modal data's terms join the evaluator's costs here, on the host
  // (fit/prior.h, fit/modal_cost.h).
  std::vector<double> with_prior;
  std::span<const double> costs = told;
  if (!map_->priors().empty() || modes_ != nullptr || Constrained()) {
    with_prior.assign(told.begin(), told.end());
    AddPriorCosts(*map_, Ask(), with_prior);
    if (modes_ != nullptr) AddModalCosts(*modes_, *map_, Ask(), with_prior);
    if (Constrained()) PenaliseRepairs(&with_prior);
    costs = with_prior;
  }
  const std::int64_t count = static_cast<std::int64_t>(costs.size());
  const double delta = options_.fitter.fitness_tolerance;
  if (phase_ == FitPhase::kGeneticAlgorithm) {
    ga_->Tell(costs);
    ga_evaluations_ += count;
    ga_seconds_ += seconds;
    if (!initial_recorded_) {
      initial_population_best_ = std::numeric_limits<double>::infinity();
      for (double c : costs)
        if (c < initial_population_best_) initial_population_best_ = c;
      initial_recorded_ = true;
    }
    Improve(ga_->best_u(), ga_->best_cost());
    history_.push_back({cycle_, FitPhase::kGeneticAlgorithm, ga_->generation(), evaluations(), best_cost_});
    if (best_cost_ < delta) return Conclude(FitTermination::kCostBelowTolerance);
    if (ga_->Done()) {
      StartRefinement();
      ga_.reset();
    }
    return;
  }
  nm_->Tell(costs);
  nm_evaluations_ += count;
  nm_seconds_ += seconds;
  Improve(nm_->best_u(), nm_->best_cost());
  if (nm_->iterations() != last_nm_iteration_ || nm_->Done()) {
    last_nm_iteration_ = nm_->iterations();
    history_.push_back({cycle_, FitPhase::kNelderMead, nm_->iterations(), evaluations(), best_cost_});
  }
  if (best_cost_ < delta) return Conclude(FitTermination::kCostBelowTolerance);
  if (!nm_->Done()) return;
  if (pass_ > 0) return Conclude(search_termination_);
  EndCycle();
}

void FitRun::TellNormalEquations(std::span<const double> told, double seconds) {
  if (!WantsNormalEquations()) throw Error("", "fit", "normal equations told outside a refinement");
  ++rounds_;
  const std::int64_t count = lm_->batch_size();
  if (map_->priors().empty() && modes_ == nullptr) {
    lm_->Tell(told);
  } else {
    std::vector<double> normal(told.begin(), told.end());
    AddPriorNormalTerms(*map_, lm_->Ask(), normal);
    if (modes_ != nullptr) AddModalNormalTerms(*modes_, *map_, lm_->Ask(), normal);
    lm_->Tell(normal);
  }
  lm_evaluations_ += count;
  lm_seconds_ += seconds;
  Improve(lm_->best_u(), lm_->best_cost());
  history_.push_back(
      {cycle_, FitPhase::kLevenbergMarquardt, lm_->round(), evaluations(), best_cost_});
  if (best_cost_ < options_.fitter.fitness_tolerance)
    return Conclude(FitTermination::kCostBelowTolerance);
  if (!lm_->Done()) return;
  // A refinement pass has one start: the search's multi-start summary stays as it was.
  if (pass_ > 0) return Conclude(search_termination_);
  lm_start_costs_.clear();
  for (const LmStart& start : lm_->starts()) lm_start_costs_.push_back(start.cost);
  lm_starts_agreeing_ = lm_->agreeing_starts();
  const LmTermination how = lm_->starts()[lm_->best_start()].termination;
  lm_termination_ = ToString(how);
  const int needed = std::min<int>(options_.levenberg_marquardt.agreeing_starts,
                                   static_cast<int>(lm_->starts().size()));
  const bool settled = lm_->exact_fit() || lm_starts_agreeing_ >= needed;
  // The refined point is the best of the run only if no earlier cycle did better.
  if (IsConverged(how) && settled && lm_->best_cost() <= best_cost_) {
    lm_.reset();
    return Conclude(FitTermination::kConverged);
  }
  EndCycle();
}

void FitRun::EndCycle() {
  nm_.reset();
  lm_.reset();
  if (cycle_ >= options_.fitter.max_cycles) return Conclude(FitTermination::kCycleLimit);
  if (cycle_ > 1) {
    const bool progress = previous_cycle_best_ - best_cost_ >=
                          options_.fitter.min_cycle_improvement * previous_cycle_best_;
    stalled_cycles_ = progress ? 0 : stalled_cycles_ + 1;
    if (stalled_cycles_ >= options_.fitter.stall_cycles) return Conclude(FitTermination::kCostPlateau);
  }
  previous_cycle_best_ = best_cost_;
  ++cycle_;
  StartGa(best_u_);
}

// --- checkpoint state ----------------------------------------------------------------------------

void FitRun::KeepPassWeights(const Problem* problem, int pass, std::span<const double> point,
                             std::vector<std::vector<double>> weights) {
  kept_weights_ = {problem, pass, {point.begin(), point.end()}, std::move(weights)};
}

const std::vector<std::vector<double>>* FitRun::PassWeights(const Problem& problem) const {
  const KeptPassWeights& k = kept_weights_;
  const bool same_point =
      k.point.size() == pass_point_.size() &&
      std::equal(k.point.begin(), k.point.end(), pass_point_.begin(), [](double a, double b) {
        return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
      });
  return k.problem == &problem && k.pass == pass_ && same_point ? &k.weights : nullptr;
}

void FitRun::ForgetPassWeights() { kept_weights_ = {}; }

nlohmann::json FitRun::SaveState(StateHistory history) const {
  nlohmann::json j;
  j["seed"] = std::to_string(seed_);
  j["phase"] = ToString(phase_);
  j["termination"] = ToString(termination_);
  j["cycle"] = cycle_;
  if (ga_) j["ga"] = ga_->SaveState();
  if (nm_) j["nm"] = nm_->SaveState();
  if (lm_) j["lm"] = lm_->SaveState();
  j["initial_u"] = DoublesToJson(initial_u_);
  j["best_u"] = DoublesToJson(best_u_);
  j["best_cost"] = DoubleToHex(best_cost_);
  j["previous_cycle_best"] = DoubleToHex(previous_cycle_best_);
  j["stalled_cycles"] = stalled_cycles_;
  j["initial_population_best"] = DoubleToHex(initial_population_best_);
  j["have_best"] = have_best_;
  j["initial_recorded"] = initial_recorded_;
  j["last_nm_iteration"] = last_nm_iteration_;
  j["ga_evaluations"] = ga_evaluations_;
  j["nm_evaluations"] = nm_evaluations_;
  j["ga_seconds"] = ga_seconds_;
  j["nm_seconds"] = nm_seconds_;
  j["lm_evaluations"] = lm_evaluations_;
  j["rounds"] = rounds_;
  j["lm_seconds"] = lm_seconds_;
  j["lm_start_costs"] = DoublesToJson(lm_start_costs_);
  j["lm_start_points"] = DoublesToJson(lm_start_points_);
  j["lm_starts_agreeing"] = lm_starts_agreeing_;
  j["lm_termination"] = lm_termination_;
  j["pass"] = pass_;
  j["pass_point"] = DoublesToJson(pass_point_);
  j["search_termination"] = ToString(search_termination_);
  j["search_best_cost"] = DoubleToHex(search_best_cost_);
  if (history == StateHistory::kRowCountOnly) {
    j["history_rows"] = history_.size();
    return j;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const HistoryRow& r : history_)
    rows.push_back({r.cycle, ToString(r.phase), r.step, r.evaluations, DoubleToHex(r.best_cost)});
  j["history"] = rows;
  return j;
}

FitRun::FitRun(const ParameterMap& map, const FitOptions& options, const nlohmann::json& j,
               std::vector<HistoryRow> history)
    : map_(&map), options_(options) {
  const std::string ctx = "checkpoint";
  try {
    seed_ = std::stoull(j.at("seed").get<std::string>());
    const std::string phase = j.at("phase").get<std::string>();
    if (!FromString(phase, &phase_)) phase_ = FitPhase::kDone;
    auto termination = [&ctx](const std::string& text) {
      FitTermination out = FitTermination::kNotDone;
      if (!FromString(text, &out))
        throw Error("", ctx + ".termination", "expected a fit termination name, got '" + text + "'");
      return out;
    };
    termination_ = termination(j.at("termination").get<std::string>());
    cycle_ = j.at("cycle").get<int>();
    if (j.contains("ga")) ga_.emplace(j.at("ga").get<GaState>());
    if (j.contains("nm")) nm_.emplace(j.at("nm").get<NelderMeadState>());
    if (j.contains("lm")) {
      lm_.emplace(j.at("lm"));
      if (Constrained())
        lm_->set_step_projection([&map](std::span<const double> u, std::span<const double> target,
                                        std::span<const double> metric) {
          return map.ProjectStep(u, target, metric);
        });
    }
    initial_u_ = DoublesFromJson(j.at("initial_u"), ctx + ".initial_u");
    best_u_ = DoublesFromJson(j.at("best_u"), ctx + ".best_u");
    best_cost_ = DoubleFromHex(j.at("best_cost").get<std::string>(), ctx + ".best_cost");
    previous_cycle_best_ = DoubleFromHex(j.at("previous_cycle_best").get<std::string>(), ctx);
    stalled_cycles_ = j.at("stalled_cycles").get<int>();
    initial_population_best_ = DoubleFromHex(j.at("initial_population_best").get<std::string>(), ctx);
    have_best_ = j.at("have_best").get<bool>();
    initial_recorded_ = j.at("initial_recorded").get<bool>();
    last_nm_iteration_ = j.at("last_nm_iteration").get<int>();
    ga_evaluations_ = j.at("ga_evaluations").get<std::int64_t>();
    nm_evaluations_ = j.at("nm_evaluations").get<std::int64_t>();
    ga_seconds_ = j.at("ga_seconds").get<double>();
    nm_seconds_ = j.at("nm_seconds").get<double>();
    lm_evaluations_ = j.at("lm_evaluations").get<std::int64_t>();
    rounds_ = j.at("rounds").get<std::int64_t>();
    lm_seconds_ = j.at("lm_seconds").get<double>();
    lm_start_costs_ = DoublesFromJson(j.at("lm_start_costs"), ctx + ".lm_start_costs");
    lm_start_points_ = DoublesFromJson(j.at("lm_start_points"), ctx + ".lm_start_points");
    lm_starts_agreeing_ = j.at("lm_starts_agreeing").get<int>();
    lm_termination_ = j.at("lm_termination").get<std::string>();
    pass_ = j.at("pass").get<int>();
    pass_point_ = DoublesFromJson(j.at("pass_point"), ctx + ".pass_point");
    search_termination_ = termination(j.at("search_termination").get<std::string>());
    search_best_cost_ = DoubleFromHex(j.at("search_best_cost").get<std::string>(), ctx);
    if (j.contains("history_rows")) {
      const size_t rows = j.at("history_rows").get<size_t>();
      if (history.size() != rows)
        throw Error(ctx, "history_rows",
                    "the state records " + std::to_string(rows) + " history rows, the history log holds " +
                        std::to_string(history.size()) + " for this run");
      history_ = std::move(history);
    } else {
      for (const auto& row : j.at("history")) {
        HistoryRow r;
        r.cycle = row.at(0).get<int>();
        const std::string phase = row.at(1).get<std::string>();
        // A row is a GA generation, an LM step or else a Nelder–Mead one.
        if (!FromString(phase, &r.phase) || r.phase == FitPhase::kDone)
          r.phase = FitPhase::kNelderMead;
        r.step = row.at(2).get<int>();
        r.evaluations = row.at(3).get<std::int64_t>();
        r.best_cost = DoubleFromHex(row.at(4).get<std::string>(), ctx + ".history");
        history_.push_back(r);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ctx, "run", std::string("damaged checkpoint state: ") + e.what());
  }
  if ((phase_ == FitPhase::kGeneticAlgorithm && !ga_) ||
      (phase_ == FitPhase::kNelderMead && !nm_) ||
      (phase_ == FitPhase::kLevenbergMarquardt && !lm_))
    throw Error(ctx, "run", "damaged checkpoint state: the optimiser of the current phase is missing");
}

}  // namespace frfit
