// A fixed amount of cpu-backend work, for hardware counters: `calls` Evaluate calls of
// cpu_evaluator_bench's random batch (random_batch.h: 80 individuals × 1 posture × 150 lines, n
// DOFs). Google Benchmark chooses its own iteration counts and runs trial rounds first, so counters
// taken over the whole bench process cannot be divided per call; over this program they can:
//   perf stat -e cycles:u,instructions:u build/benchmarks/cpu_evaluate_calls 9 130
// minus the same with 30 calls, over 100 (benchmarks/cpu_cycles.sh does that for two builds).
// Instructions per call are then exact; cycles still move with what else the machine runs.
// Prints the sum of every call's costs with all digits: two builds that compute the same bits
// print the same sum.
//
// usage: cpu_evaluate_calls N CALLS [SIMD] [THREADS]   (SIMD as FRFIT_CPU_SIMD: avx2, scalar, ...)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/evaluator/evaluator.h"

namespace {

int PositiveArgument(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0 || value > 1000000) {
    std::fprintf(stderr, "cpu_evaluate_calls: %s must be a positive integer, got '%s'\n", what,
                 text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: cpu_evaluate_calls N CALLS [SIMD] [THREADS]\n");
    return 2;
  }
  const int n = PositiveArgument(argv[1], "N");
  const int calls = PositiveArgument(argv[2], "CALLS");
  const std::string simd = argc > 3 ? argv[3] : "";
  const int threads = argc > 4 ? PositiveArgument(argv[4], "THREADS") : 1;
  try {
    frfit::bench::Batch batch = frfit::bench::MakeBatch(n, 1, 80, 1);
    auto evaluator = frfit::CreateCpuEvaluator(threads, simd);
    evaluator->SetProblems({batch.problems[0]});
    const std::vector<int> individuals = {80};
    std::vector<double> costs(80);
    std::vector<frfit::EvalStatus> status(80);
    double sum = 0.0;
    for (int call = 0; call < calls; ++call) {
      evaluator->Evaluate(individuals, batch.coefficients, costs, status);
      for (double cost : costs) sum += cost;
    }
    std::printf("%.17g\n", sum);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cpu_evaluate_calls: %s\n", error.what());
    return 1;
  }
  return 0;
}
