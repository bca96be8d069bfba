// The cuda backend against the cpu backend (DESIGN.md §3): the deterministic tier must give the
// very same bits (==), the cuBLAS batched tier the same costs to 1e-10 relative; statuses equal.
// Every test that needs a device skips, saying why, when no usable GPU is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_cost.h"
#include "cuda/feature_batch.h"
#if defined(FRFIT_HAVE_CUDA)
#include <cuda_runtime.h>

#include "frfit/evaluator/cuda_backend.h"
#include "src/evaluator/cuda/cuda_batched_tier.h"
#endif

namespace frfit {
namespace {

constexpr double kTwoPi = 6.283185307179586;

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
double LogUniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(Uniform(rng, std::log(lo), std::log(hi)));
}

// A synthetic problem: SPD mass, small symmetric gravity, random basis, `lines` lines between
// 0.2 and 30 Hz, weights drawn from {0, 0.5, 50}, plausible targets in the fitted format.
PackedProblem RandomProblem(std::mt19937_64& rng, int n, int postures, int lines, int cost_kind,
                            int phase_mode) {
  PackedProblem problem;
  problem.n = n;
  problem.cost_kind = cost_kind;
  problem.phase_mode = phase_mode;
  for (int q = 0; q < postures; ++q) {
    PackedPosture p;
    std::vector<double> a(n * n);
    for (double& v : a) v = Uniform(rng, -1.0, 1.0);
    p.mass.assign(n * n, 0.0);
    p.gravity.assign(n * n, 0.0);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += a[r * n + k] * a[c * n + k];
        p.mass[r * n + c] = 2.0 * s + (r == c ? 0.5 * n : 0.0);  // ~ 1–50 kg·m², SPD
      }
    for (int r = 0; r < n; ++r)
      for (int c = r; c < n; ++c) p.gravity[r * n + c] = p.gravity[c * n + r] = Uniform(rng, -500.0, 500.0);
    p.basis.resize(n * 3);
    for (double& v : p.basis) v = Uniform(rng, -1.0, 1.0);
    for (int l = 0; l < lines; ++l) {
      p.omega_rad_s.push_back(kTwoPi * (0.2 + (30.0 - 0.2) * l / (lines - 1)));
      for (int e = 0; e < 9; ++e) {
        const int pick = std::uniform_int_distribution<int>(0, 2)(rng);
        p.weight.push_back(pick == 0 ? 0.0 : pick == 1 ? 0.5 : 50.0);
        if (cost_kind == kernels::kCostNormalizedComplex) {
          p.target.push_back(Uniform(rng, -1e-2, 1e-2));
          p.target.push_back(Uniform(rng, -1e-2, 1e-2));
        } else {
          p.target.push_back(Uniform(rng, -12.0, 0.0));    // log|H|
          p.target.push_back(Uniform(rng, -3.14, 3.14));   // arg H
        }
      }
    }
    p.posture_weight = q == 0 ? 1.0 : Uniform(rng, 0.3, 2.0);
    p.fit_order = q % 3 == 0 ? 2 : std::uniform_int_distribution<int>(0, 2)(rng);
    problem.postures.push_back(std::move(p));
  }
  return problem;
}

// Realistic coefficients: k 1e5–1e8, c 1–1e4, h = η·k with η 1e-3–5e-2, α 0–1e-3.
void AppendCoefficients(std::mt19937_64& rng, int n, std::vector<double>* out) {
  for (int j = 0; j < n; ++j) out->push_back(LogUniform(rng, 1e5, 1e8));
  for (int j = 0; j < n; ++j) out->push_back(LogUniform(rng, 1.0, 1e4));
  for (int j = 0; j < n; ++j) out->push_back(LogUniform(rng, 1e-3, 5e-2) * (*out)[out->size() - 2 * n]);
  out->push_back(Uniform(rng, 0.0, 1e-3));
}

struct Batch {
  std::vector<PackedProblem> problems;
  std::vector<int> individuals;
  std::vector<double> coefficients;
  size_t num_costs() const {
    size_t s = 0;
    for (int i : individuals) s += i;
    return s;
  }
};

struct Result {
  std::vector<double> costs;
  std::vector<EvalStatus> status;
};

Result RunBatch(Evaluator& evaluator, const Batch& batch) {
  evaluator.SetProblems(batch.problems);
  Result r;
  // Poisoned: every entry must be written.
  r.costs.assign(batch.num_costs(), -12345.0);
  r.status.assign(batch.num_costs(), static_cast<EvalStatus>(77));
  evaluator.Evaluate(batch.individuals, batch.coefficients, r.costs, r.status);
  return r;
}

// Problems of n = 3, 9, 18 (and the bucket edges 4, 12, 24, 32), every cost kind and fit order,
// 2 postures, 150 lines, several problems and one with no individuals in the same call.
Batch RandomBatch(unsigned seed) {
  std::mt19937_64 rng(seed);
  Batch b;
  // n = 36 and 60 land in the buckets of reduced beam models (48, 64), whose tiles need more
  // than the 48 KB of shared memory a block gets without opting in.
  const int ns[] = {3, 9, 18, 4, 12, 24, 32, 9, 3, 36, 60};
  const int kinds[] = {0, 0, 0, 1, 2, 0, 1, 2, 0, 0, 1};
  const int phases[] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0};
  const int counts[] = {24, 17, 9, 5, 5, 3, 2, 0, 31, 2, 2};
  for (int p = 0; p < 11; ++p) {
    b.problems.push_back(RandomProblem(rng, ns[p], 2, 150, kinds[p], phases[p]));
    b.individuals.push_back(counts[p]);
    for (int i = 0; i < counts[p]; ++i)
      for (int q = 0; q < 2; ++q) AppendCoefficients(rng, ns[p], &b.coefficients);
  }
  return b;
}

bool SkipWithoutGpu(std::string* reason) { return !IsCudaUsable(reason); }

#define FRFIT_REQUIRE_GPU()                                  \
  do {                                                       \
    std::string reason;                                      \
    if (SkipWithoutGpu(&reason)) GTEST_SKIP() << reason;     \
  } while (0)

TEST(CudaBackend, AskingForCudaWithoutGpuSaysWhyAndAutoFallsBack) {
  std::string reason;
  const bool usable = IsCudaUsable(&reason);
  EvaluatorOptions options;
  options.backend = BackendType::kAuto;
  options.threads = 1;
  if (usable) {
    EXPECT_EQ(CreateEvaluator(options)->backend(), BackendType::kCuda);
    return;
  }
  EXPECT_FALSE(reason.empty());
  EXPECT_EQ(CreateEvaluator(options)->backend(), BackendType::kCpu);
  options.backend = BackendType::kCuda;
  try {
    CreateEvaluator(options);
    ADD_FAILURE() << "expected an Error for --backend cuda without a usable GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
#if defined(FRFIT_HAVE_CUDA)
  EXPECT_THROW(CreateCudaEvaluator(), Error);
  EXPECT_THROW(CreateCudaBatchedEvaluator(), Error);
#endif
}

#if defined(FRFIT_HAVE_CUDA)

// Checked before any device work, so it holds with or without a GPU.
TEST(CudaBackend, LanesPerLineOutsideTheChoicesIsAnError) {
  for (int lanes : {-1, 2, 3, 7, 64}) {
    try {
      CreateCudaEvaluator(lanes);
      ADD_FAILURE() << "expected an Error for " << lanes << " lanes per line";
    } catch (const Error& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find("lanes_per_line"), std::string::npos) << text;
      EXPECT_NE(text.find("got " + std::to_string(lanes)), std::string::npos) << text;
    }
  }
  EXPECT_EQ(DefaultLanesPerLine(3), 1);
  EXPECT_EQ(DefaultLanesPerLine(9), 8);
  EXPECT_EQ(DefaultLanesPerLine(18), 16);
  EXPECT_EQ(DefaultLanesPerLine(32), 32);
}

// Every way of spreading a line over GPU threads: by size (the default), one thread, and tiles
// of 4, 8, 16 and 32 lanes, each on every bucket of the random batch.
TEST(CudaEvaluator, DeterministicTierEqualsCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  for (unsigned seed : {1u, 2u, 3u}) {
    const Batch batch = RandomBatch(seed);
    auto cpu = CreateCpuEvaluator(0);
    const Result want = RunBatch(*cpu, batch);
    for (int lanes : {0, 1, 4, 8, 16, 32}) {
      auto gpu = CreateCudaEvaluator(lanes);
      EXPECT_EQ(gpu->backend(), BackendType::kCuda);
      EXPECT_FALSE(gpu->description().empty());
      const Result got = RunBatch(*gpu, batch);
      ASSERT_EQ(got.costs.size(), want.costs.size());
      int mismatches = 0, status_mismatches = 0;
      for (size_t i = 0; i < want.costs.size(); ++i) {
        if (!(got.costs[i] == want.costs[i])) {
          if (mismatches < 5)
            ADD_FAILURE() << "seed " << seed << ", " << gpu->description() << ", cost " << i
                          << ": cuda " << got.costs[i] << " cpu " << want.costs[i];
          ++mismatches;
        }
        status_mismatches += got.status[i] != want.status[i];
      }
      EXPECT_EQ(mismatches, 0) << "of " << want.costs.size() << " costs (seed " << seed << ", "
                               << gpu->description() << ")";
      EXPECT_EQ(status_mismatches, 0) << gpu->description();
      EXPECT_EQ(gpu->line_solves(), cpu->line_solves());
    }
  }
}

TEST(CudaEvaluator, RepeatedAndResizedCallsGiveTheSameBits) {
  FRFIT_REQUIRE_GPU();
  Batch batch = RandomBatch(11);
  auto gpu = CreateCudaEvaluator();
  const Result first = RunBatch(*gpu, batch);
  std::vector<double> costs(first.costs.size());
  std::vector<EvalStatus> status(first.costs.size());
  gpu->Evaluate(batch.individuals, batch.coefficients, costs, status);
  EXPECT_EQ(costs, first.costs);
  // A smaller call on the same evaluator (buffers reused), then the full one again.
  std::vector<int> one(batch.individuals.size(), 0);
  one[0] = 1;
  const size_t stride0 = 2 * batch.problems[0].coefficient_stride();
  std::vector<double> c1(batch.coefficients.begin(), batch.coefficients.begin() + stride0);
  std::vector<double> cost1(1);
  std::vector<EvalStatus> st1(1);
  gpu->Evaluate(one, c1, cost1, st1);
  EXPECT_EQ(cost1[0], first.costs[0]);
  gpu->Evaluate(batch.individuals, batch.coefficients, costs, status);
  EXPECT_EQ(costs, first.costs);
}

TEST(CudaEvaluator, BatchedTierMatchesDeterministicTierTo1e10) {
  FRFIT_REQUIRE_GPU();
  const Batch batch = RandomBatch(5);
  auto gpu = CreateCudaEvaluator();
  auto blas = CreateCudaBatchedEvaluator();
  const Result want = RunBatch(*gpu, batch);
  const Result got = RunBatch(*blas, batch);
  int outside = 0;
  double worst = 0.0;
  for (size_t i = 0; i < want.costs.size(); ++i) {
    EXPECT_EQ(got.status[i], want.status[i]) << i;
    const double rel = std::abs(got.costs[i] - want.costs[i]) / std::abs(want.costs[i]);
    worst = std::max(worst, rel);
    outside += !(rel <= 1e-10);
  }
  EXPECT_EQ(outside, 0) << "worst relative difference " << worst;
  RecordProperty("worst_relative_difference", std::to_string(worst));
}

// `gpu` (its problems already set to b.problems) against the cpu backend on `b`: costs, statuses
// and normal-equation terms ==. `s` names the batch in messages.
void ExpectEvaluatorEqualsCpu(Evaluator& gpu, const feature_batch::Batch& b, size_t s) {
  size_t count = 0, terms = 0;
  for (size_t p = 0; p < b.problems.size(); ++p) {
    count += b.individuals[p];
    terms += static_cast<size_t>(b.individuals[p]) * NormalTermCount(b.dims[p]);
  }
  const NormalEquationsBatch normal_batch{b.individuals, b.dims, b.coefficients, b.sensitivities};
  auto cpu = CreateCpuEvaluator(0);
  cpu->SetProblems(b.problems);
  std::vector<double> want(count), want_normal(terms);
  std::vector<EvalStatus> want_status(count), want_normal_status(count);
  cpu->Evaluate(b.individuals, b.coefficients, want, want_status);
  cpu->EvaluateNormalEquations(normal_batch, want_normal, want_normal_status);
  std::vector<double> got(count, -12345.0), got_normal(terms, -12345.0);
  std::vector<EvalStatus> got_status(count, static_cast<EvalStatus>(77));
  std::vector<EvalStatus> got_normal_status(count, static_cast<EvalStatus>(77));
  gpu.Evaluate(b.individuals, b.coefficients, got, got_status);
  gpu.EvaluateNormalEquations(normal_batch, got_normal, got_normal_status);
  int cost_mismatches = 0, term_mismatches = 0;
  for (size_t i = 0; i < count; ++i)
    cost_mismatches += std::memcmp(&got[i], &want[i], sizeof(double)) != 0;
  for (size_t k = 0; k < terms; ++k)
    term_mismatches += std::memcmp(&got_normal[k], &want_normal[k], sizeof(double)) != 0;
  EXPECT_EQ(cost_mismatches, 0) << "of " << count << " costs, shape " << s << ", " << gpu.description();
  EXPECT_EQ(term_mismatches, 0) << "of " << terms << " terms, shape " << s << ", " << gpu.description();
  EXPECT_EQ(got_status, want_status) << "shape " << s << ", " << gpu.description();
  EXPECT_EQ(got_normal_status, want_normal_status) << "shape " << s << ", " << gpu.description();
  std::printf("[ shape %zu, %s ] %d of %zu costs and %d of %zu normal terms differ from the cpu's\n",
              s, gpu.description().c_str(), cost_mismatches, count, term_mismatches, terms);
}

// The batches the host emulation runs (cuda/feature_batch.h: every cost kind, phase mode, fit
// order and robust loss, multi-point response bases, static deflection postures, fitted body
// masses, a NaN coefficient), now on the GPU: ExpectEvaluatorEqualsCpu at every lanes-per-line
// choice; the cuBLAS tier's costs within 1e-10.
void ExpectEveryFeatureEqualsCpu(const feature_batch::Batch& b, size_t s) {
  for (int lanes : {0, 1, 4, 8, 16, 32}) {
    auto gpu = CreateCudaEvaluator(lanes);
    gpu->SetProblems(b.problems);
    ExpectEvaluatorEqualsCpu(*gpu, b, s);
  }
  size_t count = 0;
  for (int i : b.individuals) count += i;
  auto cpu = CreateCpuEvaluator(0);
  cpu->SetProblems(b.problems);
  std::vector<double> want(count);
  std::vector<EvalStatus> want_status(count);
  cpu->Evaluate(b.individuals, b.coefficients, want, want_status);
  auto blas = CreateCudaBatchedEvaluator();
  blas->SetProblems(b.problems);
  std::vector<double> got(count, -12345.0);
  std::vector<EvalStatus> got_status(count, static_cast<EvalStatus>(77));
  blas->Evaluate(b.individuals, b.coefficients, got, got_status);
  EXPECT_EQ(got_status, want_status) << "shape " << s << ", cuBLAS tier";
  int outside = 0;
  for (size_t i = 0; i < count; ++i)
    if (want_status[i] == EvalStatus::kOk)
      outside += !(std::abs(got[i] - want[i]) <= 1e-10 * std::abs(want[i]));
  EXPECT_EQ(outside, 0) << "of " << count << " costs beyond 1e-10 (cuBLAS tier, shape " << s << ")";
}

// The small shapes (edges of the launch layouts), apart from the fleet shape below so that
// racecheck, for which the fleet shape took over 200 s on one H200, can run them alone.
TEST(CudaEvaluator, EveryKernelFeatureEqualsCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  namespace fb = feature_batch;
  const std::vector<std::vector<fb::ProblemSpec>> shapes = {fb::MixedSpecs(), fb::NineOnlySpecs(),
                                                            fb::OneLineSpecs()};
  for (size_t s = 0; s < shapes.size(); ++s)
    ExpectEveryFeatureEqualsCpu(fb::MakeBatch(shapes[s], 31 + static_cast<unsigned>(s)), s);
}

// A fleet-like call (561 individuals, 8 robots at n = 9 beside n = 32 and 11).
TEST(CudaEvaluator, EveryKernelFeatureAtFleetShapeEqualsCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  ExpectEveryFeatureEqualsCpu(feature_batch::MakeBatch(feature_batch::FleetSpecs(), 34), 3);
}

// A fit's move to a refinement pass (SetProblem, in place on the device when the layout stays):
// problems 0, 3 and the last of the mixed batch replaced one by one on an evaluator that has
// evaluated before, then costs and normal equations == the cpu backend's on the replaced set,
// at every lanes choice; a replacement of another layout (a posture with a line fewer) too.
TEST(CudaEvaluator, ReplacedProblemsGiveTheCpuBits) {
  FRFIT_REQUIRE_GPU();
  namespace fb = feature_batch;
  const fb::Batch b = fb::MakeBatch(fb::MixedSpecs(), 35);
  std::vector<PackedProblem> replaced = b.problems;
  const size_t last = replaced.size() - 1;
  for (size_t k : {size_t{0}, size_t{3}, last})
    replaced[k] = fb::RefinementPassOf(b.problems[k], 50 + static_cast<unsigned>(k));
  for (int lanes : {0, 1, 8}) {
    auto gpu = CreateCudaEvaluator(lanes);
    gpu->SetProblems(b.problems);
    size_t count = 0;
    for (int i : b.individuals) count += i;
    std::vector<double> costs(count);
    std::vector<EvalStatus> status(count);
    gpu->Evaluate(b.individuals, b.coefficients, costs, status);  // the old problems, resident
    for (size_t k : {size_t{0}, size_t{3}, last}) gpu->SetProblem(static_cast<int>(k), replaced[k]);
    fb::Batch after = b;
    after.problems = replaced;
    ExpectEvaluatorEqualsCpu(*gpu, after, 100 + static_cast<size_t>(lanes));
    // Another layout (a line fewer at a posture) goes the way of a full upload, same bits.
    PackedProblem fewer = replaced[0];
    fewer.postures[1].omega_rad_s.pop_back();
    fewer.postures[1].weight.resize(fewer.postures[1].weight.size() - 9);
    fewer.postures[1].target.resize(fewer.postures[1].target.size() - 18);
    gpu->SetProblem(0, fewer);
    after.problems[0] = fewer;
    ExpectEvaluatorEqualsCpu(*gpu, after, 200 + static_cast<size_t>(lanes));
  }
}

// Singular and non-finite individuals: a NaN and an infinite coefficient, all-zero coefficients
// on a diagonal problem whose G − ω²M vanishes exactly at one line, a NaN target.
TEST(CudaEvaluator, SingularAndNonFiniteStatusesMatchCpu) {
  FRFIT_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  Batch b;
  b.problems.push_back(RandomProblem(rng, 9, 2, 150, 0, 0));
  b.individuals.push_back(4);
  for (int i = 0; i < 4; ++i)
    for (int q = 0; q < 2; ++q) AppendCoefficients(rng, 9, &b.coefficients);
  const int stride = b.problems[0].coefficient_stride();
  b.coefficients[0 * 2 * stride + 3] = std::numeric_limits<double>::quiet_NaN();       // k NaN
  b.coefficients[1 * 2 * stride + stride + 2 * 9 + 1] = std::numeric_limits<double>::infinity();
  // Diagonal problem: gravity_ii = ω_l²·m_ii bitwise at line 40, coefficients all zero.
  PackedProblem diag = RandomProblem(rng, 3, 2, 150, 1, 0);
  for (PackedPosture& p : diag.postures) {
    const double w = p.omega_rad_s[40];
    std::fill(p.mass.begin(), p.mass.end(), 0.0);
    std::fill(p.gravity.begin(), p.gravity.end(), 0.0);
    for (int r = 0; r < 3; ++r) {
      p.mass[r * 3 + r] = 1.0 + r;
      p.gravity[r * 3 + r] = (w * w) * p.mass[r * 3 + r];
    }
  }
  b.problems.push_back(diag);
  b.individuals.push_back(2);
  for (int i = 0; i < 2; ++i)
    for (int q = 0; q < 2; ++q) {
      for (int j = 0; j < 10; ++j) b.coefficients.push_back(0.0);  // 3n + 1 = 10 zeros
    }
  // A NaN target makes every individual of the problem non-finite.
  PackedProblem nan_target = RandomProblem(rng, 3, 1, 150, 0, 0);
  nan_target.postures[0].weight[9 * 10 + 4] = 50.0;
  nan_target.postures[0].target[18 * 10 + 8] = std::numeric_limits<double>::quiet_NaN();
  b.problems.push_back(nan_target);
  b.individuals.push_back(2);
  for (int i = 0; i < 2; ++i) AppendCoefficients(rng, 3, &b.coefficients);

  auto cpu = CreateCpuEvaluator(1);
  const Result want = RunBatch(*cpu, b);
  ASSERT_EQ(want.status[0], EvalStatus::kSingular);
  ASSERT_EQ(want.status[1], EvalStatus::kSingular);
  ASSERT_EQ(want.status[2], EvalStatus::kOk);
  ASSERT_EQ(want.status[4], EvalStatus::kSingular);
  ASSERT_EQ(want.status[6], EvalStatus::kNonFinite);
  const std::vector<std::function<std::unique_ptr<Evaluator>()>> makers = {
      [] { return CreateCudaEvaluator(1); }, [] { return CreateCudaEvaluator(8); },
      [] { return CreateCudaEvaluator(32); }, [] { return CreateCudaBatchedEvaluator(); }};
  for (const auto& make : makers) {
    auto gpu = make();
    const Result got = RunBatch(*gpu, b);
    for (size_t i = 0; i < want.costs.size(); ++i) {
      EXPECT_EQ(got.status[i], want.status[i]) << gpu->description() << " individual " << i;
      if (want.status[i] != EvalStatus::kOk) EXPECT_EQ(got.costs[i], want.costs[i]);  // +inf
    }
  }
}

#endif  // FRFIT_HAVE_CUDA

#if defined(FRFIT_HAVE_CUDA)
// Holds (nearly) all of the current device's free memory until destroyed: cudaMalloc in steps of
// 256 MB, then 1 MB, until it fails.
class DeviceMemoryHog {
 public:
  DeviceMemoryHog() {
    for (size_t step : {size_t{256} << 20, size_t{1} << 20}) {
      void* p = nullptr;
      while (cudaMalloc(&p, step) == cudaSuccess) blocks_.push_back(p);
      cudaGetLastError();  // the failed allocation's error is not sticky; clear it
    }
  }
  ~DeviceMemoryHog() {
    for (void* p : blocks_) cudaFree(p);
  }
  size_t blocks() const { return blocks_.size(); }

 private:
  std::vector<void*> blocks_;
};
#endif

// With the device's memory taken, a call must throw frfit::Error naming the CUDA error — not
// crash, hang or return numbers — and the same evaluator must work once memory is free again.
TEST(CudaEvaluator, OutOfDeviceMemoryThrowsAndTheEvaluatorRecovers) {
  FRFIT_REQUIRE_GPU();
#if defined(FRFIT_HAVE_CUDA)
  const Batch batch = RandomBatch(13);
  auto cpu = CreateCpuEvaluator(1);
  const Result want = RunBatch(*cpu, batch);
  auto gpu = CreateCudaEvaluator();
  {
    const DeviceMemoryHog hog;
    ASSERT_GT(hog.blocks(), 0u);
    try {
      RunBatch(*gpu, batch);
      ADD_FAILURE() << "no error with the device's memory taken";
    } catch (const Error& e) {
      const std::string text = e.what();
      std::printf("[ out of memory ] %s\n", text.c_str());
      EXPECT_NE(text.find("cuda"), std::string::npos) << text;
      EXPECT_NE(text.find("cudaErrorMemoryAllocation"), std::string::npos) << text;
    }
  }
  const Result got = RunBatch(*gpu, batch);
  EXPECT_EQ(got.costs, want.costs);
  EXPECT_EQ(got.status, want.status);
#endif
}

}  // namespace
}  // namespace frfit
