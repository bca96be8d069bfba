// The cpu evaluator's contract (include/frfit/evaluator/evaluator.h, DESIGN.md §3): the same bits
// for every thread count and batching, sizes checked, singular individuals ranked last (+inf), and
// the fixed pairwise reduction order of kernels/tree_sum.h, which is written out here on its own.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/evaluator/packed_problem.h"
#include "kernels/line_cost.h"
#include "kernels/tree_sum.h"

namespace frfit {
namespace {

// A random but well-posed problem: SPD mass, small symmetric gravity, random basis, `lines` lines
// up to 40 Hz, random targets and weights (some zero), `postures` postures.
PackedProblem RandomProblem(int n, int postures, int lines, int cost_kind, int phase_mode, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  PackedProblem p;
  p.n = n;
  p.cost_kind = cost_kind;
  p.phase_mode = phase_mode;
  for (int q = 0; q < postures; ++q) {
    PackedPosture pp;
    std::vector<double> a(n * n);
    for (double& x : a) x = u(rng);
    pp.mass.assign(n * n, 0.0);
    pp.gravity.assign(n * n, 0.0);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        double s = r == c ? 5.0 : 0.0;
        for (int k = 0; k < n; ++k) s += a[r * n + k] * a[c * n + k];
        pp.mass[r * n + c] = s;
        pp.gravity[r * n + c] = 1e3 * u(rng);
      }
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < r; ++c) pp.gravity[r * n + c] = pp.gravity[c * n + r];
    for (int i = 0; i < n * 3; ++i) pp.basis.push_back(u(rng));
    for (int l = 0; l < lines; ++l) {
      pp.omega_rad_s.push_back(2.0 * M_PI * 40.0 * (l + 1) / lines);
      for (int e = 0; e < 9; ++e) {
        pp.weight.push_back(e == 4 ? 0.0 : 0.5 + u(rng) * 0.4);
        pp.target.push_back(cost_kind == 2 ? 1e-6 * u(rng) : -10.0 + u(rng));
        pp.target.push_back(cost_kind == 2 ? 1e-6 * u(rng) : 3.0 * u(rng));
      }
    }
    pp.posture_weight = 0.5 + q;
    pp.fit_order = q % 3;
    p.postures.push_back(pp);
  }
  return p;
}

std::vector<double> RandomCoefficients(const PackedProblem& p, int individuals, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> out;
  for (int i = 0; i < individuals; ++i)
    for (int q = 0; q < p.num_postures(); ++q) {
      for (int j = 0; j < p.n; ++j) out.push_back(1e5 * std::pow(100.0, u(rng)));
      for (int j = 0; j < p.n; ++j) out.push_back(10.0 * std::pow(1000.0, u(rng)));
      for (int j = 0; j < p.n; ++j) out.push_back(i % 3 == 0 ? 1e3 * u(rng) : 0.0);
      out.push_back(i % 4 == 0 ? 0.01 * u(rng) : 0.0);
    }
  return out;
}

struct Batch {
  std::vector<PackedProblem> problems;
  std::vector<int> individuals;
  std::vector<double> coefficients;
  size_t points() const {
    size_t s = 0;
    for (int i : individuals) s += i;
    return s;
  }
};

Batch MakeBatch() {
  Batch b;
  const int ns[] = {3, 9, 3, 9};
  const int counts[] = {37, 23, 0, 11};
  for (int i = 0; i < 4; ++i) {
    b.problems.push_back(RandomProblem(ns[i], 2, 60 + 7 * i, i % 3, i % 2, 100 + i));
    b.individuals.push_back(counts[i]);
    const auto c = RandomCoefficients(b.problems.back(), counts[i], 200 + i);
    b.coefficients.insert(b.coefficients.end(), c.begin(), c.end());
  }
  return b;
}

std::vector<double> RunBatch(const Batch& b, int threads, std::vector<EvalStatus>* status_out = nullptr,
                        long long* solves = nullptr) {
  auto evaluator = CreateCpuEvaluator(threads);
  evaluator->SetProblems(b.problems);
  std::vector<double> costs(b.points(), -1.0);
  std::vector<EvalStatus> status(b.points(), EvalStatus::kNonFinite);
  evaluator->Evaluate(b.individuals, b.coefficients, costs, status);
  if (status_out) *status_out = status;
  if (solves) *solves = evaluator->line_solves();
  return costs;
}

TEST(EvaluatorCpu, CostsAreBitIdenticalForEveryThreadCount) {
  const Batch b = MakeBatch();
  std::vector<EvalStatus> status;
  long long solves = 0;
  const std::vector<double> one = RunBatch(b, 1, &status, &solves);
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(status[i], EvalStatus::kOk) << i;
    EXPECT_TRUE(std::isfinite(one[i]) && one[i] > 0.0) << i << ": " << one[i];
  }
  long long want_solves = 0;
  for (size_t p = 0; p < b.problems.size(); ++p)
    for (const auto& q : b.problems[p].postures) want_solves += 1LL * b.individuals[p] * q.num_lines();
  EXPECT_EQ(solves, want_solves);
  for (int threads : {2, 3, 7}) {
    const std::vector<double> many = RunBatch(b, threads);
    ASSERT_EQ(many.size(), one.size());
    for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(many[i], one[i]) << threads << " threads, point " << i;
  }
}

TEST(EvaluatorCpu, CostsDoNotDependOnBatching) {
  const Batch b = MakeBatch();
  const std::vector<double> together = RunBatch(b, 2);
  size_t point = 0, offset = 0;
  for (size_t p = 0; p < b.problems.size(); ++p) {
    const size_t per = static_cast<size_t>(b.problems[p].num_postures()) * b.problems[p].coefficient_stride();
    for (int i = 0; i < b.individuals[p]; ++i, ++point, offset += per) {
      Batch single;
      single.problems = {b.problems[p]};
      single.individuals = {1};
      single.coefficients.assign(b.coefficients.begin() + offset, b.coefficients.begin() + offset + per);
      ASSERT_EQ(RunBatch(single, 1)[0], together[point]) << "problem " << p << " individual " << i;
    }
  }
}

TEST(EvaluatorCpu, WrongSizesThrow) {
  const Batch b = MakeBatch();
  auto evaluator = CreateCpuEvaluator(2);
  evaluator->SetProblems(b.problems);
  std::vector<double> costs(b.points());
  std::vector<EvalStatus> status(b.points());
  std::vector<double> short_coefficients(b.coefficients.begin(), b.coefficients.end() - 1);
  EXPECT_THROW(evaluator->Evaluate(b.individuals, short_coefficients, costs, status), Error);
  std::vector<double> long_coefficients = b.coefficients;
  long_coefficients.push_back(1.0);
  EXPECT_THROW(evaluator->Evaluate(b.individuals, long_coefficients, costs, status), Error);
  std::vector<int> three(b.individuals.begin(), b.individuals.end() - 1);
  EXPECT_THROW(evaluator->Evaluate(three, b.coefficients, costs, status), Error);
  std::vector<double> few_costs(b.points() - 1);
  EXPECT_THROW(evaluator->Evaluate(b.individuals, b.coefficients, few_costs, status), Error);
  std::vector<EvalStatus> few_status(b.points() - 1);
  EXPECT_THROW(evaluator->Evaluate(b.individuals, b.coefficients, costs, few_status), Error);
  std::vector<int> negative = b.individuals;
  negative[2] = -1;
  EXPECT_THROW(evaluator->Evaluate(negative, b.coefficients, costs, status), Error);
  try {
    evaluator->Evaluate(b.individuals, short_coefficients, costs, status);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(b.coefficients.size())), std::string::npos) << e.what();
  }
  // Problems the per-line code cannot hold.
  PackedProblem big = RandomProblem(3, 1, 2, 0, 0, 1);
  big.n = kernels::kMaxDofs + 1;
  EXPECT_THROW(evaluator->SetProblems({big}), Error);
  big.n = 0;
  EXPECT_THROW(evaluator->SetProblems({big}), Error);
}

TEST(EvaluatorCpu, SingularIndividualsCostInfinityAndOthersAreUntouched) {
  Batch b;
  b.problems = {RandomProblem(3, 2, 40, 0, 0, 7)};
  b.individuals = {4};
  b.coefficients = RandomCoefficients(b.problems[0], 4, 8);
  const std::vector<double> clean = RunBatch(b, 1);
  const int stride = b.problems[0].coefficient_stride();
  b.coefficients[1 * 2 * stride + 0] = std::nan("");                                   // NaN k_1
  b.coefficients[2 * 2 * stride + stride + 1] = std::numeric_limits<double>::infinity();  // inf k_2, posture 2
  for (int threads : {1, 2}) {
    std::vector<EvalStatus> status;
    const std::vector<double> costs = RunBatch(b, threads, &status);
    EXPECT_EQ(status[0], EvalStatus::kOk);
    EXPECT_EQ(status[3], EvalStatus::kOk);
    EXPECT_EQ(costs[0], clean[0]);
    EXPECT_EQ(costs[3], clean[3]);
    for (int i : {1, 2}) {
      EXPECT_NE(status[i], EvalStatus::kOk) << i;
      EXPECT_EQ(costs[i], std::numeric_limits<double>::infinity()) << i;
    }
  }
  // An exactly singular Z: n = 1, no mass, no gravity, no stiffness, no damping.
  PackedProblem zero = RandomProblem(1, 1, 3, 0, 0, 9);
  zero.postures[0].mass = {0.0};
  zero.postures[0].gravity = {0.0};
  Batch z;
  z.problems = {zero};
  z.individuals = {1};
  z.coefficients = {0.0, 0.0, 0.0, 0.0};
  std::vector<EvalStatus> status;
  const std::vector<double> costs = RunBatch(z, 1, &status);
  EXPECT_EQ(status[0], EvalStatus::kSingular);
  EXPECT_EQ(costs[0], std::numeric_limits<double>::infinity());
}

// ---- the reduction order ---------------------------------------------------------------------------

// The documented order, stated recursively: over the smallest power-of-two span P >= n, the sum
// of a block is (sum of its left half) + (sum of its right half), where a right half lying wholly
// past the end contributes nothing (and is not added as 0).
double Pairwise(const std::vector<double>& v, int lo, int span) {
  const int n = static_cast<int>(v.size());
  if (span == 1) return v[lo];
  const int half = span / 2;
  if (lo + half >= n) return Pairwise(v, lo, half);
  return Pairwise(v, lo, half) + Pairwise(v, lo + half, half);
}

double Documented(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  int span = 1;
  while (span < static_cast<int>(v.size())) span *= 2;
  return Pairwise(v, 0, span);
}

TEST(EvaluatorTreeSum, HandWrittenSmallCases) {
  auto tree = [](std::vector<double> v) { return kernels::TreeSum(v.data(), static_cast<int>(v.size())); };
  EXPECT_EQ(tree({}), 0.0);
  EXPECT_EQ(tree({3.5}), 3.5);
  // n = 3: (a + b) + c.   1e16 + 1 rounds back to 1e16, so order shows.
  EXPECT_EQ(tree({1e16, 1.0, -1e16}), 0.0);  // (1e16 + 1) − 1e16 = 0, left to right also 0
  EXPECT_EQ(tree({1.0, 1e16, -1e16}), 0.0);
  EXPECT_EQ(tree({-1e16, 1e16, 1.0}), 1.0);
  // n = 4: (a + b) + (c + d).   Left to right would give ((1 + 1e16) − 1e16) + 1 = 1.
  EXPECT_EQ(tree({1.0, 1e16, -1e16, 1.0}), 0.0);
  // n = 5: ((a + b) + (c + d)) + e.
  EXPECT_EQ(tree({1e16, -1e16, 1.0, 1.0, 1e16}), 1e16 + 2.0);
  // n = 6: ((a + b) + (c + d)) + (e + f).
  EXPECT_EQ(tree({1.0, 1.0, 1e16, 1.0, 1.0, -1e16}), 2.0);  // left to right: 4
}

TEST(EvaluatorTreeSum, EqualsTheDocumentedPairwiseOrderUpTo20) {
  std::mt19937_64 rng(3);
  const double pool[] = {1e16, -1e16, 1.0, -1.0, 0.5, 3.0, 1e-3, 7e15};
  int differs_from_left_to_right = 0;
  for (int n = 1; n <= 20; ++n)
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> v(n);
      for (double& x : v) x = pool[rng() % 8];
      double left = 0.0;
      for (double x : v) left += x;
      const double want = Documented(v);
      std::vector<double> scratch = v;
      const double got = kernels::TreeSum(scratch.data(), n);
      ASSERT_EQ(got, want) << "n = " << n << " trial " << trial;
      differs_from_left_to_right += got != left;
    }
  EXPECT_GT(differs_from_left_to_right, 100);  // the values make the order visible
}

}  // namespace
}  // namespace frfit
