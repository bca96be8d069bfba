// GeneticAlgorithm: selection, breeding, ranking, termination and checkpoint state
// (see genetic_algorithm.h for the scheme and why it is an ask/tell stepper).
#include "frfit/optim/genetic_algorithm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/optim/parameter_space.h"
#include "frfit/optim/state_json.h"

namespace frfit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// a ranks before b: finite before non-finite, then lower cost. Equal keys keep their order
// (stable sort), which is what makes the ranking deterministic.
bool RanksBefore(double a, double b) {
  const bool fa = std::isfinite(a), fb = std::isfinite(b);
  if (fa != fb) return fa;
  return fa && a < b;
}

std::string Got(double v) { return ", got " + FormatDouble(v); }
std::string Got(int v) { return ", got " + std::to_string(v); }

}  // namespace

constexpr std::pair<GaInitMode, const char*> kInitModes[] = {
    {GaInitMode::kAroundGuess, "around_guess"}, {GaInitMode::kWholeBounds, "whole_bounds"}};
constexpr std::pair<GaTermination, const char*> kTerminations[] = {
    {GaTermination::kNotDone, "not_done"},
    {GaTermination::kGenerations, "generations"},
    {GaTermination::kFitnessTolerance, "fitness_tolerance"},
    {GaTermination::kStall, "stall"}};

std::string ToString(GaInitMode mode) { return EnumName(kInitModes, mode); }
bool FromString(const std::string& text, GaInitMode* mode) {
  return EnumFromName(kInitModes, text, mode);
}
std::string ToString(GaTermination reason) { return EnumName(kTerminations, reason); }
static bool FromString(const std::string& text, GaTermination* reason) {
  return EnumFromName(kTerminations, text, reason);
}

int GaOptions::EliteCountUsed() const {
  // ceil(0.05 * P) in integers, so no rounding of 0.05 can change the count.
  return elite_count >= 0 ? elite_count : (population_size + 19) / 20;
}

bool GaOptions::IsValid(std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  auto in01 = [](double v) { return v >= 0.0 && v <= 1.0; };  // false for NaN
  if (population_size < 2) return fail("population_size: expected >= 2" + Got(population_size));
  if (generations < 0) return fail("generations: expected >= 0" + Got(generations));
  if (elite_count < -1) {
    return fail("elite_count: expected -1 (default) or >= 0" + Got(elite_count));
  }
  if (EliteCountUsed() >= population_size) {
    return fail("elite_count: expected < population_size (" + std::to_string(population_size) +
                ")" + Got(EliteCountUsed()));
  }
  if (!in01(crossover_fraction)) {
    return fail("crossover_fraction: expected in [0, 1]" + Got(crossover_fraction));
  }
  if (tournament_size < 1) return fail("tournament_size: expected >= 1" + Got(tournament_size));
  if (!(mutation_scale >= 0.0) || !std::isfinite(mutation_scale)) {
    return fail("mutation_scale: expected finite and >= 0" + Got(mutation_scale));
  }
  if (!in01(mutation_shrink)) {
    return fail("mutation_shrink: expected in [0, 1]" + Got(mutation_shrink));
  }
  if (!(fitness_tolerance >= 0.0) || !std::isfinite(fitness_tolerance)) {
    return fail("fitness_tolerance: expected finite and >= 0" + Got(fitness_tolerance));
  }
  if (stall_generations < 1) {
    return fail("stall_generations: expected >= 1" + Got(stall_generations));
  }
  if (!(stall_tolerance >= 0.0) || !std::isfinite(stall_tolerance)) {
    return fail("stall_tolerance: expected finite and >= 0" + Got(stall_tolerance));
  }
  if (!(init_spread > 0.0 && init_spread <= 1.0)) {
    return fail("init_spread: expected in (0, 1]" + Got(init_spread));
  }
  return true;
}

GeneticAlgorithm::GeneticAlgorithm(const GaOptions& options, int dim,
                                   std::span<const double> initial_guess_u, std::uint64_t seed)
    : options_(options), dim_(dim), rng_(seed), best_cost_(kInf) {
  std::string error;
  if (!options.IsValid(&error)) throw Error("", "ga", error);
  if (dim < 1) throw Error("GeneticAlgorithm: expected dim >= 1, got " + std::to_string(dim));
  if (!initial_guess_u.empty() && initial_guess_u.size() != static_cast<std::size_t>(dim)) {
    throw Error("GeneticAlgorithm: expected an initial guess of " + std::to_string(dim) +
                " values (or none), got " + std::to_string(initial_guess_u.size()));
  }
  for (std::size_t d = 0; d < initial_guess_u.size(); ++d) {
    if (!(initial_guess_u[d] >= 0.0 && initial_guess_u[d] <= 1.0)) {
      throw Error("GeneticAlgorithm: expected the initial guess in [0, 1], got u[" +
                  std::to_string(d) + "] = " + FormatDouble(initial_guess_u[d]));
    }
  }
  elites_ = options_.EliteCountUsed();

  const int p = options_.population_size;
  std::vector<double> guess(initial_guess_u.begin(), initial_guess_u.end());
  const bool around = options_.init_mode == GaInitMode::kAroundGuess;
  if (guess.empty() && around) guess.assign(dim_, 0.5);
  pending_.resize(static_cast<std::size_t>(p) * dim_);
  int first_random = 0;
  if (!guess.empty()) {
    std::copy(guess.begin(), guess.end(), pending_.begin());
    first_random = 1;
  }
  for (int i = first_random; i < p; ++i) {
    double* x = &pending_[static_cast<std::size_t>(i) * dim_];
    for (int d = 0; d < dim_; ++d) {
      if (around) {
        const double v = guess[d] + options_.init_spread * (2.0 * rng_.Uniform() - 1.0);
        x[d] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
      } else {
        x[d] = rng_.Uniform();
      }
    }
  }
}

GeneticAlgorithm::GeneticAlgorithm(const GaState& s)
    : options_(s.options),
      dim_(s.dim),
      rng_(0),
      generation_(s.generation),
      evaluations_(s.evaluations),
      population_(s.population),
      costs_(s.costs),
      pending_(s.pending),
      best_u_(s.best_u),
      best_cost_(s.best_cost),
      history_(s.history),
      termination_(s.termination) {
  std::string error;
  if (!options_.IsValid(&error)) throw Error("", "ga_state.options", error);
  elites_ = options_.EliteCountUsed();
  const std::size_t p = options_.population_size;
  const auto bad = [](const std::string& what) { throw Error("", "ga_state", what); };
  if (dim_ < 1) bad("expected dim >= 1, got " + std::to_string(dim_));
  const std::size_t n = dim_;
  if (generation_ < -1) bad("expected generation >= -1");
  const bool started = generation_ >= 0;
  if (population_.size() != (started ? p * n : 0) || costs_.size() != (started ? p : 0)) {
    bad("population/costs sizes do not match population_size and dim");
  }
  const std::size_t batch = started ? (p - elites_) * n : p * n;
  if (pending_.size() != (Done() ? 0 : batch)) bad("pending size does not match the stage");
  if (best_u_.size() != (started ? n : 0)) bad("best_u size does not match dim");
  if (history_.size() != static_cast<std::size_t>(generation_ + 1)) {
    bad("history length does not match generation");
  }
  rng_.RestoreState(s.rng);
}

GaState GeneticAlgorithm::SaveState() const {
  GaState s;
  s.options = options_;
  s.dim = dim_;
  s.generation = generation_;
  s.evaluations = evaluations_;
  s.population = population_;
  s.costs = costs_;
  s.pending = pending_;
  s.best_u = best_u_;
  s.best_cost = best_cost_;
  s.rng = rng_.SaveState();
  s.history = history_;
  s.termination = termination_;
  return s;
}

void GeneticAlgorithm::Tell(std::span<const double> costs) {
  if (Done())
    throw Error("GeneticAlgorithm::Tell: the run is done (" + ToString(termination_) + ")");
  const std::size_t n = dim_;
  const std::size_t batch = pending_.size() / n;
  if (costs.size() != batch) {
    throw Error("GeneticAlgorithm::Tell: expected " + std::to_string(batch) + " costs, got " +
                std::to_string(costs.size()));
  }
  evaluations_ += static_cast<std::int64_t>(batch);

  // Elites are the first elites_ of the ranked population and keep their costs; the told
  // children follow them.
  const std::size_t kept = generation_ < 0 ? 0 : static_cast<std::size_t>(elites_);
  population_.resize(kept * n);
  costs_.resize(kept);
  population_.insert(population_.end(), pending_.begin(), pending_.end());
  costs_.insert(costs_.end(), costs.begin(), costs.end());
  pending_.clear();
  ++generation_;
  Rank();

  if (best_u_.empty() || RanksBefore(costs_[0], best_cost_)) {
    best_u_.assign(population_.begin(), population_.begin() + n);
    best_cost_ = costs_[0];
  }

  GaGenerationRecord record;
  record.generation = generation_;
  record.evaluations = evaluations_;
  record.best_cost = best_cost_;
  double sum = 0.0;
  int finite = 0;
  for (double c : costs_) {
    if (std::isfinite(c)) {
      sum += c;
      ++finite;
    }
  }
  record.non_finite = static_cast<int>(costs_.size()) - finite;
  record.mean_cost = finite > 0 ? sum / finite : std::nan("");
  history_.push_back(record);

  CheckTermination();
  if (!Done()) Breed();
}

void GeneticAlgorithm::Rank() {
  const std::size_t p = costs_.size(), n = dim_;
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return RanksBefore(costs_[a], costs_[b]); });
  std::vector<double> population(p * n), costs(p);
  for (std::size_t r = 0; r < p; ++r) {
    costs[r] = costs_[order[r]];
    std::copy_n(&population_[order[r] * n], n, &population[r * n]);
  }
  population_.swap(population);
  costs_.swap(costs);
}

void GeneticAlgorithm::CheckTermination() {
  if (options_.fitness_tolerance > 0.0 && best_cost_ < options_.fitness_tolerance) {
    termination_ = GaTermination::kFitnessTolerance;
    return;
  }
  if (generation_ >= options_.generations) {
    termination_ = GaTermination::kGenerations;
    return;
  }
  if (generation_ >= options_.stall_generations) {
    const double before = history_[generation_ - options_.stall_generations].best_cost;
    // NaN (an infinite best) compares false: a run that has never seen a finite cost is not
    // "stalled", it is failing, and runs on to its generation limit.
    if (before - best_cost_ <= options_.stall_tolerance * std::fabs(before)) {
      termination_ = GaTermination::kStall;
    }
  }
}

int GeneticAlgorithm::Tournament() {
  // The population is ranked, so the lowest index drawn is the best-ranked contestant.
  std::uint64_t winner = rng_.UniformInt(options_.population_size);
  for (int k = 1; k < options_.tournament_size; ++k) {
    winner = std::min(winner, rng_.UniformInt(options_.population_size));
  }
  return static_cast<int>(winner);
}

void GeneticAlgorithm::Breed() {
  const std::size_t n = dim_;
  const int children = options_.population_size - elites_;
  const int crossovers =
      static_cast<int>(std::lround(options_.crossover_fraction * static_cast<double>(children)));
  // generation_ + 1 is the generation being bred (1 .. generations).
  double sigma = options_.mutation_scale *
                 (1.0 - options_.mutation_shrink * static_cast<double>(generation_ + 1) /
                            static_cast<double>(options_.generations));
  if (sigma < 0.0) sigma = 0.0;

  pending_.resize(static_cast<std::size_t>(children) * n);
  for (int c = 0; c < children; ++c) {
    double* x = &pending_[static_cast<std::size_t>(c) * n];
    if (c < crossovers) {
      const double* a = &population_[static_cast<std::size_t>(Tournament()) * n];
      const double* b = &population_[static_cast<std::size_t>(Tournament()) * n];
      for (std::size_t d = 0; d < n; ++d) x[d] = rng_.Uniform() < 0.5 ? a[d] : b[d];
    } else {
      const double* a = &population_[static_cast<std::size_t>(Tournament()) * n];
      for (std::size_t d = 0; d < n; ++d) {
        x[d] = ReflectIntoUnitInterval(a[d] + sigma * rng_.Normal());
      }
    }
  }
}

// --- JSON ----------------------------------------------------------------------------------------

void to_json(nlohmann::json& j, const GaOptions& o) {
  j = nlohmann::json{{"population_size", o.population_size},
                     {"generations", o.generations},
                     {"elite_count", o.elite_count},
                     {"crossover_fraction", DoubleToHex(o.crossover_fraction)},
                     {"tournament_size", o.tournament_size},
                     {"mutation_scale", DoubleToHex(o.mutation_scale)},
                     {"mutation_shrink", DoubleToHex(o.mutation_shrink)},
                     {"fitness_tolerance", DoubleToHex(o.fitness_tolerance)},
                     {"stall_generations", o.stall_generations},
                     {"stall_tolerance", DoubleToHex(o.stall_tolerance)},
                     {"init_mode", ToString(o.init_mode)},
                     {"init_spread", DoubleToHex(o.init_spread)}};
}

void from_json(const nlohmann::json& j, GaOptions& o) {
  const std::string ctx = "ga_options";
  auto hex = [&](const char* key) {
    return DoubleFromHex(JsonField<std::string>(j, key, ctx), ctx + "." + key);
  };
  o.population_size = JsonField<int>(j, "population_size", ctx);
  o.generations = JsonField<int>(j, "generations", ctx);
  o.elite_count = JsonField<int>(j, "elite_count", ctx);
  o.crossover_fraction = hex("crossover_fraction");
  o.tournament_size = JsonField<int>(j, "tournament_size", ctx);
  o.mutation_scale = hex("mutation_scale");
  o.mutation_shrink = hex("mutation_shrink");
  o.fitness_tolerance = hex("fitness_tolerance");
  o.stall_generations = JsonField<int>(j, "stall_generations", ctx);
  o.stall_tolerance = hex("stall_tolerance");
  const std::string mode = JsonField<std::string>(j, "init_mode", ctx);
  if (!FromString(mode, &o.init_mode)) {
    throw Error("", ctx + ".init_mode", "expected around_guess or whole_bounds, got " + mode);
  }
  o.init_spread = hex("init_spread");
}

void to_json(nlohmann::json& j, const GaState& s) {
  nlohmann::json history = nlohmann::json::array();
  for (const GaGenerationRecord& r : s.history) {
    history.push_back({{"generation", r.generation},
                       {"evaluations", r.evaluations},
                       {"best_cost", DoubleToHex(r.best_cost)},
                       {"mean_cost", DoubleToHex(r.mean_cost)},
                       {"non_finite", r.non_finite}});
  }
  j = nlohmann::json{{"format", "frfit.ga_state.v1"},
                     {"options", s.options},
                     {"dim", s.dim},
                     {"generation", s.generation},
                     {"evaluations", s.evaluations},
                     {"population", DoublesToJson(s.population)},
                     {"costs", DoublesToJson(s.costs)},
                     {"pending", DoublesToJson(s.pending)},
                     {"best_u", DoublesToJson(s.best_u)},
                     {"best_cost", DoubleToHex(s.best_cost)},
                     {"rng", s.rng},
                     {"history", history},
                     {"termination", ToString(s.termination)}};
}

void from_json(const nlohmann::json& j, GaState& s) {
  const std::string ctx = "ga_state";
  const std::string format = JsonField<std::string>(j, "format", ctx);
  if (format != "frfit.ga_state.v1") {
    throw Error("", ctx + ".format", "expected frfit.ga_state.v1, got " + format);
  }
  s.options = JsonField<nlohmann::json>(j, "options", ctx).get<GaOptions>();
  s.dim = JsonField<int>(j, "dim", ctx);
  s.generation = JsonField<int>(j, "generation", ctx);
  s.evaluations = JsonField<std::int64_t>(j, "evaluations", ctx);
  s.population =
      DoublesFromJson(JsonField<nlohmann::json>(j, "population", ctx), ctx + ".population");
  s.costs = DoublesFromJson(JsonField<nlohmann::json>(j, "costs", ctx), ctx + ".costs");
  s.pending = DoublesFromJson(JsonField<nlohmann::json>(j, "pending", ctx), ctx + ".pending");
  s.best_u = DoublesFromJson(JsonField<nlohmann::json>(j, "best_u", ctx), ctx + ".best_u");
  s.best_cost = DoubleFromHex(JsonField<std::string>(j, "best_cost", ctx), ctx + ".best_cost");
  s.rng = JsonField<std::string>(j, "rng", ctx);
  const nlohmann::json history = JsonField<nlohmann::json>(j, "history", ctx);
  if (!history.is_array()) throw Error("", ctx + ".history", "expected an array");
  s.history.clear();
  for (std::size_t k = 0; k < history.size(); ++k) {
    const std::string hc = ctx + ".history[" + std::to_string(k) + "]";
    const nlohmann::json& h = history[k];
    GaGenerationRecord r;
    r.generation = JsonField<int>(h, "generation", hc);
    r.evaluations = JsonField<std::int64_t>(h, "evaluations", hc);
    r.best_cost = DoubleFromHex(JsonField<std::string>(h, "best_cost", hc), hc + ".best_cost");
    r.mean_cost = DoubleFromHex(JsonField<std::string>(h, "mean_cost", hc), hc + ".mean_cost");
    r.non_finite = JsonField<int>(h, "non_finite", hc);
    s.history.push_back(r);
  }
  const std::string reason = JsonField<std::string>(j, "termination", ctx);
  if (!FromString(reason, &s.termination)) {
    throw Error("", ctx + ".termination", "expected a GaTermination name, got " + reason);
  }
}

}  // namespace frfit
