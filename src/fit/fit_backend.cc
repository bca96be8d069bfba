#include "frfit/fit/fit_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/load_problem.h"

namespace frfit {
namespace {

// Seconds one Evaluate of `population` copies of the initial point takes on `cpu`: the faster of
// two calls, so that the first call's thread start-up is not counted.
double TimeOneCall(Evaluator& cpu, const Problem& problem,
                   const ParameterMap& map, int population) {
  std::vector<double> u;
  const std::vector<double> initial = map.InitialU();
  for (int i = 0; i < population; ++i) u.insert(u.end(), initial.begin(), initial.end());
  std::vector<double> coefficients;
  map.AppendCoefficients(u, PostureCoordinates(problem), &coefficients);
  const std::vector<int> individuals = {population};
  std::vector<double> costs(population);
  std::vector<EvalStatus> status(population);
  double best = 1e300;
  for (int repeat = 0; repeat < 2; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    cpu.Evaluate(individuals, coefficients, costs, status);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

std::unique_ptr<Evaluator> CreateFitEvaluator(const EvaluatorOptions& options,
                                              const PackedProblem& packed, const Problem& problem,
                                              const ParameterMap& map, const FitOptions& fit,
                                              BackendChoice* choice) {
  *choice = BackendChoice{};
  std::unique_ptr<Evaluator> evaluator;
  if (options.backend != BackendType::kAuto) {
    evaluator = CreateEvaluator(options);
    evaluator->SetProblems({packed});
    return evaluator;
  }
  evaluator = CreateCpuEvaluator(options.threads);
  evaluator->SetProblems({packed});
  const int population = std::max(1, fit.genetic_algorithm.population_size);
  choice->timed = true;
  choice->cpu_call_seconds = TimeOneCall(*evaluator, problem, map, population);
  char seconds[64];
  std::snprintf(seconds, sizeof seconds, "%.1f ms", 1e3 * choice->cpu_call_seconds);
  const std::string timing = "one call of " + std::to_string(population) + " individuals takes " +
                             seconds + " on the cpu";
  if (choice->cpu_call_seconds < kGpuWorthCallSeconds) {
    // No CUDA probe at all: even asking the driver for its devices costs a small fit much.
    choice->reason = timing + ": too small a fit for a GPU context";
    return evaluator;  // the cpu evaluator, its problem already set
  }
  std::string why;
  if (!IsCudaUsable(&why)) {
    choice->reason = why;
    return evaluator;
  }
  choice->reason = timing;
  evaluator = CreateEvaluator(options);
  evaluator->SetProblems({packed});
  return evaluator;
}

}  // namespace frfit
