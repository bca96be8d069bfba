// Throughput of the evaluator: cpu vs cuda deterministic tier (lanes per line: by size, 1, 8, 16,
// 32) vs cuda cuBLAS batched tier, from one robot (1 problem × 80 individuals × 1 posture × 150
// lines) to fleet scale (1024 problems × 128 individuals × 2 postures × 150 lines), n = 3, 9, 18.
//
// Counters: items_per_second = line-solves per second; cost_evals_per_s = (problem, individual)
// costs per second. Times are wall-clock per Evaluate call, upload of the coefficients and
// download of the costs included (what a GA generation sees). The cpu side of the large batches
// runs on a sub-batch (at most kCpuMaxProblems problems, same individuals/postures/lines) so it
// finishes; its per-line rate is what to compare (label says "cpu sub-batch"). The cpu side runs
// 2 threads wherever the benchmark runs, so each GPU figure has its 2-core baseline in the same run.
//
//   build-cuda/gpu_evaluator_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/evaluator/evaluator.h"
#if defined(FRFIT_HAVE_CUDA)
#include "frfit/evaluator/cuda_backend.h"
#include "src/evaluator/cuda/cuda_batched_tier.h"
#endif

namespace frfit {
namespace {

constexpr int kCpuMaxProblems = 8;
constexpr int kCpuThreads = 2;
using bench::Batch;
using bench::MakeBatch;

enum Tier { kCpu = 0, kCudaDeterministic = 1, kCudaBatched = 2 };

// Args: n, problems, individuals, postures, tier, lanes (deterministic tier: lanes per line,
// 0 = DefaultLanesPerLine).
void BM_Evaluate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  int problems = static_cast<int>(state.range(1));
  const int individuals = static_cast<int>(state.range(2));
  const int postures = static_cast<int>(state.range(3));
  const int tier = static_cast<int>(state.range(4));
  const int lanes = static_cast<int>(state.range(5));
  std::unique_ptr<Evaluator> evaluator;
  std::string label;
  if (tier == kCpu) {
    // Two threads: the CI machine's two cores, the baseline the GPU's speed-up is quoted against.
    evaluator = CreateCpuEvaluator(kCpuThreads);
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
    evaluator =
        tier == kCudaDeterministic ? CreateCudaEvaluator(lanes) : CreateCudaBatchedEvaluator();
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
  for (int n : {3, 9, 18})
    for (const auto& s : shapes) {
      b->Args({n, s[0], s[1], s[2], kCpu, 0});
      for (int lanes : {0, 1, 4, 8, 16, 32}) b->Args({n, s[0], s[1], s[2], kCudaDeterministic, lanes});
      b->Args({n, s[0], s[1], s[2], kCudaBatched, 0});
    }
  // Reduced beam models (20-60 coordinates, buckets 48 and 64): an eighth of the fleet scale, so
  // that one call at n = 60 stays near a second; no 4- or 8-lane tiles (a line's scratch, up to
  // 61 KB, leaves one tile a block either way).
  for (int n : {36, 60}) {
    b->Args({n, 128, 128, 2, kCpu, 0});
    for (int lanes : {0, 1, 16, 32}) b->Args({n, 128, 128, 2, kCudaDeterministic, lanes});
    b->Args({n, 128, 128, 2, kCudaBatched, 0});
  }
  b->ArgNames({"n", "problems", "individuals", "postures", "tier", "lanes"});
}

BENCHMARK(BM_Evaluate)->Apply(Sizes)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace frfit

BENCHMARK_MAIN();
