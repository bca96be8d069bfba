// Random batches that exercise every feature the evaluators' kernels have — each cost kind,
// phase mode, fit order and robust loss, multi-point response bases, static deflection postures,
// fitted body masses, NaN coefficients — in shapes chosen to hit the launch layouts' edges
// (postures of 0 and 1 line, problems without individuals, n = 1 to 32 in every bucket).
// Shared by the host emulation of the cuda launches (launch_emulation.h, run by
// cuda_launch_test.cc), which runs them without a GPU, and the cuda evaluator's tests
// (cuda_evaluator_test.cc), which run them on one.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/evaluator/packed_problem.h"
#include "kernels/line_cost.h"

namespace frfit::feature_batch {

struct ProblemSpec {
  int n;
  int individuals;
  std::vector<int> lines;  // per posture
  int dim = 2;             // free parameters, for the normal equations
  int parts = 0;           // affine parts (bench::AddRandomParts), on three coefficients
};

struct Batch {
  std::vector<PackedProblem> problems;
  std::vector<int> individuals;
  std::vector<int> dims;
  std::vector<double> coefficients;   // [problem][individual][posture][coefficient stride]
  std::vector<double> sensitivities;  // [problem][individual][posture][coefficient stride][dim]
};

// The benchmark's random problems cut to the given lines, with every cost kind, phase mode,
// robust loss and fit order and unequal posture weights; one individual's stiffness NaN, so that
// statuses are exercised too. Every second posture is a multi-point set (its own response basis),
// every third a static deflection test, and every fourth problem fits body masses (1 or 2).
inline Batch MakeBatch(const std::vector<ProblemSpec>& specs, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::mt19937_64 points_rng(seed + 1000);  // multi-point sets' response bases, drawn apart
  std::mt19937_64 mass_rng(seed + 2000);
  std::mt19937_64 parts_rng(seed + 3000);  // drawn apart: specs without parts keep their draws
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Batch b;
  bool nan_placed = false;
  for (size_t s = 0; s < specs.size(); ++s) {
    const ProblemSpec& spec = specs[s];
    PackedProblem p = bench::RandomProblem(rng, spec.n, static_cast<int>(spec.lines.size()));
    p.cost_kind = static_cast<int>(s % 3);
    p.phase_mode = static_cast<int>(s / 3 % 2);
    // Losses on problems 1, 2, 4, 5, ...: a scale of one noise deviation puts the random
    // targets' weighted errors on both sides of it, so both branches of Huber's ρ run.
    p.loss = static_cast<int>((s + 1) % 3 == 0 ? kernels::kLossNone : (s % 2 == 0 ? kernels::kLossHuber
                                                                            : kernels::kLossCauchy));
    p.loss_scale = p.loss == kernels::kLossNone ? 0.0 : 1.0;
    for (size_t q = 0; q < spec.lines.size(); ++q) {
      PackedPosture& posture = p.postures[q];
      const int lines = spec.lines[q];
      posture.omega_rad_s.resize(lines);
      posture.weight.resize(9 * lines);
      posture.target.resize(18 * lines);
      posture.fit_order = static_cast<int>((s + q) % 3);
      posture.posture_weight = 1.0 + 0.25 * static_cast<double>(q);
      posture.is_static = q == 2;  // a static deflection test's kind (PackedPosture::CostKind)
      if (q % 2 == 1) {  // a multi-point set: its own response basis
        posture.response_basis.resize(posture.basis.size());
        for (double& v : posture.response_basis) v = u(points_rng) - 0.5;
      }
    }
    if (s % 4 == 1) bench::AddRandomMasses(mass_rng, 1 + static_cast<int>(s / 4 % 2), &p);
    if (spec.parts > 0) bench::AddRandomParts(parts_rng, spec.parts, 3, &p);
    const int stride = p.coefficient_stride();
    for (int i = 0; i < spec.individuals; ++i)
      for (size_t q = 0; q < spec.lines.size(); ++q) {
        const size_t first = b.coefficients.size();
        for (int j = 0; j < spec.n; ++j)
          b.coefficients.push_back(std::pow(10.0, 5.0 + 3.0 * u(rng)));
        for (int j = 0; j < spec.n; ++j) b.coefficients.push_back(std::pow(10.0, 4.0 * u(rng)));
        for (int j = 0; j < spec.n; ++j) b.coefficients.push_back(0.02 * b.coefficients[first + j]);
        b.coefficients.push_back(1e-4);
        for (int m = 0; m < p.masses; ++m) b.coefficients.push_back(40.0 + 15.0 * m + u(rng));
        // Part coefficients on the joint stiffnesses' scale (10^5 .. 10^6), from parts_rng.
        for (int a = 0; a < p.parts; ++a)
          b.coefficients.push_back(std::pow(10.0, 5.0 + std::uniform_real_distribution<double>(
                                                             0.0, 1.0)(parts_rng)));
        if (i == 1 && !nan_placed) {
          b.coefficients[first] = std::numeric_limits<double>::quiet_NaN();
          nan_placed = true;
        }
        for (int j = 0; j < stride * spec.dim; ++j) b.sensitivities.push_back(u(rng) - 0.5);
      }
    b.problems.push_back(std::move(p));
    b.individuals.push_back(spec.individuals);
    b.dims.push_back(spec.dim);
  }
  return b;
}

// n = 9, 10 and 12 in bucket 12 (slots sized by 12 while the bucket's first problem is 9), a
// problem with no individuals, postures of 1 line, of no line, line counts that are no multiple
// of any tile count, n = 1, 3, 18, 32, dims 1 to 3; n = 40 and 60 in the reduced beam models'
// buckets (48, 64: a 60-DOF tile's scratch passes 48 KB of shared memory).
inline std::vector<ProblemSpec> MixedSpecs() {
  return {{9, 5, {7, 150}, 2}, {12, 3, {1, 33}, 3}, {3, 0, {20}, 1},  {3, 4, {1}, 2},
          {10, 2, {0, 5}, 1},  {32, 2, {3, 40}, 2}, {18, 1, {17}, 3}, {1, 3, {2, 9}, 1},
          {24, 2, {11}, 2},    {5, 2, {6, 0, 4}, 2}, {40, 1, {7}, 1},  {60, 2, {5, 3}, 2}};
}
// Problems with affine parts of every target (8 parts on 3 coefficients, 4 on a mass-fitting
// problem), in several buckets.
inline std::vector<ProblemSpec> PartsSpecs() {
  return {{9, 3, {7, 20}, 3, 8}, {12, 2, {5, 11}, 4, 8}, {3, 2, {6}, 2, 5},
          {18, 2, {9}, 2, 8},   {32, 1, {4, 3}, 3, 4}, {60, 1, {3}, 2, 8}};
}
// One bucket holding only n = 9 (slots smaller than the bucket's capacity would need).
inline std::vector<ProblemSpec> NineOnlySpecs() { return {{9, 7, {150, 13}, 2}, {9, 0, {4}, 2}}; }
inline std::vector<ProblemSpec> OneLineSpecs() { return {{9, 1, {1}, 1}}; }
inline std::vector<ProblemSpec> NoIndividualSpecs() { return {{9, 0, {150}, 2}, {32, 0, {3, 4}, 2}}; }
// A fit from modes alone — no posture, so no line — of 120 coordinates, past kernels::kMaxDofs,
// between problems with lines in the last bucket (n = 50 and 60) and in another (n = 9).
inline std::vector<ProblemSpec> LineFreeSpecs() {
  return {{50, 2, {7, 3}, 2}, {120, 3, {}, 2}, {9, 2, {5}, 1}, {60, 1, {4}, 2}};
}
// A fleet-like call: many robots at n = 9, and the 32-DOF bucket at 2 tiles a block.
inline std::vector<ProblemSpec> FleetSpecs() {
  std::vector<ProblemSpec> specs;
  for (int p = 0; p < 8; ++p) specs.push_back({9, 64, {150, 150}, 2});
  specs.push_back({32, 16, {150, 150}, 2});
  specs.push_back({11, 33, {150, 149}, 2});
  return specs;
}

// A refinement pass's version of `p`: other weights and targets, another cost kind and loss.
inline PackedProblem RefinementPassOf(PackedProblem p, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (PackedPosture& q : p.postures) {
    for (double& w : q.weight) w = w == 0.0 ? 0.0 : 0.1 + u(rng);
    for (double& t : q.target) t = u(rng) - 0.5;
    q.posture_weight *= 2.0;
  }
  p.cost_kind = kernels::kCostNormalizedComplex;
  p.loss = kernels::kLossHuber;
  p.loss_scale = 2.0;
  return p;
}

}  // namespace frfit::feature_batch
