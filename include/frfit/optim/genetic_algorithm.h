// GeneticAlgorithm: a real-coded GA on u ∈ [0,1]^n modelled on Matlab's ga (the paper's global
// stage), written as an ask/tell stepper so the Fitter can pack one generation of every problem in
// a batch into a single Evaluator call (DESIGN.md §1, §4). It never evaluates anything itself.
//
// One generation: the population is ranked by cost (non-finite costs last, ties by position); the
// elite_count best are copied unchanged; of the remaining children a crossover_fraction are made by
// scattered crossover of two tournament winners, the rest by Gaussian mutation of one winner with
// a standard deviation (in u) that shrinks linearly over the generations like Matlab's
// mutationgaussian. Children leave [0,1] only through mutation and are reflected back.
//
// Randomness comes from one seeded Rng; the same seed and the same costs give the same bits.
// GaState captures everything (the RNG included) so a checkpointed run resumes bit-identically.
// Not here: the mapping to physical values (ParameterSpace) and anything about the cost.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "frfit/common/rng.h"

namespace frfit {

enum class GaInitMode {
  kAroundGuess,  // uniform within ±init_spread of the guess (per coordinate), clipped to [0,1]
  kWholeBounds,  // uniform over the whole box [0,1]^n
};
std::string ToString(GaInitMode mode);  // "around_guess" | "whole_bounds"
bool FromString(const std::string& text, GaInitMode* mode);

struct GaOptions {
  // Individuals per generation. At least 2 (selection needs two parents to mix).
  int population_size = 80;

  // Generations bred after the initial population; the run makes at most this many Ask/Tell
  // rounds after the first. 0 evaluates the initial population only.
  int generations = 15;

  // Best individuals copied unchanged into the next generation. -1 means Matlab's default
  // ceil(0.05 * population_size). Must be < population_size so that something new is bred.
  int elite_count = -1;

  // Share of the non-elite children made by crossover; the rest are mutants. In [0,1]. The count
  // is round(crossover_fraction * (population_size - elites)), as in Matlab's ga.
  double crossover_fraction = 0.8;

  // Individuals drawn (with replacement) per tournament; the best-ranked wins. At least 1
  // (1 = uniform random selection).
  int tournament_size = 2;

  // Standard deviation in u of the Gaussian mutation at the first bred generation, and how much of
  // it is gone by the last: sigma_g = mutation_scale * (1 - mutation_shrink * g / generations).
  // mutation_scale >= 0; mutation_shrink in [0,1] (1 shrinks to zero, 0 keeps it constant).
  double mutation_scale = 0.1;
  double mutation_shrink = 1.0;

  // δ: stop as soon as the best cost is < δ. 0 turns the test off. Must be >= 0.
  double fitness_tolerance = 0.0;

  // Stop when the best cost has improved by at most stall_tolerance * |best| (relative) over the
  // last stall_generations generations. stall_generations >= 1, stall_tolerance >= 0.
  int stall_generations = 50;
  double stall_tolerance = 1e-6;

  // How the initial population is drawn. In both modes individual 0 is the caller's guess when one
  // is given (so the GA never ends worse than the guess); around_guess with no guess centres on
  // u = 0.5 and also includes that centre.
  GaInitMode init_mode = GaInitMode::kAroundGuess;
  // Half-width in u of the around_guess box. In (0,1].
  double init_spread = 0.25;

  // elite_count with -1 resolved.
  int EliteCountUsed() const;

  // False with a message naming the field and the violated constraint, e.g.
  // "population_size: expected >= 2, got 0".
  bool IsValid(std::string* error) const;
};

enum class GaTermination {
  kNotDone,
  kGenerations,       // options.generations bred and evaluated
  kFitnessTolerance,  // best cost < options.fitness_tolerance
  kStall,             // no relative improvement beyond stall_tolerance in stall_generations
};
std::string ToString(GaTermination reason);  // "not_done" | "generations" | "fitness_tolerance" |
                                             // "stall"

// One row per evaluated generation (0 = initial population), for logs and determinism tests.
struct GaGenerationRecord {
  int generation = 0;
  std::int64_t evaluations = 0;  // cumulative, after this generation
  double best_cost = 0.0;        // best ever so far (not only of this generation)
  double mean_cost = 0.0;        // mean of the population's finite costs (elites included); NaN
                                 // if none
  int non_finite = 0;            // individuals of the population with a non-finite cost
};

// Everything needed to continue a run: Serialise with to_json, read with from_json, and build
// the stepper with GeneticAlgorithm(state). Doubles are stored as hex bit patterns.
struct GaState {
  GaOptions options;
  int dim = 0;
  int generation = -1;  // last evaluated generation, -1 before the first Tell
  std::int64_t evaluations = 0;
  std::vector<double> population;  // [individual][dim], ranked best first; empty before 1st Tell
  std::vector<double> costs;       // [individual], same order
  std::vector<double> pending;     // [individual][dim], what Ask returns now
  std::vector<double> best_u;
  double best_cost = 0.0;
  std::string rng;  // Rng::SaveState
  std::vector<GaGenerationRecord> history;
  GaTermination termination = GaTermination::kNotDone;
};
void to_json(nlohmann::json& j, const GaOptions& options);
void from_json(const nlohmann::json& j, GaOptions& options);
void to_json(nlohmann::json& j, const GaState& state);
// Throws frfit::Error naming the field that is missing or malformed.
void from_json(const nlohmann::json& j, GaState& state);

class GeneticAlgorithm {
 public:
  // initial_guess_u: empty, or dim values in [0,1]. Throws frfit::Error for invalid options, dim <
  // 1 or a bad guess.
  GeneticAlgorithm(const GaOptions& options, int dim, std::span<const double> initial_guess_u,
                   std::uint64_t seed);
  // Resumes a saved run. Throws frfit::Error if the state is inconsistent.
  explicit GeneticAlgorithm(const GaState& state);

  // The individuals to evaluate next, packed [individual][dim] in u-space; empty when Done().
  // The first call returns the whole initial population (population_size points); later calls
  // return only the population_size - elites new children, because elites keep their costs.
  // Calling Ask again before Tell returns the same points.
  const std::vector<double>& Ask() const { return pending_; }
  int batch_size() const { return static_cast<int>(pending_.size()) / dim_; }

  // Costs of the points of the last Ask, in the same order (size batch_size()). Non-finite costs
  // are allowed and rank last. Throws frfit::Error on a size mismatch or when Done().
  void Tell(std::span<const double> costs);

  bool Done() const { return termination_ != GaTermination::kNotDone; }
  GaTermination termination() const { return termination_; }

  // Best individual ever evaluated and its cost (+inf and empty before the first Tell).
  const std::vector<double>& best_u() const { return best_u_; }
  double best_cost() const { return best_cost_; }
  int generation() const { return generation_; }
  // Points the caller evaluated (elites are not re-counted).
  std::int64_t evaluations() const { return evaluations_; }
  int dim() const { return dim_; }
  const GaOptions& options() const { return options_; }
  // Current ranked population and costs (after the last Tell).
  const std::vector<double>& population() const { return population_; }
  const std::vector<double>& costs() const { return costs_; }
  const std::vector<GaGenerationRecord>& history() const { return history_; }

  GaState SaveState() const;

 private:
  void Rank();
  int Tournament();
  void Breed();
  void CheckTermination();

  GaOptions options_;
  int dim_ = 0;
  int elites_ = 0;
  Rng rng_;
  int generation_ = -1;
  std::int64_t evaluations_ = 0;
  std::vector<double> population_;
  std::vector<double> costs_;
  std::vector<double> pending_;
  std::vector<double> best_u_;
  double best_cost_;
  std::vector<GaGenerationRecord> history_;
  GaTermination termination_ = GaTermination::kNotDone;
};

}  // namespace frfit
