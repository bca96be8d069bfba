// Throughput of the evaluator: cpu vs cuda deterministic tier vs cuda cuBLAS batched tier,
// from one robot (1 problem × 80 individuals × 1 posture × 150 lines) to fleet scale
// (1024 problems × 128 individuals × 2 postures × 150 lines), n = 3, 9, 18.
//
// Counters: items_per_second = line-solves per second; cost_evals_per_s = (problem, individual)
// costs per second. Times are wall-clock per Evaluate call, upload of the coefficients and
// download of the costs included (what a GA generation sees). The cpu side of the large batches
// runs on a sub-batch (at most kCpuMaxProblems problems, same individuals/postures/lines) so it
// finishes; its per-line rate is what to compare (label says "cpu sub-batch").
//
//   build-cuda/gpu_evaluator_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#if defined(FRFIT_HAVE_CUDA)
#include "frfit/evaluator/cuda_backend.h"
#include "kernels/cuda_batched_tier.h"
#endif

namespace frfit {
namespace {

constexpr int kLines = 150;
constexpr int kCpuMaxProblems = 8;
constexpr double kTwoPi = 6.283185307179586;

PackedProblem RandomProblem(std::mt19937_64& rng, int n, int postures) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  PackedProblem problem;
  problem.n = n;
  problem.cost_kind = 0;  // log complex, the paper's cost
  problem.phase_mode = 0;
  for (int q = 0; q < postures; ++q) {
    PackedPosture p;
    std::vector<double> a(n * n);
    for (double& v : a) v = u(rng);
    p.mass.assign(n * n, 0.0);
    p.gravity.assign(n * n, 0.0);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += a[r * n + k] * a[c * n + k];
        p.mass[r * n + c] = 2.0 * s + (r == c ? 0.5 * n : 0.0);
      }
    for (int r = 0; r < n; ++r)
      for (int c = r; c < n; ++c) p.gravity[r * n + c] = p.gravity[c * n + r] = 500.0 * u(rng);
    p.basis.resize(n * 3);
    for (double& v : p.basis) v = u(rng);
    for (int l = 0; l < kLines; ++l) {
      p.omega_rad_s.push_back(kTwoPi * (0.2 + 29.8 * l / (kLines - 1)));
      for (int e = 0; e < 9; ++e) {
        p.weight.push_back(e % 4 == 0 ? 50.0 : 0.5);
        p.target.push_back(-6.0 + 6.0 * u(rng));
        p.target.push_back(3.0 * u(rng));
      }
    }
    problem.postures.push_back(std::move(p));
  }
  return problem;
}

struct Batch {
  std::vector<PackedProblem> problems;
  std::vector<int> individuals;
  std::vector<double> coefficients;
  long long lines = 0;
};

Batch MakeBatch(int n, int problems, int individuals, int postures) {
  std::mt19937_64 rng(1234 + n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Batch b;
  for (int p = 0; p < problems; ++p) {
    b.problems.push_back(RandomProblem(rng, n, postures));
    b.individuals.push_back(individuals);
    for (int i = 0; i < individuals; ++i)
      for (int q = 0; q < postures; ++q) {
        for (int j = 0; j < n; ++j) b.coefficients.push_back(std::pow(10.0, 5.0 + 3.0 * u(rng)));
        for (int j = 0; j < n; ++j) b.coefficients.push_back(std::pow(10.0, 4.0 * u(rng)));
        for (int j = 0; j < n; ++j)
          b.coefficients.push_back(0.02 * b.coefficients[b.coefficients.size() - 2 * n]);
        b.coefficients.push_back(1e-4);
      }
    b.lines += static_cast<long long>(individuals) * postures * kLines;
  }
  return b;
}

enum Tier { kCpu = 0, kCudaDeterministic = 1, kCudaBatched = 2 };

// Args: n, problems, individuals, postures, tier.
void BM_Evaluate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  int problems = static_cast<int>(state.range(1));
  const int individuals = static_cast<int>(state.range(2));
  const int postures = static_cast<int>(state.range(3));
  const int tier = static_cast<int>(state.range(4));
  std::unique_ptr<Evaluator> evaluator;
  std::string label;
  if (tier == kCpu) {
    evaluator = CreateCpuEvaluator(0);
    if (problems > kCpuMaxProblems) {
      label = "cpu sub-batch of " + std::to_string(kCpuMaxProblems) + "/" +
              std::to_string(problems) + " problems";
      problems = kCpuMaxProblems;
    }
  } else {
    std::string reason;
    if (!IsCudaUsable(&reason)) {
      state.SkipWithError(("no usable GPU: " + reason).c_str());
      return;
    }
#if defined(FRFIT_HAVE_CUDA)
    evaluator = tier == kCudaDeterministic ? CreateCudaEvaluator() : CreateCudaBatchedEvaluator();
#endif
  }
  Batch batch = MakeBatch(n, problems, individuals, postures);
  evaluator->SetProblems(batch.problems);
  const size_t count = static_cast<size_t>(problems) * individuals;
  std::vector<double> costs(count);
  std::vector<EvalStatus> status(count);
  evaluator->Evaluate(batch.individuals, batch.coefficients, costs, status);  // warm-up
  for (auto _ : state) {
    evaluator->Evaluate(batch.individuals, batch.coefficients, costs, status);
    benchmark::DoNotOptimize(costs.data());
  }
  state.SetItemsProcessed(state.iterations() * batch.lines);  // items_per_second: line-solves/s
  state.counters["cost_evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * count,
                         benchmark::Counter::kIsRate);
  state.counters["lines_per_call"] = static_cast<double>(batch.lines);
  if (label.empty()) label = evaluator->description();
  state.SetLabel(label);
}

void Sizes(benchmark::internal::Benchmark* b) {
  const int shapes[][3] = {{1, 80, 1}, {16, 128, 2}, {128, 128, 2}, {1024, 128, 2}};
  for (int tier : {kCpu, kCudaDeterministic, kCudaBatched})
    for (int n : {3, 9, 18})
      for (const auto& s : shapes) b->Args({n, s[0], s[1], s[2], tier});
  b->ArgNames({"n", "problems", "individuals", "postures", "tier"});
}

BENCHMARK(BM_Evaluate)->Apply(Sizes)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace frfit

BENCHMARK_MAIN();
