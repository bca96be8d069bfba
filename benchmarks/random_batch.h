// The random batches the evaluator benchmarks time and export: one PackedProblem per problem
// (SPD mass, symmetric gravity, random basis, kLines lines from 0.2 to 30 Hz, weights 50 on the
// diagonal entries and 0.5 elsewhere, targets in the log format) and per (problem, individual,
// posture) joint coefficients of plausible size. Shared by gpu_evaluator_bench.cc and
// export_random_batch.cc so that the PyTorch baseline solves the very systems the benchmark times.
#pragma once

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "frfit/evaluator/packed_problem.h"

namespace frfit::bench {

constexpr int kLines = 150;
constexpr double kTwoPi = 6.283185307179586;

inline PackedProblem RandomProblem(std::mt19937_64& rng, int n, int postures) {
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

// Gives `problem` `masses` fitted body masses: at every posture each mass's share of M0 (a
// random positive semi-definite n×n per kg, rank 3 like a body's translation) and of K_gravity
// (symmetric). The caller appends the masses (kg) to each individual's coefficients.
inline void AddRandomMasses(std::mt19937_64& rng, int masses, PackedProblem* problem) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = problem->n;
  problem->masses = masses;
  for (PackedPosture& p : problem->postures) {
    p.mass_parts.assign(static_cast<size_t>(masses) * n * n, 0.0);
    p.gravity_parts.assign(static_cast<size_t>(masses) * n * n, 0.0);
    for (int b = 0; b < masses; ++b) {
      double* mass = p.mass_parts.data() + b * n * n;
      double* gravity = p.gravity_parts.data() + b * n * n;
      std::vector<double> j(3 * n);  // a 3×n Jacobian: mass = JᵀJ
      for (double& v : j) v = 0.2 * u(rng);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          for (int k = 0; k < 3; ++k) mass[r * n + c] += j[k * n + r] * j[k * n + c];
      for (int r = 0; r < n; ++r)
        for (int c = r; c < n; ++c) gravity[r * n + c] = gravity[c * n + r] = 2.0 * u(rng);
    }
  }
}

// `parts` random symmetric affine parts on every posture of `problem`, the targets in turn
// (stiffness, loss, damping, mass), part a using coefficient a % coefficients: sizes that keep
// Z(ω) of RandomProblem's coefficients well conditioned (kernels::PostureArrays).
inline void AddRandomParts(std::mt19937_64& rng, int parts, int coefficients,
                           PackedProblem* problem) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = problem->n;
  problem->parts = coefficients;
  for (PackedPosture& p : problem->postures) {
    p.part_matrices.assign(static_cast<size_t>(parts) * n * n, 0.0);
    p.part_layout.clear();
    for (int a = 0; a < parts; ++a) {
      double* matrix = p.part_matrices.data() + static_cast<size_t>(a) * n * n;
      const int target = a % 4;
      // Mass parts as 0.01·JᵀJ (positive semi-definite), the others dense symmetric.
      if (target == 3) {
        std::vector<double> j(3 * n);
        for (double& v : j) v = 0.1 * u(rng);
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c)
            for (int k = 0; k < 3; ++k) matrix[r * n + c] += j[k * n + r] * j[k * n + c];
      } else {
        for (int r = 0; r < n; ++r)
          for (int c = r; c < n; ++c) matrix[r * n + c] = matrix[c * n + r] = u(rng);
      }
      p.part_layout.push_back(static_cast<double>(target));
      p.part_layout.push_back(static_cast<double>(a % coefficients));
    }
  }
}

struct Batch {
  std::vector<PackedProblem> problems;
  std::vector<int> individuals;
  std::vector<double> coefficients;
  long long lines = 0;
};

inline Batch MakeBatch(int n, int problems, int individuals, int postures) {
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

}  // namespace frfit::bench
