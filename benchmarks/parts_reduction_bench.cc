// The per-line arithmetic with affine parts at finite-element sizes, and what the reduction
// (posture/reduction.h) saves per call. Single thread, scalar doubles: the kernels' LineCost
// (kernels/line_cost.h) as every backend runs it, its stack arrays sized 64 so that n above the
// evaluator's capacity (32) can be timed too — loops run to n, so the capacity changes no
// operation.
//   line_cost_parts/n:{9,18,36,60}   random_batch.h's problem of n DOFs with 4 affine parts (one
//                                    per target) on 2 coefficients, 150 lines per iteration
//   evaluator_parts/n:{9,18,32}      CreateCpuEvaluator(1): one individual, the same problem
//                                    (the evaluator's own vector variant)
//   beam_chain/full, beam_chain/reduced   benchmarks/beam_chain.h with 57 beam nodes (n = 60) and
//                                    its reduction (modes to 150 Hz, 2 Krylov orders, the box's
//                                    five samples), 100 lines 0.5–50 Hz: the per-call ratio is
//                                    full / reduced; counters n and the reduction's worst FRF
//                                    error in the band over the samples
//
//   build/benchmarks/parts_reduction_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "benchmarks/beam_chain.h"
#include "benchmarks/random_batch.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/frf/synthesize.h"
#include "frfit/posture/reduction.h"
#include "kernels/line_cost.h"

namespace frfit::bench {
namespace {

constexpr int kCapacity = 64;

struct Case {
  PackedProblem problem;
  std::vector<double> coefficients;
};

Case PartsCase(int n) {
  std::mt19937_64 rng(100 + n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Case c;
  c.problem = RandomProblem(rng, n, 1);
  AddRandomParts(rng, 4, 2, &c.problem);
  for (int j = 0; j < n; ++j) c.coefficients.push_back(std::pow(10.0, 5.0 + 3.0 * u(rng)));
  for (int j = 0; j < n; ++j) c.coefficients.push_back(std::pow(10.0, 4.0 * u(rng)));
  for (int j = 0; j < n; ++j) c.coefficients.push_back(0.02 * c.coefficients[j]);
  c.coefficients.push_back(1e-4);
  c.coefficients.push_back(3e5);
  c.coefficients.push_back(2e5);
  return c;
}

kernels::PostureArrays ArraysOf(const PackedProblem& problem, const PackedPosture& p) {
  return {problem.n, p.mass.data(), p.gravity.data(), p.basis.data(), p.basis.data(),
          problem.masses, p.mass_parts.data(), p.gravity_parts.data(), p.num_parts(),
          p.part_matrices.data(), p.part_layout.data()};
}

// Σ of the line costs of every line of the problem's first posture.
double CostOfLines(const Case& c) {
  const PackedPosture& p = c.problem.postures[0];
  const kernels::PostureArrays arrays = ArraysOf(c.problem, p);
  double sum = 0.0;
  for (int l = 0; l < p.num_lines(); ++l) {
    const kernels::LineTarget line{p.omega_rad_s[l], p.weight.data() + 9 * l,
                                   p.target.data() + 18 * l};
    unsigned status = 0;
    sum += kernels::LineCost<kCapacity>(arrays, c.coefficients.data(), line, p.fit_order,
                                        c.problem.cost_kind, c.problem.phase_mode, &status);
  }
  return sum;
}

void LineCostParts(benchmark::State& state) {
  const Case c = PartsCase(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(CostOfLines(c));
  state.SetItemsProcessed(state.iterations() * c.problem.postures[0].num_lines());
}
BENCHMARK(LineCostParts)->Name("line_cost_parts")->ArgName("n")->Arg(9)->Arg(18)->Arg(36)->Arg(60);

void EvaluatorParts(benchmark::State& state) {
  const Case c = PartsCase(static_cast<int>(state.range(0)));
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems({c.problem});
  const int one = 1;
  double cost = 0;
  EvalStatus status;
  for (auto _ : state) cpu->Evaluate({&one, 1}, c.coefficients, {&cost, 1}, {&status, 1});
  state.SetItemsProcessed(state.iterations() * c.problem.postures[0].num_lines());
}
BENCHMARK(EvaluatorParts)->Name("evaluator_parts")->ArgName("n")->Arg(9)->Arg(18)->Arg(32);

// A posture and its coefficients as the kernels read them: 100 lines 0.5–50 Hz, unit weights,
// targets 0 (the cost's value does not matter here, its arithmetic does).
Case PackPosture(const Posture& posture, const JointCoefficients& coefficients) {
  Case c;
  PackedProblem& problem = c.problem;
  problem.n = posture.n;
  PackedPosture p;
  for (int r = 0; r < posture.n; ++r)
    for (int col = 0; col < posture.n; ++col) {
      p.mass.push_back(posture.mass(r, col));
      p.gravity.push_back(posture.gravity_stiffness(r, col));
    }
  for (const AffinePart& part : posture.affine_parts) {
    for (int r = 0; r < posture.n; ++r)
      for (int col = 0; col < posture.n; ++col) p.part_matrices.push_back(part.matrix(r, col));
    p.part_layout.push_back(static_cast<double>(part.target));
    p.part_layout.push_back(part.coefficient);
    problem.parts = std::max(problem.parts, part.coefficient + 1);
  }
  for (int r = 0; r < posture.n; ++r)
    for (int j = 0; j < 3; ++j) p.basis.push_back(posture.sensor_basis(r, j));
  for (double f : MakeBand(0.5, 50.0, 0.5, "band")) {
    p.omega_rad_s.push_back(kTwoPi * f);
    for (int e = 0; e < 9; ++e) p.weight.push_back(1.0), p.target.push_back(0.0), p.target.push_back(0.0);
  }
  problem.postures.push_back(p);
  AppendPacked(coefficients, &c.coefficients);
  return c;
}

struct Chain {
  Case full, reduced;
  double error = 0.0;
};

const Chain& BeamChainCases() {
  static const Chain chain = [] {
    const BeamChain beam = MakeBeamChain(57);
    const std::vector<JointCoefficients> samples = {
        BeamChainAt(beam, 1, 1, 0.01, 2), BeamChainAt(beam, 0.5, 0.5, 1e-3, 1),
        BeamChainAt(beam, 2, 2, 0.05, 4), BeamChainAt(beam, 0.5, 2, 0.05, 1),
        BeamChainAt(beam, 2, 0.5, 1e-3, 4)};
    ReductionOptions options;
    options.modes_up_to_hz = 150.0;
    const Reduction r = Reduce(beam.posture, beam.joints, samples, {}, options, "beam_chain");
    Chain out;
    out.full = PackPosture(beam.posture, samples[0]);
    out.reduced = PackPosture(r.posture, ReducedCoefficients(samples[0], beam.joints, r.posture.n));
    out.error = ReductionError(beam.posture, r, samples, MakeBand(0.5, 50.0, 0.5, "band"));
    return out;
  }();
  return chain;
}

void BeamChainLines(benchmark::State& state) {
  const Chain& chain = BeamChainCases();
  const Case& c = state.range(0) == 0 ? chain.full : chain.reduced;
  for (auto _ : state) benchmark::DoNotOptimize(CostOfLines(c));
  state.SetItemsProcessed(state.iterations() * c.problem.postures[0].num_lines());
  state.counters["n"] = c.problem.n;
  state.counters["band_error"] = chain.error;
}
BENCHMARK(BeamChainLines)->Name("beam_chain/full")->Arg(0);
BENCHMARK(BeamChainLines)->Name("beam_chain/reduced")->Arg(1);

}  // namespace
}  // namespace frfit::bench

BENCHMARK_MAIN();
