// The cuda launches emulated on the host (launch_emulation.h) against the cpu backend on the
// packed problems a fit builds for real beam models, not random ones: each dataset's problem is
// loaded, reduced and packed as Fit does (LoadProblem or ProblemFromSets, ReduceProblem,
// PackForPass for the search), and its coefficients and sensitivities come from the fit's own
// ParameterMap in the reduced layout: datasets/flexible_arm (121 coordinates reduced to 19), the
// KUKA with beam links at three postures (255 → 27), datasets/free_free_beam as shipped (30
// coordinates, packed in full) and refined to 20 elements (126, reduced around its free base's
// six kept coordinates), each with its affine parts. The four problems go into one call, as a
// fleet round would pack them (buckets 24, 32 — shared by two n — and 48); the cost launch at
// every lane choice, and the normal-equation launch, must give the cpu's costs, terms and
// statuses bit for bit (memcmp). One ulp more on one coefficient of the emulated call alone — the
// KUKA's first joint stiffness or its arm's E at its first individual and posture — fails both
// tests. The GPU run of the same is owed (benchmarks/RESULTS.md, "Owed on a GPU").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "beam/free_bar.h"
#include "cuda/feature_batch.h"
#include "cuda/launch_emulation.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

using feature_batch::Batch;
using namespace launch_emulation;

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

// One dataset's fit problem as Fit holds it after reducing: the map in the reduced layout.
struct BeamFit {
  std::string name;
  std::shared_ptr<const Model> model;
  FitOptions options;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  bool reduced = false;
  PackedProblem packed;
};

// Fit's path (fit/fit.cc): reduce where WillReduce says so, then pack the search's problem.
std::unique_ptr<BeamFit> Prepare(std::string name, std::shared_ptr<const Model> model,
                                 FitOptions options, Problem problem, const std::string& config) {
  auto s = std::make_unique<BeamFit>();
  s->name = std::move(name);
  s->model = std::move(model);
  s->options = std::move(options);
  s->map = std::make_unique<ParameterMap>(*s->model, s->options.parameters, config);
  s->problem = std::move(problem);
  if (WillReduce(s->options.reduction, config, s->problem))
    s->reduced = ReduceProblem(s->options.reduction, config, s->map.get(), &s->problem);
  s->packed = PackForPass(s->problem, *s->map, 0, {});
  return s;
}

// A dataset whose FRF files are on disk, as `frfit fit` loads it.
std::unique_ptr<BeamFit> FromFiles(const std::string& dataset, const std::string& model_file,
                                   const std::string& frf_file) {
  const std::string dir = kData + dataset + "/";
  auto model = std::make_shared<const Model>(LoadModel(dir + model_file));
  FitOptions options = LoadFitOptions(dir + "fit.yaml");
  Problem problem = LoadProblem(model, {dir + frf_file}, options, dir + "fit.yaml");
  return Prepare(dataset, model, options, std::move(problem), dir + "fit.yaml");
}

// The free-free bar refined to 20 elements (6 + 120 = 126 coordinates): past kReducePast, so Fit
// reduces it, keeping the free base's six coordinates (no springs: zeros in the reduced layout's
// stiffness) beside the beam's basis.
std::unique_ptr<BeamFit> RefinedFreeBar() {
  const std::string dir = test::kFreeBarDir;
  auto model = std::make_shared<const Model>(
      ParseModelText(test::RefinedFreeBarYaml(20), dir + "model.yaml (20 elements)"));
  FitOptions options = LoadFitOptions(dir + "fit.yaml");
  Problem problem = LoadProblem(model, {dir + "frf_hung_inertance.h5"}, options, dir + "fit.yaml");
  return Prepare("free_free_beam, 20 elements", model, options, std::move(problem),
                 dir + "fit.yaml");
}

// The KUKA with beam links at its three postures, on FRFs of its own made in memory as
// `frfit simulate --params params_from34.yaml --format inertance` makes them (the full 255
// coordinates), on 2 Hz lines over fit_flexible.yaml's band: fewer lines than the benchmark's
// 150 keep the full model's synthesis and the reduction's error check to a second.
std::unique_ptr<BeamFit> KukaFlexible() {
  const std::string dir = kData + "kuka_kr90/";
  auto model = std::make_shared<const Model>(LoadModel(dir + "model_flexible.yaml"));
  const std::vector<double> params = LoadParameters(dir + "params_from34.yaml", *model);
  FitOptions options = LoadFitOptions(dir + "fit_flexible.yaml");
  std::vector<FrfSet> sets;
  std::vector<std::string> sources;
  for (const char* posture : {"milling", "reach", "folded"}) {
    const Posture full = Linearize(*model, posture);
    sets.push_back(Synthesize(full, Coefficients(*model, params, full.q),
                              MakeBand(0.2, 30.0, 2.0, "band"), FrfFormat::kInertance));
    sets.back().posture = posture;
    sources.push_back(std::string("simulated ") + posture);
  }
  Problem problem = ProblemFromSets(model, sets, sources, options, dir + "fit_flexible.yaml");
  return Prepare("kuka_kr90 flexible", model, options, std::move(problem),
                 dir + "fit_flexible.yaml");
}

// The fit's individuals, in u: the initial point, two points inside the bounds, and the initial
// point again whose first coefficient at its first posture is made NaN after mapping (the
// non-finite status path, as the random batches have it).
constexpr int kIndividuals = 4;
std::vector<double> Points(const ParameterMap& map) {
  std::vector<double> u = map.InitialU();
  for (int j = 0; j < map.dim(); ++j) u.push_back(j % 2 == 0 ? 0.25 : 0.7);
  for (int j = 0; j < map.dim(); ++j) u.push_back(j % 2 == 0 ? 0.8 : 0.15);
  const std::vector<double> initial = map.InitialU();
  u.insert(u.end(), initial.begin(), initial.end());
  return u;
}

// The call: every problem's individuals, their coefficients and sensitivities as the fit driver
// appends them (fit/fit_driver.cc).
Batch MakeCall(const std::vector<const BeamFit*>& fits) {
  Batch b;
  for (const BeamFit* s : fits) {
    const std::vector<std::vector<double>> q = PostureCoordinates(s->problem);
    const std::vector<double> u = Points(*s->map);
    const size_t first = b.coefficients.size();
    s->map->AppendCoefficients(u, q, &b.coefficients);
    s->map->AppendSensitivities(u, q, &b.sensitivities);
    const size_t per_individual = (b.coefficients.size() - first) / kIndividuals;
    b.coefficients[first + (kIndividuals - 1) * per_individual] =
        std::numeric_limits<double>::quiet_NaN();
    b.problems.push_back(s->packed);
    b.individuals.push_back(kIndividuals);
    b.dims.push_back(s->map->dim());
  }
  return b;
}

// The four problems, built once for the file's tests (about two seconds: the KUKA's synthesis
// and the reductions), in the order of the call.
struct BeamFits {
  std::unique_ptr<BeamFit> arm =
      FromFiles("flexible_arm", "model.yaml", "frf_straight_inertance.h5");
  std::unique_ptr<BeamFit> kuka = KukaFlexible();
  std::unique_ptr<BeamFit> bar = FromFiles("free_free_beam", "model.yaml", "frf_hung_inertance.h5");
  std::unique_ptr<BeamFit> fine_bar = RefinedFreeBar();
  std::vector<const BeamFit*> all() const {
    return {arm.get(), kuka.get(), bar.get(), fine_bar.get()};
  }
};
const BeamFits& Fits() {
  static const BeamFits fits;
  return fits;
}

// The problems are the fit's: reduced as the datasets' docs say, with their affine parts, their
// coefficients in the reduced layout (the packing order the emulation enumerates checks it).
TEST(BeamModelEmulation, ProblemsAreTheFitsReducedBeamProblems) {
  const BeamFits& fits = Fits();
  const BeamFit &arm = *fits.arm, &kuka = *fits.kuka, &bar = *fits.bar, &fine_bar = *fits.fine_bar;
  EXPECT_TRUE(arm.reduced);
  EXPECT_EQ(arm.problem.postures[0].posture.n, 121);
  EXPECT_EQ(arm.packed.n, 19);
  EXPECT_TRUE(kuka.reduced);
  ASSERT_EQ(kuka.packed.num_postures(), 3);
  EXPECT_EQ(kuka.problem.postures[0].posture.n, 255);
  EXPECT_EQ(kuka.packed.n, 27);
  // The free-free bar's 4 elements (30 coordinates) are below kReducePast: Fit packs it in full.
  EXPECT_FALSE(bar.reduced);
  EXPECT_EQ(bar.packed.n, 30);
  EXPECT_TRUE(fine_bar.reduced);
  EXPECT_EQ(fine_bar.problem.postures[0].posture.n, 126);
  EXPECT_EQ(fine_bar.map->reduced_joints(), 6);
  EXPECT_LE(fine_bar.packed.n, kernels::kMaxDofs);
  for (const BeamFit* s : fits.all()) {
    std::printf("[ %s ] %d -> %d coordinates, %d parts, %d postures of %d lines, %d parameters\n",
                s->name.c_str(), s->problem.postures[0].posture.n, s->packed.n, s->packed.parts,
                s->packed.num_postures(), s->packed.postures[0].num_lines(), s->map->dim());
    EXPECT_GT(s->packed.parts, 0) << s->name;
    for (const PackedPosture& q : s->packed.postures) {
      EXPECT_GT(q.num_parts(), 0) << s->name;
      EXPECT_GT(q.num_lines(), 10) << s->name;
    }
    if (s->reduced) EXPECT_EQ(s->map->reduced_size(), s->packed.n) << s->name;
  }
}

// Costs are finite, non-zero and differ between individuals where they are ok, so that memcmp
// compares real numbers; the NaN individual is non-finite.
void ExpectMeaningfulCosts(const Batch& b, const CostRun& cpu) {
  size_t i = 0;
  for (size_t p = 0; p < b.problems.size(); ++p) {
    for (int k = 0; k < b.individuals[p]; ++k, ++i) {
      if (k == kIndividuals - 1) {
        EXPECT_NE(cpu.status[i], EvalStatus::kOk) << "problem " << p << ": the NaN individual";
        continue;
      }
      EXPECT_EQ(cpu.status[i], EvalStatus::kOk) << "problem " << p << ", individual " << k;
      EXPECT_TRUE(std::isfinite(cpu.costs[i]) && cpu.costs[i] > 0.0)
          << "problem " << p << ", individual " << k << ": " << cpu.costs[i];
    }
    EXPECT_NE(cpu.costs[i - kIndividuals], cpu.costs[i - kIndividuals + 1]) << "problem " << p;
  }
}

TEST(BeamModelEmulation, EmulatedEvaluateEqualsCpuBitForBit) {
  const Batch b = MakeCall(Fits().all());
  const CostRun cpu = CpuEvaluate(b);
  ASSERT_EQ(cpu.costs.size(), Fits().all().size() * kIndividuals);
  ExpectMeaningfulCosts(b, cpu);
  for (int lanes : kLaneChoices) {
    Findings f;
    const CostRun gpu = EmulateEvaluate(b, lanes, /*compute=*/true, f);
    EXPECT_EQ(f.count(), 0) << lanes << " lanes:\n" << f.text();
    ASSERT_EQ(gpu.costs.size(), cpu.costs.size());
    EXPECT_EQ(CostMismatches(cpu, gpu), 0)
        << lanes << " lanes, of " << cpu.costs.size() << " costs";
  }
}

TEST(BeamModelEmulation, EmulatedNormalEquationsEqualCpuBitForBit) {
  const Batch b = MakeCall(Fits().all());
  const NormalRun cpu = CpuNormalEquations(b);
  Findings f;
  const NormalRun gpu = EmulateNormalEquations(b, /*compute=*/true, f);
  EXPECT_EQ(f.count(), 0) << f.text();
  ASSERT_EQ(gpu.normal.size(), cpu.normal.size());
  // Every ok individual's terms are finite and its gradient is not zero.
  size_t out = 0, individual = 0;
  int finite_nonzero = 0;
  for (size_t p = 0; p < b.problems.size(); ++p) {
    const int terms = kernels::NormalTermCount(b.dims[p]);
    for (int k = 0; k < b.individuals[p]; ++k, ++individual, out += terms) {
      if (k == kIndividuals - 1) {
        EXPECT_NE(cpu.status[individual], EvalStatus::kOk) << "problem " << p;
        continue;
      }
      EXPECT_EQ(cpu.status[individual], EvalStatus::kOk) << "problem " << p << ", " << k;
      bool all_finite = true, gradient = false;
      for (int t = 0; t < terms; ++t) all_finite = all_finite && std::isfinite(cpu.normal[out + t]);
      for (int j = 1; j <= b.dims[p]; ++j) gradient = gradient || cpu.normal[out + j] != 0.0;
      finite_nonzero += all_finite && gradient && cpu.normal[out] > 0.0;
    }
  }
  EXPECT_EQ(finite_nonzero, static_cast<int>(Fits().all().size()) * (kIndividuals - 1));
  EXPECT_EQ(TermMismatches(cpu, gpu), 0) << "of " << cpu.normal.size() << " terms";
  EXPECT_EQ(cpu.status, gpu.status);
}

// The same call through the cuda backend `frfit fit --backend cuda` gets (its deterministic
// tier, which picks its own lanes): the cpu's costs, terms and statuses bit for bit. Needs a GPU;
// skips, saying why, without one.
TEST(BeamModelCuda, CostsAndNormalEquationsEqualCpuBitForBit) {
  std::string reason;
  if (!IsCudaUsable(&reason)) GTEST_SKIP() << reason;
  const Batch b = MakeCall(Fits().all());
  EvaluatorOptions options;
  options.backend = BackendType::kCuda;
  const std::unique_ptr<Evaluator> gpu = CreateEvaluator(options);
  ASSERT_EQ(gpu->backend(), BackendType::kCuda);
  gpu->SetProblems(b.problems);
  const CostRun want = CpuEvaluate(b);
  CostRun got{std::vector<double>(want.costs.size(), -12345.0),
              std::vector<EvalStatus>(want.status.size(), static_cast<EvalStatus>(77))};
  gpu->Evaluate(b.individuals, b.coefficients, got.costs, got.status);
  EXPECT_EQ(CostMismatches(want, got), 0) << "of " << want.costs.size() << " costs";
  const NormalRun want_normal = CpuNormalEquations(b);
  NormalRun got_normal{
      std::vector<double>(want_normal.normal.size(), -12345.0),
      std::vector<EvalStatus>(want_normal.status.size(), static_cast<EvalStatus>(77))};
  gpu->EvaluateNormalEquations({b.individuals, b.dims, b.coefficients, b.sensitivities},
                               got_normal.normal, got_normal.status);
  EXPECT_EQ(TermMismatches(want_normal, got_normal), 0) << "of " << want_normal.normal.size() << " terms";
  EXPECT_EQ(got_normal.status, want_normal.status);
}

}  // namespace
}  // namespace frfit
