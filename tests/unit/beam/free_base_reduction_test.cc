// Reduction of a beam model on a free base (fit/reduce_problem.h): the free-free bar of
// datasets/free_free_beam refined to 20 elements (6 + 120 = 126 coordinates, past the kernels'
// 32), its lines cut to 10–400 Hz. The base's six free coordinates are kept beside the beams' interior basis, so the
// reduced posture carries the six rigid-body motions exactly and its inertance keeps the bar's
// mass lines; its FRFs are compared with the full model's dense solve of all 126 coordinates at
// a parameter point that is none of the reduction's samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "beam/free_bar.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kBar = test::kFreeBarDir;

class FreeBaseReduction : public test::TempDirTest {
 protected:
  // The dataset's bar with `elements` elements, written beside the test.
  std::string RefinedModel(int elements) {
    std::ofstream(Path("model.yaml")) << test::RefinedFreeBarYaml(elements);
    return Path("model.yaml");
  }
};

// ‖H_a − H_b‖_F / ‖H_a‖_F per line, the largest.
double WorstRelative(const FrfSet& a, const FrfSet& b) {
  double worst = 0.0;
  for (int k = 0; k < a.num_lines(); ++k) {
    double difference = 0.0, norm = 0.0;
    for (int e = 0; e < 9; ++e) {
      difference += std::norm(a.H[k * 9 + e] - b.H[k * 9 + e]);
      norm += std::norm(a.H[k * 9 + e]);
    }
    worst = std::max(worst, std::sqrt(difference / norm));
  }
  return worst;
}

TEST_F(FreeBaseReduction, KeepsTheRigidBodyModesAndTheBand) {
  const auto model = std::make_shared<const Model>(LoadModel(RefinedModel(20)));
  ASSERT_EQ(model->num_dofs(), 126);
  EXPECT_EQ(KeptCoordinates(*model), 6);
  FitOptions options = LoadFitOptions(kBar + "fit.yaml");
  // The lines to 400 Hz (the first bending mode in each plane), the fixed-interface modes to
  // 3 kHz and one order of static corrections: 31 coordinates.
  options.cost.band_max_hz = 400.0;
  options.reduction.modes_up_to_hz = 3000.0;
  options.reduction.krylov_orders = 1;
  ParameterMap map(*model, options.parameters, "test");
  Problem problem = LoadProblem(model, {kBar + "frf_hung_inertance.h5"}, options, "test");
  ASSERT_TRUE(ReduceProblem(options.reduction, "test", &map, &problem));
  const ProblemPosture& pp = problem.postures.front();
  const Reduction& reduction = *pp.reduction;
  EXPECT_EQ(reduction.joints, 6);
  EXPECT_LE(reduction.posture.n, 32);
  EXPECT_LE(pp.reduction_error, 1e-6);
  EXPECT_GT(pp.reduction_error, 0.0);

  // Inside the bounds, none of the samples (the initial point and each bound).
  std::vector<double> p = model->InitialParameters();
  p[model->FindParameter("E_bar")] = 2.63e11;
  p[model->FindParameter("eta_bar")] = 0.0071;
  const JointCoefficients c = Coefficients(*model, p, pp.posture.q);
  const JointCoefficients rc = ReducedCoefficients(c, reduction.joints, reduction.posture.n);
  // The set's lines (10–400 Hz: bending modes and the xx mass line) and, below the first bending
  // mode, lines where the inertance is the mass lines alone.
  std::vector<double> lines = pp.measured.frequency_hz;
  for (double f : {0.5, 2.0, 5.0}) lines.push_back(f);
  const FrfSet full = Synthesize(pp.posture, c, lines, FrfFormat::kInertance);
  const FrfSet reduced = Synthesize(reduction.posture, rc, lines, FrfFormat::kInertance);
  const double worst = WorstRelative(full, reduced);
  std::printf("free base: %d -> %d coordinates, reported error %.2e, at a new point %.2e\n",
              pp.posture.n, reduction.posture.n, pp.reduction_error, worst);
  EXPECT_LE(worst, 1e-6);
  // The mass line: along the bar's axis, far below its first axial mode (3.2 kHz), the
  // inertance at the end is 1/m, m the bar's mass ρ·A·L — a closed form outside frfit.
  const double mass = 7850.0 * 0.040 * 0.020 * 0.8;
  for (int k = reduced.num_lines() - 3; k < reduced.num_lines(); ++k)
    EXPECT_NEAR(std::abs(reduced.at(k, 0, 0)) * mass, 1.0, 1e-4) << lines[k] << " Hz";
}

}  // namespace
}  // namespace frfit
