// Tests for GeneticAlgorithm: convergence on known optima, determinism (same seed, same bits),
// checkpoint/resume bit-identity, termination reasons, option validation, bounds.
#include "frfit/optim/genetic_algorithm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/optim/nelder_mead.h"

namespace frfit {
namespace {

using Cost = std::function<double(const double*, int)>;

double ShiftedSphere(const double* u, int n) {
  static const double kCentre[] = {0.3, 0.7, 0.55, 0.2, 0.9, 0.1};
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += (u[i] - kCentre[i]) * (u[i] - kCentre[i]);
  return s;
}

// Rosenbrock on x = 4u - 2 ∈ [-2, 2]^n; minimum 0 at x = 1, i.e. u = 0.75.
double RosenbrockU(const double* u, int n) {
  double s = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    const double x = 4.0 * u[i] - 2.0, y = 4.0 * u[i + 1] - 2.0;
    s += 100.0 * (y - x * x) * (y - x * x) + (1.0 - x) * (1.0 - x);
  }
  return s;
}

// One Ask/Tell round; checks that every asked point lies in [0,1].
void StepOnce(GeneticAlgorithm& ga, const Cost& cost) {
  const std::vector<double>& points = ga.Ask();
  const int n = ga.dim();
  std::vector<double> costs(points.size() / n);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    for (int d = 0; d < n; ++d) {
      const double u = points[i * n + d];
      EXPECT_TRUE(u >= 0.0 && u <= 1.0) << "u = " << u;
    }
    costs[i] = cost(&points[i * n], n);
  }
  ga.Tell(costs);
}

void RunToEnd(GeneticAlgorithm& ga, const Cost& cost) {
  while (!ga.Done()) StepOnce(ga, cost);
}

std::uint64_t Bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Bitwise equality of histories (NaN-safe, unlike ==).
void ExpectSameHistory(const std::vector<GaGenerationRecord>& a,
                       const std::vector<GaGenerationRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].generation, b[k].generation);
    EXPECT_EQ(a[k].evaluations, b[k].evaluations);
    EXPECT_EQ(Bits(a[k].best_cost), Bits(b[k].best_cost));
    EXPECT_EQ(Bits(a[k].mean_cost), Bits(b[k].mean_cost));
    EXPECT_EQ(a[k].non_finite, b[k].non_finite);
  }
}

TEST(GaOptionsTest, DefaultsAreValidAndMatchMatlab) {
  GaOptions o;
  std::string error;
  EXPECT_TRUE(o.IsValid(&error)) << error;
  EXPECT_EQ(o.EliteCountUsed(), 4);  // ceil(0.05 * 80)
  o.population_size = 81;
  EXPECT_EQ(o.EliteCountUsed(), 5);
}

TEST(GaOptionsTest, IsValidNamesTheBadField) {
  struct Case {
    std::function<void(GaOptions&)> mutate;
    const char* field;
  };
  const Case cases[] = {
      {[](GaOptions& o) { o.population_size = 0; }, "population_size"},
      {[](GaOptions& o) { o.population_size = 1; }, "population_size"},
      {[](GaOptions& o) { o.generations = -1; }, "generations"},
      {[](GaOptions& o) { o.elite_count = 80; }, "elite_count"},
      {[](GaOptions& o) { o.elite_count = -2; }, "elite_count"},
      {[](GaOptions& o) { o.crossover_fraction = 1.5; }, "crossover_fraction"},
      {[](GaOptions& o) { o.crossover_fraction = std::nan(""); }, "crossover_fraction"},
      {[](GaOptions& o) { o.tournament_size = 0; }, "tournament_size"},
      {[](GaOptions& o) { o.mutation_scale = -0.1; }, "mutation_scale"},
      {[](GaOptions& o) { o.mutation_shrink = 2.0; }, "mutation_shrink"},
      {[](GaOptions& o) { o.fitness_tolerance = -1.0; }, "fitness_tolerance"},
      {[](GaOptions& o) { o.stall_generations = 0; }, "stall_generations"},
      {[](GaOptions& o) { o.stall_tolerance = INFINITY; }, "stall_tolerance"},
      {[](GaOptions& o) { o.init_spread = 0.0; }, "init_spread"},
  };
  for (const Case& c : cases) {
    GaOptions o;
    c.mutate(o);
    std::string error;
    EXPECT_FALSE(o.IsValid(&error)) << c.field;
    EXPECT_EQ(error.rfind(c.field, 0), 0u) << error;
    EXPECT_NE(error.find("expected"), std::string::npos) << error;
    EXPECT_THROW(GeneticAlgorithm(o, 2, {}, 1), Error) << c.field;
  }
}

TEST(GeneticAlgorithmTest, RejectsBadDimAndGuess) {
  const std::vector<double> outside = {0.5, 1.5};
  const std::vector<double> short_guess = {0.5};
  EXPECT_THROW(GeneticAlgorithm(GaOptions{}, 0, {}, 1), Error);
  EXPECT_THROW(GeneticAlgorithm(GaOptions{}, 2, outside, 1), Error);
  EXPECT_THROW(GeneticAlgorithm(GaOptions{}, 2, short_guess, 1), Error);
}

TEST(GeneticAlgorithmTest, BatchSizesAndEvaluationCounting) {
  GaOptions o;  // 80 individuals, 4 elites, 15 generations
  o.stall_generations = 1000;
  GeneticAlgorithm ga(o, 3, {}, 17);
  EXPECT_EQ(ga.batch_size(), 80);
  // Around the (default) centre guess: individual 0 is the guess itself.
  EXPECT_EQ(ga.Ask()[0], 0.5);
  StepOnce(ga, ShiftedSphere);
  EXPECT_EQ(ga.evaluations(), 80);
  EXPECT_EQ(ga.batch_size(), 76);  // elites keep their costs
  RunToEnd(ga, ShiftedSphere);
  EXPECT_EQ(ga.termination(), GaTermination::kGenerations);
  EXPECT_EQ(ga.generation(), 15);
  EXPECT_EQ(ga.evaluations(), 80 + 15 * 76);
  EXPECT_TRUE(ga.Ask().empty());
  EXPECT_THROW(ga.Tell(std::vector<double>{}), Error);
  ASSERT_EQ(ga.history().size(), 16u);
  for (std::size_t g = 1; g < ga.history().size(); ++g) {
    EXPECT_LE(ga.history()[g].best_cost, ga.history()[g - 1].best_cost);  // elitism
  }
}

TEST(GeneticAlgorithmTest, TellChecksTheNumberOfCosts) {
  GeneticAlgorithm ga(GaOptions{}, 2, {}, 1);
  EXPECT_THROW(ga.Tell(std::vector<double>(79, 0.0)), Error);
}

TEST(GeneticAlgorithmTest, MinimisesShiftedSphere) {
  GaOptions o;
  o.population_size = 60;
  o.generations = 60;
  o.init_mode = GaInitMode::kWholeBounds;
  GeneticAlgorithm ga(o, 4, {}, 2026);
  RunToEnd(ga, ShiftedSphere);
  const double centre[] = {0.3, 0.7, 0.55, 0.2};
  EXPECT_LT(ga.best_cost(), 1e-4);
  for (int d = 0; d < 4; ++d) EXPECT_NEAR(ga.best_u()[d], centre[d], 0.01);
  EXPECT_EQ(ga.best_cost(), ShiftedSphere(ga.best_u().data(), 4));
}

TEST(GeneticAlgorithmTest, FindsRosenbrockValleyAndNelderMeadFinishesIt) {
  // A GA reaches Rosenbrock's curved valley quickly but crawls along it; that is why the paper's
  // loop hands the GA's best to Nelder–Mead. Check both halves of that on 4-D Rosenbrock.
  GaOptions o;
  o.population_size = 200;
  o.generations = 300;
  o.stall_generations = 300;
  o.init_mode = GaInitMode::kWholeBounds;
  GeneticAlgorithm ga(o, 4, {}, 7);
  EXPECT_GT(ga.Ask().size(), 0u);
  double worst_initial = 0.0;
  for (std::size_t i = 0; i < 200; ++i) {
    worst_initial = std::max(worst_initial, RosenbrockU(&ga.Ask()[4 * i], 4));
  }
  RunToEnd(ga, RosenbrockU);
  EXPECT_GT(worst_initial, 1000.0);
  EXPECT_LT(ga.best_cost(), 0.3);
  for (int d = 0; d < 4; ++d) EXPECT_NEAR(ga.best_u()[d], 0.75, 0.15);

  NelderMeadOptions nm_options;
  nm_options.tol_x = 1e-10;
  nm_options.tol_fun = 1e-14;
  nm_options.max_evaluations = 20000;
  BoundedNelderMead nm(nm_options, ga.best_u());
  while (!nm.Done()) {
    const std::vector<double>& points = nm.Ask();
    std::vector<double> costs(points.size() / 4);
    for (std::size_t i = 0; i < costs.size(); ++i) costs[i] = RosenbrockU(&points[4 * i], 4);
    nm.Tell(costs);
  }
  EXPECT_LT(nm.best_cost(), 1e-10);
  for (int d = 0; d < 4; ++d) EXPECT_NEAR(nm.best_u()[d], 0.75, 1e-5);
}

TEST(GeneticAlgorithmTest, NonFiniteCostsRankLast) {
  GaOptions o;
  o.population_size = 10;
  o.generations = 3;
  GeneticAlgorithm ga(o, 2, {}, 5);
  // Half the space is "singular": NaN or +inf costs must never become the best.
  auto cost = [](const double* u, int n) {
    if (u[0] < 0.5) return u[1] < 0.5 ? std::nan("") : std::numeric_limits<double>::infinity();
    return ShiftedSphere(u, n);
  };
  RunToEnd(ga, cost);
  EXPECT_TRUE(std::isfinite(ga.best_cost()));
  EXPECT_GE(ga.best_u()[0], 0.5);
  for (std::size_t i = 1; i < ga.costs().size(); ++i) {
    if (std::isfinite(ga.costs()[i])) {
      EXPECT_TRUE(std::isfinite(ga.costs()[i - 1]));
    }
  }
}

TEST(GeneticAlgorithmTest, SameSeedGivesIdenticalBitsAndHistory) {
  GaOptions o;
  o.generations = 25;
  const std::vector<double> guess = {0.2, 0.4, 0.6, 0.8};
  GeneticAlgorithm a(o, 4, guess, 99), b(o, 4, guess, 99), c(o, 4, guess, 100);
  RunToEnd(a, RosenbrockU);
  RunToEnd(b, RosenbrockU);
  RunToEnd(c, RosenbrockU);
  EXPECT_EQ(Bits(a.best_cost()), Bits(b.best_cost()));
  for (int d = 0; d < 4; ++d) EXPECT_EQ(Bits(a.best_u()[d]), Bits(b.best_u()[d]));
  EXPECT_EQ(a.population(), b.population());
  ExpectSameHistory(a.history(), b.history());
  EXPECT_NE(a.population(), c.population());
  EXPECT_NE(Bits(a.best_cost()), Bits(c.best_cost()));
}

TEST(GeneticAlgorithmTest, CheckpointResumeIsBitIdentical) {
  GaOptions o;
  o.generations = 20;
  o.fitness_tolerance = 1e-12;
  GeneticAlgorithm straight(o, 4, {}, 31);
  RunToEnd(straight, RosenbrockU);

  GeneticAlgorithm first(o, 4, {}, 31);
  for (int k = 0; k < 7; ++k) StepOnce(first, RosenbrockU);
  // Through text, as a checkpoint file would go.
  const std::string text = nlohmann::json(first.SaveState()).dump();
  const GaState state = nlohmann::json::parse(text).get<GaState>();
  GeneticAlgorithm resumed(state);
  EXPECT_EQ(resumed.Ask(), first.Ask());
  RunToEnd(resumed, RosenbrockU);

  EXPECT_EQ(resumed.termination(), straight.termination());
  EXPECT_EQ(resumed.generation(), straight.generation());
  EXPECT_EQ(resumed.evaluations(), straight.evaluations());
  EXPECT_EQ(Bits(resumed.best_cost()), Bits(straight.best_cost()));
  EXPECT_EQ(resumed.best_u(), straight.best_u());
  EXPECT_EQ(resumed.population(), straight.population());
  ExpectSameHistory(resumed.history(), straight.history());
}

TEST(GeneticAlgorithmTest, StateJsonRejectsTampering) {
  GeneticAlgorithm ga(GaOptions{}, 2, {}, 1);
  nlohmann::json j = ga.SaveState();
  j["pending"][0] = "1.5";
  EXPECT_THROW(j.get<GaState>(), Error);
  nlohmann::json k = ga.SaveState();
  k.erase("rng");
  EXPECT_THROW(k.get<GaState>(), Error);
  GaState s = ga.SaveState();
  s.pending.pop_back();
  EXPECT_THROW(GeneticAlgorithm{s}, Error);
}

TEST(GeneticAlgorithmTest, StopsOnFitnessToleranceAndStall) {
  GaOptions o;
  o.generations = 1000;
  o.fitness_tolerance = 1e-3;
  GeneticAlgorithm fit(o, 2, {}, 4);
  RunToEnd(fit, ShiftedSphere);
  EXPECT_EQ(fit.termination(), GaTermination::kFitnessTolerance);
  EXPECT_LT(fit.best_cost(), 1e-3);
  EXPECT_LT(fit.generation(), 1000);

  GaOptions s;
  s.generations = 1000;
  s.stall_generations = 5;
  GeneticAlgorithm flat(s, 2, {}, 4);
  RunToEnd(flat, [](const double*, int) { return 1.0; });
  EXPECT_EQ(flat.termination(), GaTermination::kStall);
  EXPECT_EQ(flat.generation(), 5);
  EXPECT_EQ(ToString(flat.termination()), "stall");
}

TEST(GeneticAlgorithmTest, AroundGuessStaysNearTheGuess) {
  GaOptions o;
  o.init_spread = 0.1;
  const std::vector<double> guess = {0.05, 0.5};
  GeneticAlgorithm ga(o, 2, guess, 8);
  const std::vector<double>& p = ga.Ask();
  for (std::size_t i = 0; i < p.size() / 2; ++i) {
    EXPECT_GE(p[2 * i], 0.0);  // clipped at the bound
    EXPECT_LE(p[2 * i], 0.15);
    EXPECT_NEAR(p[2 * i + 1], 0.5, 0.1);
  }
}

}  // namespace
}  // namespace frfit
