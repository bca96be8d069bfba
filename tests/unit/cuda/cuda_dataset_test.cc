// Issue #4: the cuda deterministic tier against the cpu backend on the bundled datasets rather than
// on synthetic PackedProblems. For paper_3dof (n = 3), kuka_kr90 (n = 9, three postures) and
// six_axis_18dof (n = 18, two postures), each problem is loaded as `frfit fit` loads it (model,
// FRF files, fit.yaml cost settings through LoadProblem) and a seeded population drawn in
// u ∈ [0,1]^dim is mapped to joint coefficients through the fit's own ParameterMap. Every cost
// must be == on both backends (the mismatch count is reported), and whole fits with one seed must
// give the same parameters, cost and history on `cpu` and `cuda` (DESIGN.md §3).
// Every test that needs a device skips, saying why, when no usable GPU is present.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/model_yaml.h"
#include "frfit/common/rng.h"

namespace frfit {
namespace {

const std::string kRoot = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

struct DatasetSpec {
  const char* name;
  std::vector<const char*> postures;  // frf_<posture>_inertance.h5 of the dataset, in this order
};

const DatasetSpec kDatasets[] = {
    {"paper_3dof", {"milling"}},
    {"kuka_kr90", {"milling", "reach", "folded"}},
    {"six_axis_18dof", {"milling", "reach"}},
};

// A dataset's fit problem, built by the library calls `frfit fit` makes (src/cli/cmd_fit.cc).
struct Loaded {
  std::string name;
  std::shared_ptr<const Model> model;
  FitOptions options;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  PackedProblem packed;
  std::vector<std::vector<double>> posture_q;
};

std::unique_ptr<Loaded> Load(const DatasetSpec& spec) {
  const std::string dir = kRoot + spec.name + "/";
  auto s = std::make_unique<Loaded>();
  s->name = spec.name;
  s->options = LoadFitOptions(dir + "fit.yaml");
  s->model = std::make_shared<const Model>(LoadModel(dir + "model.yaml"));
  s->map = std::make_unique<ParameterMap>(*s->model, s->options.parameters, dir + "fit.yaml");
  std::vector<std::string> frf;
  for (const char* posture : spec.postures) frf.push_back(dir + "frf_" + posture + "_inertance.h5");
  s->problem = LoadProblem(s->model, frf, s->options, dir + "fit.yaml");
  s->packed = PackForPass(s->problem, *s->map, 0, {});
  s->posture_q = PostureCoordinates(s->problem);
  return s;
}

// `count` points in u, packed [point][dim]: the lower corner, the upper corner, the fit's initial
// values, then uniform draws from frfit's own Rng (the same on every standard library).
std::vector<double> RandomPopulation(const ParameterMap& map, int count, std::uint64_t seed) {
  const int dim = map.dim();
  std::vector<double> u;
  u.reserve(static_cast<size_t>(count) * dim);
  u.insert(u.end(), dim, 0.0);
  u.insert(u.end(), dim, 1.0);
  const std::vector<double> initial = map.InitialU();
  u.insert(u.end(), initial.begin(), initial.end());
  Rng rng(seed);
  while (u.size() < static_cast<size_t>(count) * dim) u.push_back(rng.Uniform());
  return u;
}

struct Costs {
  std::vector<double> costs;
  std::vector<EvalStatus> status;
};

// Evaluates every problem's population in one call; costs start poisoned so every one must be written.
Costs Evaluate(Evaluator& evaluator, const std::vector<int>& individuals, const std::vector<double>& coefficients) {
  size_t total = 0;
  for (int i : individuals) total += i;
  Costs r;
  r.costs.assign(total, -12345.0);
  r.status.assign(total, static_cast<EvalStatus>(77));
  evaluator.Evaluate(individuals, coefficients, r.costs, r.status);
  return r;
}

bool SkipWithoutGpu(std::string* reason) { return !IsCudaUsable(reason); }

#define FRFIT_REQUIRE_GPU()                              \
  do {                                                   \
    std::string reason;                                  \
    if (SkipWithoutGpu(&reason)) GTEST_SKIP() << reason; \
  } while (0)

// Compares cuda against cpu cost by cost; prints and returns the mismatch count.
int CountMismatches(const Costs& want, const Costs& got, const std::string& what, int* status_mismatches) {
  EXPECT_EQ(got.costs.size(), want.costs.size()) << what;
  int mismatches = 0;
  *status_mismatches = 0;
  for (size_t i = 0; i < want.costs.size() && i < got.costs.size(); ++i) {
    if (!(got.costs[i] == want.costs[i])) {
      if (mismatches < 5)
        ADD_FAILURE() << what << " individual " << i << ": cuda " << got.costs[i] << " cpu " << want.costs[i];
      ++mismatches;
    }
    if (got.status[i] != want.status[i]) {
      if (*status_mismatches < 5)
        ADD_FAILURE() << what << " individual " << i << ": cuda status " << static_cast<int>(got.status[i])
                      << " cpu status " << static_cast<int>(want.status[i]);
      ++*status_mismatches;
    }
  }
  std::printf("[ %s ] %d of %zu costs differ between cuda and cpu, %d statuses differ\n", what.c_str(),
              mismatches, want.costs.size(), *status_mismatches);
  return mismatches;
}

constexpr int kPopulation = 128;

class CudaDataset : public ::testing::TestWithParam<int> {};

TEST_P(CudaDataset, RandomPopulationCostsEqualCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  const auto s = Load(kDatasets[GetParam()]);
  ASSERT_EQ(s->packed.n, s->model->num_dofs());
  std::vector<double> coefficients;
  s->map->AppendCoefficients(RandomPopulation(*s->map, kPopulation, 20240 + GetParam()), s->posture_q,
                             &coefficients);
  auto cpu = CreateCpuEvaluator(0);
  EvaluatorOptions options;
  options.backend = BackendType::kCuda;
  auto gpu = CreateEvaluator(options);  // what `frfit fit --backend cuda` gets: the deterministic tier
  ASSERT_EQ(gpu->backend(), BackendType::kCuda);
  cpu->SetProblems({s->packed});
  gpu->SetProblems({s->packed});
  const Costs want = Evaluate(*cpu, {kPopulation}, coefficients);
  const Costs got = Evaluate(*gpu, {kPopulation}, coefficients);
  // Within the bounds every Z(ω) is damped, hence regular: the comparison is over real costs.
  int not_ok = 0;
  for (EvalStatus st : want.status) not_ok += st != EvalStatus::kOk;
  EXPECT_EQ(not_ok, 0) << s->name << ": cpu statuses other than ok";
  int status_mismatches = 0;
  const int mismatches = CountMismatches(want, got, s->name, &status_mismatches);
  EXPECT_EQ(mismatches, 0) << s->name << ": " << mismatches << " of " << want.costs.size()
                           << " costs differ between cuda (" << gpu->description() << ") and cpu";
  EXPECT_EQ(status_mismatches, 0) << s->name;
  EXPECT_EQ(gpu->line_solves(), cpu->line_solves()) << s->name;
  // The population spans the cost's range (not one value repeated), so == is a real test.
  EXPECT_NE(want.costs[0], want.costs[1]);
  EXPECT_NE(want.costs[3], want.costs[4]);
}

// The least-squares path: cost, JᵀWr and JᵀWJ of every point, every term ==.
TEST_P(CudaDataset, RandomPopulationNormalEquationsEqualCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  const auto s = Load(kDatasets[GetParam()]);
  const int points = 16, dim = s->map->dim();
  const std::vector<double> u = RandomPopulation(*s->map, points, 4040 + GetParam());
  std::vector<double> coefficients, sensitivities;
  s->map->AppendCoefficients(u, s->posture_q, &coefficients);
  s->map->AppendSensitivities(u, s->posture_q, &sensitivities);
  auto cpu = CreateCpuEvaluator(0);
  EvaluatorOptions options;
  options.backend = BackendType::kCuda;
  auto gpu = CreateEvaluator(options);
  cpu->SetProblems({s->packed});
  gpu->SetProblems({s->packed});
  const size_t terms = static_cast<size_t>(points) * NormalTermCount(dim);
  std::vector<double> want(terms), got(terms, -12345.0);
  std::vector<EvalStatus> want_status(points), got_status(points, static_cast<EvalStatus>(77));
  // The batch holds spans: the vectors they view must outlive it.
  const std::vector<int> individuals{points}, dims{dim};
  const NormalEquationsBatch batch{individuals, dims, coefficients, sensitivities};
  cpu->EvaluateNormalEquations(batch, want, want_status);
  gpu->EvaluateNormalEquations(batch, got, got_status);
  int mismatches = 0;
  for (size_t t = 0; t < terms; ++t)
    if (!(got[t] == want[t])) {
      if (mismatches < 5) ADD_FAILURE() << s->name << " term " << t << ": cuda " << got[t] << " cpu " << want[t];
      ++mismatches;
    }
  std::printf("[ %s ] %d of %zu normal-equation terms differ between cuda and cpu\n", s->name.c_str(), mismatches,
              terms);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(got_status, want_status);
}

INSTANTIATE_TEST_SUITE_P(Datasets, CudaDataset, ::testing::Range(0, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(kDatasets[info.param].name);
                         });

// The three problems in one call, as a fleet round packs them (one launch, sizes 3, 9 and 18
// side by side), against each problem evaluated alone on the cpu.
TEST(CudaDatasetBatch, ThreeDatasetsInOneCallEqualCpuBitForBit) {
  FRFIT_REQUIRE_GPU();
  std::vector<std::unique_ptr<Loaded>> all;
  std::vector<PackedProblem> packed;
  std::vector<int> individuals;
  std::vector<double> coefficients;
  Costs want;
  for (int d = 0; d < 3; ++d) {
    all.push_back(Load(kDatasets[d]));
    const Loaded& s = *all.back();
    const int count = kPopulation - 17 * d;  // unequal counts per problem
    std::vector<double> mine;
    s.map->AppendCoefficients(RandomPopulation(*s.map, count, 777 + d), s.posture_q, &mine);
    auto cpu = CreateCpuEvaluator(0);
    cpu->SetProblems({s.packed});
    const Costs alone = Evaluate(*cpu, {count}, mine);
    want.costs.insert(want.costs.end(), alone.costs.begin(), alone.costs.end());
    want.status.insert(want.status.end(), alone.status.begin(), alone.status.end());
    packed.push_back(s.packed);
    individuals.push_back(count);
    coefficients.insert(coefficients.end(), mine.begin(), mine.end());
  }
  EvaluatorOptions options;
  options.backend = BackendType::kCuda;
  auto gpu = CreateEvaluator(options);
  gpu->SetProblems(packed);
  const Costs got = Evaluate(*gpu, individuals, coefficients);
  int status_mismatches = 0;
  const int mismatches = CountMismatches(want, got, "three datasets in one call", &status_mismatches);
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << want.costs.size() << " costs differ";
  EXPECT_EQ(status_mismatches, 0);
}

// ---- whole fits ---------------------------------------------------------------------------------

std::unique_ptr<FitRun> RunFit(const Loaded& s, const FitOptions& options, BackendType backend,
                               std::uint64_t seed, double* seconds) {
  EvaluatorOptions evaluator_options;
  evaluator_options.backend = backend;
  auto evaluator = CreateEvaluator(evaluator_options);
  EXPECT_EQ(evaluator->backend(), backend);
  evaluator->SetProblems({s.packed});
  auto run = std::make_unique<FitRun>(*s.map, options, seed);
  const auto t0 = std::chrono::steady_clock::now();
  const FitJob job = MakeFitJob(run.get(), *s.map, s.problem);
  DriveFits({job}, evaluator.get(), DriveOptions{});
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

void ExpectSameFit(const Loaded& s, const FitOptions& options, std::uint64_t seed) {
  double cpu_s = 0.0, gpu_s = 0.0;
  const auto cpu = RunFit(s, options, BackendType::kCpu, seed, &cpu_s);
  const auto gpu = RunFit(s, options, BackendType::kCuda, seed, &gpu_s);
  std::printf("[ %s seed %llu ] cpu %.2f s, cuda %.2f s, %lld evaluations, cost %.6e (cpu) %.6e (cuda)\n",
              s.name.c_str(), static_cast<unsigned long long>(seed), cpu_s, gpu_s,
              static_cast<long long>(cpu->evaluations()), cpu->best_cost(), gpu->best_cost());
  ASSERT_TRUE(cpu->Done());
  ASSERT_TRUE(gpu->Done());
  // The parameters `frfit fit` reports (FitResult::parameters = ParameterMap::Physical(best_u)).
  const std::vector<double> p_cpu = s.map->Physical(cpu->best_u());
  const std::vector<double> p_gpu = s.map->Physical(gpu->best_u());
  ASSERT_EQ(p_gpu.size(), p_cpu.size());
  int differing = 0;
  for (size_t i = 0; i < p_cpu.size(); ++i)
    if (!(p_gpu[i] == p_cpu[i])) {
      ++differing;
      ADD_FAILURE() << s.name << " " << s.model->parameters[i].name << ": cuda " << p_gpu[i] << " cpu " << p_cpu[i];
    }
  EXPECT_EQ(differing, 0) << s.name << ": parameters that differ between cuda and cpu";
  EXPECT_EQ(gpu->best_cost(), cpu->best_cost()) << s.name;
  EXPECT_EQ(gpu->evaluations(), cpu->evaluations()) << s.name;
  EXPECT_EQ(gpu->ga_evaluations(), cpu->ga_evaluations()) << s.name;
  EXPECT_EQ(gpu->cycle(), cpu->cycle()) << s.name;
  EXPECT_EQ(gpu->termination(), cpu->termination()) << s.name;
  EXPECT_EQ(gpu->initial_population_best_cost(), cpu->initial_population_best_cost()) << s.name;
  ASSERT_EQ(gpu->history().size(), cpu->history().size()) << s.name;
  int rows = 0;
  for (size_t i = 0; i < cpu->history().size(); ++i)
    rows += !(gpu->history()[i].best_cost == cpu->history()[i].best_cost &&
              gpu->history()[i].evaluations == cpu->history()[i].evaluations);
  EXPECT_EQ(rows, 0) << s.name << ": history rows that differ, of " << cpu->history().size();
  // The fit did move (a fit that stops at once would compare equal trivially).
  EXPECT_LT(cpu->best_cost(), cpu->initial_population_best_cost()) << s.name;
}

// The dataset's fit.yaml as it is (least squares from 8 starts), and the paper's settings
// (fit_paper.yaml: random start, GA 15 x 80, NM ≤ 5000, 3 cycles).
TEST(CudaDatasetFit, Paper3DofSameSeedSameParametersOnCpuAndCuda) {
  FRFIT_REQUIRE_GPU();
  const auto s = Load(kDatasets[0]);
  ExpectSameFit(*s, s->options, 3);
  ExpectSameFit(*s, LoadFitOptions(kRoot + "paper_3dof/fit_paper.yaml"), 3);
}

// The dataset's fit.yaml (least squares), on the paper's posture only: one posture already runs
// the whole GA ⇄ refinement loop through both backends.
TEST(CudaDatasetFit, KukaKr90SameSeedSameParametersOnCpuAndCuda) {
  FRFIT_REQUIRE_GPU();
  const auto s = Load({"kuka_kr90", {"milling"}});
  ExpectSameFit(*s, s->options, 2);
}

// n = 18 with both postures, the dataset's fit.yaml cut to one cycle (bit-identity does not
// depend on how long the run goes).
TEST(CudaDatasetFit, SixAxis18DofSameSeedSameParametersOnCpuAndCuda) {
  FRFIT_REQUIRE_GPU();
  const auto s = Load(kDatasets[2]);
  FitOptions options = s->options;
  options.nelder_mead.max_iterations = 1500;
  options.fitter.max_cycles = 1;
  std::string error;
  ASSERT_TRUE(options.IsValid(&error)) << error;
  ExpectSameFit(*s, options, 5);
}

}  // namespace
}  // namespace frfit
