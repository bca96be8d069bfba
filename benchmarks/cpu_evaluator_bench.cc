// Throughput of the cpu evaluator against a plain Eigen baseline measured in the same run.
//
// One Evaluate call = one GA generation of one fit: 80 individuals × 1 posture × 150 lines.
//   random/n:{3,9,18}        random_batch.h's one-robot batch (SPD mass, small gravity, random basis)
//   paper_3dof, kuka_kr90    the datasets' problems as `frfit fit` packs them (150 lines each)
// Backends per case:
//   eigen_baseline           per line: Eigen::MatrixXcd Z assembled, PartialPivLU, solve of the
//                            3 right-hand sides, H = BᵀX, (iω)^order, and Σ w·|log H_s − log H|²
//                            with std::log/std::arg (wrapped phase) — single thread
//   cpu/threads:{1,2}        CreateCpuEvaluator (kernels/line_cost.h + TreeSum)
// Counters: cost_evals_per_s (individual costs per second), line_solves_per_s, and for the cpu
// rows x_eigen = cost_evals_per_s / the baseline's of the same case (baseline runs first).
//
// rel_diff_vs_eigen: largest relative difference of the two costs over the 80 individuals.
//
//   build/cpu_evaluator_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

constexpr int kIndividuals = 80;

struct Case {
  PackedProblem problem;
  std::vector<double> coefficients;  // kIndividuals sets
};

// A dataset's problem, packed as `frfit fit` packs it; individuals drawn inside the fit's bounds.
Case DatasetCase(const std::string& name) {
  const std::string dir = std::string(FRFIT_SOURCE_DIR) + "/datasets/" + name + "/";
  const Model model = LoadModel(dir + "model.yaml");
  const FitOptions options = LoadFitOptions(dir + "fit.yaml");
  const ParameterMap map(model, options.parameters, dir + "fit.yaml");
  const FrfSet measured = ReadFrfSet(dir + "frf_milling_inertance.h5");
  Problem problem;
  problem.model = std::make_shared<Model>(model);
  problem.cost = options.cost;
  problem.postures = {PreparePosture(Linearize(model, measured.posture), measured, options.cost, name, 1.0)};
  Case c;
  c.problem = Pack(problem);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> points(static_cast<size_t>(kIndividuals) * map.dim());
  for (double& x : points) x = u(rng);
  map.AppendCoefficients(points, 1, &c.coefficients);
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

std::map<std::string, double> baseline_rate;  // cost evaluations per second, per case

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

void SetCounters(benchmark::State& state, const Case& c, double evals, double seconds) {
  long long lines = 0;
  for (const auto& p : c.problem.postures) lines += p.num_lines();
  state.counters["cost_evals_per_s"] = evals / seconds;
  state.counters["line_solves_per_s"] = evals * lines / seconds;
  state.counters["n"] = c.problem.n;
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
  SetCounters(state, c, evals, seconds);
  baseline_rate[name] = evals / seconds;
}

void BM_Cpu(benchmark::State& state, const std::string& name, int threads) {
  const Case& c = GetCase(name);
  auto evaluator = CreateCpuEvaluator(threads);
  evaluator->SetProblems({c.problem});
  std::vector<double> costs(kIndividuals);
  std::vector<EvalStatus> status(kIndividuals);
  const std::vector<int> individuals = {kIndividuals};
  double seconds = 0.0, evals = 0.0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    evaluator->Evaluate(individuals, c.coefficients, costs, status);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    evals += kIndividuals;
  }
  benchmark::DoNotOptimize(costs.data());
  SetCounters(state, c, evals, seconds);
  // Both sides compute the same cost: report the largest relative difference as a sanity check.
  const int stride = c.problem.num_postures() * c.problem.coefficient_stride();
  double worst = 0.0;
  for (int i = 0; i < kIndividuals; ++i) {
    const double ref = EigenCost(c.problem, c.coefficients.data() + i * stride);
    worst = std::max(worst, std::abs(costs[i] - ref) / std::abs(ref));
  }
  state.counters["rel_diff_vs_eigen"] = worst;
  const auto it = baseline_rate.find(name);
  if (it != baseline_rate.end()) state.counters["x_eigen"] = evals / seconds / it->second;
}

}  // namespace
}  // namespace frfit

int main(int argc, char** argv) {
  using namespace frfit;
  for (const std::string name : {"random/n:3", "random/n:9", "random/n:18", "paper_3dof", "kuka_kr90"}) {
    benchmark::RegisterBenchmark(("eigen_baseline/" + name).c_str(), BM_EigenBaseline, name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark(("cpu/" + name + "/threads:" + std::to_string(threads)).c_str(), BM_Cpu, name,
                                   threads)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
