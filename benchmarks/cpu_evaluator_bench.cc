// Throughput of the cpu evaluator, the fraction of this machine's FP64 peak it reaches, and two
// baselines measured in the same run: plain Eigen here, NumPy's batched solve through
// benchmarks/cpu_vs_numpy.sh (which runs benchmarks/numpy_baseline.py and then this program).
//
// One Evaluate call = one GA generation of one fit: 80 individuals × 1 posture × 150 lines.
//   random/n:{3,9,18}        random_batch.h's one-robot batch (SPD mass, small gravity, random
//                            basis) — the batch `export_random_batch --n N --problems 1
//                            --individuals 80 --postures 1` writes for the NumPy baseline
//   paper_3dof, kuka_kr90    the datasets' problems as `frfit fit` packs them (150 lines each)
// Rows:
//   peak_fp64/threads:{1,2}  the machine's FP64 rate without FMA: independent AVX2 multiplies and
//                            adds in equal numbers (2 of each per cycle on this AMD Zen 3 core:
//                            16 flops per cycle), on 1 and 2 threads, the best of 10 runs — the
//                            ceiling peak_fraction is taken against
//   eigen_baseline/<case>    per line: Eigen::MatrixXcd Z assembled, PartialPivLU, solve of the
//                            3 right-hand sides, H = BᵀX, (iω)^order, and Σ w·|log H_s − log H|²
//                            with std::log/std::arg (wrapped phase) — single thread
//   cpu/<case>/<simd>/threads:{1,2}   CreateCpuEvaluator(threads, simd) for every vector variant
//                            this processor runs (scalar, sse2, avx2, avx2x8, avx512) and for
//                            "default", the evaluator's own choice by problem size
//   nm/<case>/<simd>/threads:{1,2}   Evaluate of one individual (a Nelder–Mead step)
//   lm/<case>/<simd>/points:{1,8}/threads:{1,2}   EvaluateNormalEquations of a Levenberg–Marquardt
//                            round: 1 or 8 points, every free parameter of the dataset's fit.yaml
// Counters: line_solves_per_s; flops_per_line (FlopsPerLine below: every +, −, ×, ÷ and √ the
// per-line cost does, one arm of each choice); gflops; peak_fraction = gflops / the peak_fp64
// row of the same thread count; x_eigen = over the Eigen baseline of the case; x_numpy_solve and
// x_numpy_cost = line-solves/s over NumPy's bare batched solve and NumPy's whole cost of the same
// n, read from the JSON file named by the environment variable FRFIT_NUMPY_BASELINE (random cases
// only); rel_diff_vs_eigen = largest relative difference of the costs (a sanity check).
//
//   benchmarks/cpu_vs_numpy.sh [build-dir]        (both baselines and every row, one command)
//   build/benchmarks/cpu_evaluator_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "kernels/line_normal.h"
#include "src/evaluator/cpu/cpu_line_kernels.h"

namespace frfit {
namespace {

constexpr int kIndividuals = 80;

struct Case {
  PackedProblem problem;
  std::vector<double> coefficients;  // kIndividuals sets
  int dim = 0;                       // free parameters (datasets only)
  std::vector<double> sensitivities; // kIndividuals sets (datasets only)
};

// A dataset's problem, packed as `frfit fit` packs it; individuals drawn inside the fit's bounds.
Case DatasetCase(const std::string& name) {
  const std::string dir = std::string(FRFIT_SOURCE_DIR) + "/datasets/" + name + "/";
  const auto model = std::make_shared<const Model>(LoadModel(dir + "model.yaml"));
  const FitOptions options = LoadFitOptions(dir + "fit.yaml");
  const ParameterMap map(*model, options.parameters, dir + "fit.yaml");
  const Problem problem = LoadProblem(model, {dir + "frf_milling_inertance.h5"}, options, name);
  Case c;
  c.problem = Pack(problem);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> points(static_cast<size_t>(kIndividuals) * map.dim());
  for (double& x : points) x = u(rng);
  const std::vector<std::vector<double>> q = PostureCoordinates(problem);
  map.AppendCoefficients(points, q, &c.coefficients);
  map.AppendSensitivities(points, q, &c.sensitivities);
  c.dim = map.dim();
  return c;
}

const Case& GetCase(const std::string& name) {
  static std::map<std::string, Case> cases;
  auto it = cases.find(name);
  if (it != cases.end()) return it->second;
  Case c;
  if (name.rfind("random/n:", 0) == 0) {
    // The GPU benchmark's one-robot batch (random_batch.h), so both time the same systems.
    bench::Batch batch = bench::MakeBatch(std::stoi(name.substr(9)), 1, kIndividuals, 1);
    c.problem = std::move(batch.problems[0]);
    c.coefficients = std::move(batch.coefficients);
  } else {
    c = DatasetCase(name);
  }
  return cases.emplace(name, std::move(c)).first->second;
}

// Flops of one line's cost: every +, −, ×, ÷ and √ (each counted as one, though ÷ and √ take
// several times longer), with one arm of each choice (octant, branch cut, subnormal scaling).
//   assembly       3n² + 4n + 2       Z's entries, the diagonal's joint terms, ω², ωα
//   elimination    Σ_{k=0}^{n−1} 8k² + 31k + 7     (k = n − 1 − p at step p) pivot sizes
//                  |re|+|im| (k + 2), 1/pivot (5), row factors (6k), the update of the trailing
//                  k × k block (8k²) and of three right-hand sides (24k)
//   back-subst.    Σ_{r} 3 (8(n − 1 − r) + 6)
//   per weighted entry   4n (H_s = bᵀx) + 2 or 3 (the format's (iω)^order) + 46 (log|H|)
//                  + 44 (arg H) + 2 (δ) + 5 (w|δ|², the sum): the log-complex cost
double FlopsPerLine(int n, int fit_order, double weighted_entries) {
  double elimination = 0.0;
  for (int k = 0; k < n; ++k) elimination += 8.0 * k * k + 31.0 * k + 7.0;
  double back = 0.0;
  for (int r = 0; r < n; ++r) back += 3.0 * (8.0 * (n - 1 - r) + 6.0);
  const double order = fit_order == 2 ? 3.0 : fit_order == 1 ? 2.0 : 0.0;
  const double entry = 4.0 * n + order + 46.0 + 44.0 + 2.0 + 5.0;
  return 3.0 * n * n + 4.0 * n + 2.0 + elimination + back + weighted_entries * entry;
}

double CaseFlopsPerLine(const Case& c) {
  double flops = 0.0, lines = 0.0;
  for (const PackedPosture& p : c.problem.postures) {
    double weighted = 0.0;
    for (double w : p.weight) weighted += w != 0.0;
    flops += FlopsPerLine(c.problem.n, p.fit_order, weighted / p.num_lines()) * p.num_lines();
    lines += p.num_lines();
  }
  return flops / lines;
}

std::map<std::string, double> baseline_rate;  // Eigen's cost evaluations per second, per case
std::map<int, double> peak_gflops;             // per thread count

// ---- the machine's FP64 ceiling ----------------------------------------------------------------

#if defined(__x86_64__)
// 6 chains of multiplies and 6 of adds, four doubles each, in registers: as many independent
// operations as the 2 + 2 pipes × 3 cycles of latency of a Zen 3 core hold, so the loop runs at
// issue rate. (Nothing fuses or reassociates them: -ffp-contract=off, no fast-math.)
__attribute__((target("avx2"))) double PeakLoop(long iterations) {
  typedef double V __attribute__((vector_size(32)));
  const V f = {0.9999999, 0.9999999, 0.9999999, 0.9999999};
  const V c = {1e-9, 1e-9, 1e-9, 1e-9};
  V m0 = f, m1 = f + 1.0, m2 = f + 2.0, m3 = f + 3.0, m4 = f + 4.0, m5 = f + 5.0;
  V a0 = c, a1 = c + 1.0, a2 = c + 2.0, a3 = c + 3.0, a4 = c + 4.0, a5 = c + 5.0;
  for (long i = 0; i < iterations; ++i) {
    m0 = m0 * f; a0 = a0 + c; m1 = m1 * f; a1 = a1 + c; m2 = m2 * f; a2 = a2 + c;
    m3 = m3 * f; a3 = a3 + c; m4 = m4 * f; a4 = a4 + c; m5 = m5 * f; a5 = a5 + c;
  }
  const V sum = m0 + m1 + m2 + m3 + m4 + m5 + a0 + a1 + a2 + a3 + a4 + a5;
  return sum[0] + sum[1] + sum[2] + sum[3];
}
#endif

// The best of the iterations: other load on the machine only ever slows the loop down.
void BM_PeakFp64(benchmark::State& state) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) {
    state.SkipWithError("no AVX2");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  constexpr long kIterations = 10'000'000;
  double best = 0.0, sink = 0.0;
  for (auto _ : state) {
    std::vector<std::thread> pool;
    std::vector<double> sums(threads);
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sums[t] = PeakLoop(kIterations); });
    for (auto& t : pool) t.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 48.0 * kIterations * threads / seconds * 1e-9);
    for (double s : sums) sink += s;
  }
  benchmark::DoNotOptimize(sink);
  state.counters["gflops"] = best;
  peak_gflops[threads] = std::max(peak_gflops[threads], best);
#else
  state.SkipWithError("not x86-64");
#endif
}

// ---- NumPy's figures, measured by numpy_baseline.py in the same command ------------------------

struct NumpyRates {
  double solve = 0.0;  // line-solves per second
  double cost = 0.0;
};

std::map<int, NumpyRates> LoadNumpy() {
  std::map<int, NumpyRates> rates;
  const char* path = std::getenv("FRFIT_NUMPY_BASELINE");
  if (!path) return rates;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    rates[j["n"].get<int>()] = {j["solve_line_solves_per_s"].get<double>(),
                                j["cost_line_solves_per_s"].get<double>()};
  }
  return rates;
}

const std::map<int, NumpyRates>& Numpy() {
  static const std::map<int, NumpyRates> rates = LoadNumpy();
  return rates;
}

// ---- the evaluator and the Eigen baseline ------------------------------------------------------

// The plain Eigen computation of one individual's cost (single posture, wrapped log complex).
double EigenCost(const PackedProblem& problem, const double* coefficients) {
  using cd = std::complex<double>;
  const int n = problem.n;
  double total = 0.0;
  for (const PackedPosture& p : problem.postures) {
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(p.mass.data(), n, n);
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> g(p.gravity.data(), n, n);
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> basis(p.basis.data(), n, 3);
    const Eigen::MatrixXcd b = basis.cast<cd>();
    const double* k = coefficients;
    const double* c = coefficients + n;
    const double* h = coefficients + 2 * n;
    const double alpha = coefficients[3 * n];
    for (int l = 0; l < p.num_lines(); ++l) {
      const double w = p.omega_rad_s[l];
      Eigen::MatrixXcd z(n, n);
      for (int r = 0; r < n; ++r)
        for (int col = 0; col < n; ++col) z(r, col) = cd(g(r, col) - w * w * m(r, col), w * alpha * m(r, col));
      for (int r = 0; r < n; ++r) z(r, r) += cd(k[r], w * c[r] + h[r]);
      const Eigen::MatrixXcd x = z.partialPivLu().solve(b);
      Eigen::Matrix3cd hs = b.transpose() * x;
      if (p.fit_order == 1) hs *= cd(0.0, w);
      if (p.fit_order == 2) hs *= -w * w;
      for (int e = 0; e < 9; ++e) {
        const double weight = p.weight[9 * l + e];
        if (weight == 0.0) continue;
        const cd s = hs(e / 3, e % 3);
        const double dm = std::log(std::abs(s)) - p.target[18 * l + 2 * e];
        double dp = std::arg(s) - p.target[18 * l + 2 * e + 1];
        if (dp > M_PI) dp -= 2.0 * M_PI;
        else if (dp <= -M_PI) dp += 2.0 * M_PI;
        total += weight * (dm * dm + dp * dp);
      }
    }
    coefficients += problem.coefficient_stride();
  }
  return total;
}

long long LinesPerIndividual(const Case& c) {
  long long lines = 0;
  for (const auto& p : c.problem.postures) lines += p.num_lines();
  return lines;
}

void SetCounters(benchmark::State& state, const Case& c, double evals, double seconds, int threads) {
  const double line_solves = evals * LinesPerIndividual(c) / seconds;
  const double flops = CaseFlopsPerLine(c);
  state.counters["cost_evals_per_s"] = evals / seconds;
  state.counters["line_solves_per_s"] = line_solves;
  state.counters["n"] = c.problem.n;
  state.counters["flops_per_line"] = flops;
  state.counters["gflops"] = line_solves * flops * 1e-9;
  const auto peak = peak_gflops.find(threads);
  if (peak != peak_gflops.end()) state.counters["peak_fraction"] = line_solves * flops * 1e-9 / peak->second;
}

void BM_EigenBaseline(benchmark::State& state, const std::string& name) {
  const Case& c = GetCase(name);
  const int stride = c.problem.num_postures() * c.problem.coefficient_stride();
  double sink = 0.0, seconds = 0.0, evals = 0.0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kIndividuals; ++i) sink += EigenCost(c.problem, c.coefficients.data() + i * stride);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    evals += kIndividuals;
  }
  benchmark::DoNotOptimize(sink);
  SetCounters(state, c, evals, seconds, 1);
  baseline_rate[name] = evals / seconds;
}

// `points` individuals per Evaluate call: kIndividuals (a GA generation) or 1 (a Nelder–Mead
// step, whose lines the evaluator splits over its threads).
void BM_Cpu(benchmark::State& state, const std::string& name, const std::string& simd, int threads,
            int points) {
  const Case& c = GetCase(name);
  auto evaluator = CreateCpuEvaluator(threads, simd == "default" ? "" : simd);
  evaluator->SetProblems({c.problem});
  std::vector<double> costs(points);
  std::vector<EvalStatus> status(points);
  const std::vector<int> individuals = {points};
  const int stride = c.problem.num_postures() * c.problem.coefficient_stride();
  const std::span<const double> coefficients(c.coefficients.data(), static_cast<size_t>(points) * stride);
  double seconds = 0.0, evals = 0.0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    evaluator->Evaluate(individuals, coefficients, costs, status);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    evals += points;
  }
  benchmark::DoNotOptimize(costs.data());
  SetCounters(state, c, evals, seconds, threads);
  if (points == 1) state.counters["us_per_call"] = seconds / evals * 1e6;
  // Both sides compute the same cost: report the largest relative difference as a sanity check.
  double worst = 0.0;
  for (int i = 0; i < points; ++i) {
    const double ref = EigenCost(c.problem, c.coefficients.data() + i * stride);
    worst = std::max(worst, std::abs(costs[i] - ref) / std::abs(ref));
  }
  state.counters["rel_diff_vs_eigen"] = worst;
  const auto it = baseline_rate.find(name);
  if (it != baseline_rate.end() && points == kIndividuals) state.counters["x_eigen"] = evals / seconds / it->second;
  const auto numpy = Numpy().find(c.problem.n);
  if (name.rfind("random/", 0) == 0 && points == kIndividuals && numpy != Numpy().end()) {
    const double rate = evals * LinesPerIndividual(c) / seconds;
    state.counters["x_numpy_solve"] = rate / numpy->second.solve;
    state.counters["x_numpy_cost"] = rate / numpy->second.cost;
  }
}

// One Levenberg–Marquardt round: the normal equations of `points` points.
void BM_Lm(benchmark::State& state, const std::string& name, const std::string& simd, int points,
           int threads) {
  const Case& c = GetCase(name);
  auto evaluator = CreateCpuEvaluator(threads, simd == "default" ? "" : simd);
  evaluator->SetProblems({c.problem});
  const size_t stride = static_cast<size_t>(c.problem.num_postures()) * c.problem.coefficient_stride();
  const std::span<const double> coefficients(c.coefficients.data(), points * stride);
  const std::span<const double> sensitivities(c.sensitivities.data(), points * stride * c.dim);
  const std::vector<int> individuals = {points}, dims = {c.dim};
  std::vector<double> normal(static_cast<size_t>(points) * kernels::NormalTermCount(c.dim));
  std::vector<EvalStatus> status(points);
  double seconds = 0.0, rounds = 0.0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    evaluator->EvaluateNormalEquations({individuals, dims, coefficients, sensitivities}, normal, status);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rounds += 1;
  }
  benchmark::DoNotOptimize(normal.data());
  state.counters["rounds_per_s"] = rounds / seconds;
  state.counters["line_solves_per_s"] = rounds * points * LinesPerIndividual(c) / seconds;
  state.counters["us_per_round"] = seconds / rounds * 1e6;
  state.counters["dim"] = c.dim;
}

}  // namespace
}  // namespace frfit

int main(int argc, char** argv) {
  using namespace frfit;
  // "default" is what CreateCpuEvaluator picks when not told (by problem size).
  std::vector<std::string> variants = {"default"};
  for (const cpu::LineKernels& k : cpu::SupportedLineKernels()) variants.push_back(k.name);
  for (int threads : {1, 2})
    benchmark::RegisterBenchmark("peak_fp64", BM_PeakFp64)->Arg(threads)->ArgName("threads")
        ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
  for (const std::string name : {"random/n:3", "random/n:9", "random/n:18", "paper_3dof", "kuka_kr90"}) {
    benchmark::RegisterBenchmark(("eigen_baseline/" + name).c_str(), BM_EigenBaseline, name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const std::string& simd : variants)
      for (int threads : {1, 2})
        benchmark::RegisterBenchmark(("cpu/" + name + "/" + simd + "/threads:" + std::to_string(threads)).c_str(),
                                     BM_Cpu, name, simd, threads, kIndividuals)
            ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  for (const std::string name : {"paper_3dof", "kuka_kr90"})
    for (const std::string& simd : variants)
      for (int threads : {1, 2})
        benchmark::RegisterBenchmark(("nm/" + name + "/" + simd + "/threads:" + std::to_string(threads)).c_str(),
                                     BM_Cpu, name, simd, threads, 1)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
  for (const std::string name : {"paper_3dof", "kuka_kr90"})
    for (const std::string& simd : variants)
      for (int points : {1, 8})
        for (int threads : {1, 2})
          benchmark::RegisterBenchmark(("lm/" + name + "/" + simd + "/points:" + std::to_string(points) +
                                        "/threads:" + std::to_string(threads)).c_str(),
                                       BM_Lm, name, simd, points, threads)
              ->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
