// Reduction of beam coordinates (posture/reduction.h) on benchmarks/beam_chain.h: the paper's
// 3-joint posture with a 40-node beam riding on its joints (a floating frame), the beam's
// stiffness per unit E, its loss per unit η·E and a tip mass as affine parts. The reduced model's
// FRFs are compared with a dense solve of the full model assembled here from the chain's
// physical definitions (M, K_j ⊕ E·K_unit, the tip mass's rank-one M), not from posture/.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "frfit/posture/reduction.h"
#include "benchmarks/beam_chain.h"
#include "test_support.h"

namespace frfit {
namespace {

constexpr int kJoints = 3, kNodes = 40, kN = kJoints + kNodes;

using Beam = bench::BeamChain;

Beam MakeBeam() { return bench::MakeBeamChain(kNodes); }

JointCoefficients At(const Beam& beam, double k_scale, double e_scale, double eta, double tip) {
  return bench::BeamChainAt(beam, k_scale, e_scale, eta, tip);
}

// The full model's receptance at ω from the definitions above, not from posture/.
Eigen::MatrixXcd FullReceptance(const Beam& beam, const JointCoefficients& c, double omega) {
  const Posture& p = beam.posture;
  using Cplx = std::complex<double>;
  const Eigen::MatrixXd m = p.mass + c.parts[2] * beam.tip.transpose() * beam.tip;
  Eigen::MatrixXcd z = (p.gravity_stiffness + c.parts[0] * beam.k_unit - omega * omega * m).cast<Cplx>();
  z += Cplx(0, c.parts[1]) * beam.k_unit.cast<Cplx>();
  for (int j = 0; j < kJoints; ++j) z(j, j) += Cplx(c.stiffness[j], omega * c.viscous[j]);
  const Eigen::MatrixXcd b = p.sensor_basis.cast<Cplx>();
  return b.transpose() * z.partialPivLu().solve(b);
}

std::vector<JointCoefficients> BoxSamples(const Beam& beam) {
  // Initial values, then the corners of the box k ×[0.5, 2], E ×[0.5, 2], η [1e-3, 0.05], tip [1, 4].
  return {At(beam, 1, 1, 0.01, 2), At(beam, 0.5, 0.5, 1e-3, 1), At(beam, 2, 2, 0.05, 4),
          At(beam, 0.5, 2, 0.05, 1), At(beam, 2, 0.5, 1e-3, 4)};
}

double WorstError(const Beam& beam, const Reduction& r, const std::vector<JointCoefficients>& points,
                  const std::vector<double>& band) {
  double worst = 0;
  for (const JointCoefficients& c : points) {
    const FrfSet reduced = Synthesize(r.posture, ReducedCoefficients(c, kJoints, r.posture.n), band,
                                      FrfFormat::kReceptance);
    for (size_t l = 0; l < band.size(); ++l) {
      const Eigen::MatrixXcd h = FullReceptance(beam, c, 2 * M_PI * band[l]);
      double difference = 0;
      for (int e = 0; e < 9; ++e) difference += std::norm(h(e / 3, e % 3) - reduced.H[l * 9 + e]);
      worst = std::max(worst, std::sqrt(difference) / h.norm());
    }
  }
  return worst;
}

TEST(Reduction, KeepsTheBandWithinOneMillionthAcrossTheBox) {
  const Beam beam = MakeBeam();
  const std::vector<double> band = MakeBand(0.5, 50.0, 0.5, "band");
  ReductionOptions options;
  options.modes_up_to_hz = 150.0;  // 3× the band's top
  const Reduction r = Reduce(beam.posture, kJoints, BoxSamples(beam), {}, options, "test");
  // Points inside the box, none of them a sample.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<JointCoefficients> inside;
  for (int i = 0; i < 4; ++i)
    inside.push_back(At(beam, std::pow(2.0, 2 * u(rng) - 1), std::pow(2.0, 2 * u(rng) - 1),
                        1e-3 * std::pow(50.0, u(rng)), 1 + 3 * u(rng)));
  const double error = WorstError(beam, r, inside, band);
  std::printf("reduction: n %d -> r %d (%d modes, %d corrections), worst FRF error %.2e\n", kN,
              r.posture.n, r.modes, r.corrections, error);
  EXPECT_LT(error, 1e-6);
  EXPECT_LE(r.posture.n, 20) << "the reduced size";
  // The joints are unit columns: their coefficients stay on their own diagonal cells.
  EXPECT_EQ(r.basis.topRows(kJoints), Eigen::MatrixXd::Identity(kJoints, r.posture.n));
  // The estimate the fit reports sees the same order of error at the samples.
  const double estimate = ReductionError(beam.posture, r, BoxSamples(beam), band);
  EXPECT_LT(estimate, 1e-6);
  EXPECT_GT(estimate, 0.0);
}

// ReductionError solves the full model by the joints' Schur complement on a beams' block factored
// once per line for the samples that share it (src/posture/reduction_error.cc). Samples that move
// only the joints' springs share it with the initial point. On a reduction without static
// corrections (an error near 1e-4, far above the full solve's rounding of about 1e-9) its number
// equals the error of the dense solve written above, sample by sample.
TEST(Reduction, ErrorEstimateEqualsTheDenseSolve) {
  const Beam beam = MakeBeam();
  const std::vector<double> band = MakeBand(0.5, 50.0, 0.5, "band");
  ReductionOptions options;
  options.modes_up_to_hz = 150.0;
  options.krylov_orders = 0;
  const Reduction r = Reduce(beam.posture, kJoints, BoxSamples(beam), {}, options, "test");
  std::vector<JointCoefficients> samples = BoxSamples(beam);
  samples.push_back(At(beam, 0.5, 1, 0.01, 2));  // the initial beams, softer and stiffer joints
  samples.push_back(At(beam, 2, 1, 0.01, 2));
  for (const JointCoefficients& c : samples) {
    const double schur = ReductionError(beam.posture, r, {c}, band);
    const double dense = WorstError(beam, r, {c}, band);
    EXPECT_GT(dense, 1e-6);
    EXPECT_NEAR(schur / dense, 1.0, 1e-3);
  }
  EXPECT_NEAR(ReductionError(beam.posture, r, samples, band) / WorstError(beam, r, samples, band),
              1.0, 1e-3);
}

TEST(Reduction, ModesAloneAreNotEnough) {
  // Without the static corrections the truncated modes' flexibility is missing: the error the
  // corrections remove is visible, so the test above measures something.
  const Beam beam = MakeBeam();
  const std::vector<double> band = MakeBand(0.5, 50.0, 0.5, "band");
  ReductionOptions options;
  options.modes_up_to_hz = 150.0;
  options.krylov_orders = 0;
  const Reduction r = Reduce(beam.posture, kJoints, BoxSamples(beam), {}, options, "test");
  EXPECT_GT(WorstError(beam, r, {At(beam, 1.3, 0.8, 0.02, 3)}, band), 1e-5);
}

TEST(Reduction, PadsToARequestedSizeWithFurtherModes) {
  const Beam beam = MakeBeam();
  ReductionOptions options;
  options.modes_up_to_hz = 150.0;
  const int found = Reduce(beam.posture, kJoints, BoxSamples(beam), {}, options, "t").posture.n;
  options.size = found + 3;
  EXPECT_EQ(Reduce(beam.posture, kJoints, BoxSamples(beam), {}, options, "t").posture.n, found + 3);
}

// ReductionError's default solves (the beams' block by an LU once per line — sparse in the full
// model, dense in the reduced posture — each sample's joints' Schur complement) against its dense
// LU of all coordinates per sample and line,
// on the KUKA with two 20-element beams (255 coordinates; the arm's beam carries the forearm's):
// line by line and sample by sample — samples that share the beams' block (springs and dampers
// moved) and lines where Z_bb is singular (an undamped fixed-interface beam mode, where the
// complement would cancel all its digits and the samples fall back to the dense LU). The
// reduction keeps no static corrections, so the error (1e-3 to 1e-1) stands far above the full
// solves' rounding.
TEST(Reduction, SparseSchurFullSolveEqualsTheDenseLu) {
  const Model model =
      LoadModel(std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model_flexible.yaml");
  const Posture full = Linearize(model, "milling");
  int joints = 0;
  while (model.dofs[joints].spring) ++joints;
  ASSERT_EQ(joints, 9);
  std::vector<double> p = model.InitialParameters();
  std::vector<JointCoefficients> samples = {Coefficients(model, p, full.q)};
  for (int i = 0; i < 2 * joints; ++i) p[i] *= (i % 3 == 0) ? 0.3 : 3.0;
  samples.push_back(Coefficients(model, p, full.q));
  ReductionOptions options;
  options.modes_up_to_hz = 60.0;
  options.krylov_orders = 0;
  const Reduction r = Reduce(full, joints, {samples.front()}, {}, options, "test");
  // The beams' fixed-interface frequencies, from a dense eigensolution written here.
  const Eigen::MatrixXd k = TangentStiffness(full, samples.front()).real();
  const Eigen::MatrixXd m = MassMatrix(full, samples.front());
  const int nb = full.n - joints;
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(
      k.bottomRightCorner(nb, nb), m.bottomRightCorner(nb, nb));
  std::vector<double> lines = {0.2, 3.7, 11.0, 19.5, 30.0};
  for (int i = 0; i < 3; ++i) lines.push_back(std::sqrt(eig.eigenvalues()(i)) / (2 * M_PI));
  for (double f : lines)
    for (const JointCoefficients& c : samples) {
      const double sparse = ReductionError(full, r, {c}, {f});
      const double dense = ReductionError(full, r, {c}, {f}, FullSolve::kDense);
      EXPECT_GT(dense, 1e-7) << f << " Hz";
      EXPECT_NEAR(sparse / dense, 1.0, 1e-6) << f << " Hz";
    }
}

TEST(ReductionOptionsTest, IsValidNamesTheBadFieldAndReduceRefusesItFirst) {
  ReductionOptions valid;
  valid.modes_up_to_hz = 150.0;  // the one field without a default
  std::string error;
  EXPECT_TRUE(valid.IsValid(&error)) << error;
  EXPECT_FALSE(ReductionOptions{}.IsValid(&error));
  EXPECT_EQ(error.rfind("modes_up_to_hz", 0), 0u) << error;
  struct Case {
    std::function<void(ReductionOptions&)> mutate;
    const char* field;
  };
  const Case cases[] = {
      {[](ReductionOptions& o) { o.modes_up_to_hz = -1.0; }, "modes_up_to_hz"},
      {[](ReductionOptions& o) { o.modes_up_to_hz = INFINITY; }, "modes_up_to_hz"},
      {[](ReductionOptions& o) { o.modes_up_to_hz = std::nan(""); }, "modes_up_to_hz"},
      {[](ReductionOptions& o) { o.krylov_orders = -1; }, "krylov_orders"},
      {[](ReductionOptions& o) { o.krylov_orders = 9; }, "krylov_orders"},
      {[](ReductionOptions& o) { o.size = -1; }, "size"},
      {[](ReductionOptions& o) { o.drop_tolerance = 0.0; }, "drop_tolerance"},
      {[](ReductionOptions& o) { o.drop_tolerance = 1.0; }, "drop_tolerance"},
      {[](ReductionOptions& o) { o.drop_tolerance = std::nan(""); }, "drop_tolerance"},
  };
  for (const Case& c : cases) {
    ReductionOptions o = valid;
    c.mutate(o);
    EXPECT_FALSE(o.IsValid(&error)) << c.field;
    EXPECT_EQ(error.rfind(c.field, 0), 0u) << error;
    EXPECT_NE(error.find("expected"), std::string::npos) << error;
    // Refused before the posture is looked at: an empty one would fail otherwise.
    EXPECT_EQ(test::ErrorOf([&] { Reduce(Posture{}, 0, {}, {}, o, "arm"); })
                  .rfind(std::string("arm: reduction.") + c.field + ": expected", 0),
              0u)
        << c.field;
  }
}

}  // namespace
}  // namespace frfit
