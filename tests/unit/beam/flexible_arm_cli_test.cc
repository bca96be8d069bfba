// `frfit modal` and `frfit simulate` on the beam model datasets/flexible_arm: both run on a model
// with 121 elastic coordinates and agree with the continuous beam of beam_closed_forms.h.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beam_closed_forms.h"
#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";
// The truth of params_truth.yaml and the dataset's numbers, as the issue gives them.
constexpr double kK = 2.5e4, kEtaZ1 = 0.03, kE = 2.1e11, kEtaArm = 0.002;
constexpr double kRhoA = 7850 * 0.030 * 0.050, kIz = 0.050 * 0.030 * 0.030 * 0.030 / 12.0;

class FlexibleArmCli : public test::TempDirTest {};

TEST_F(FlexibleArmCli, ModalFindsTheFirstBendingMode) {
  const test::CliResult r = Run({"modal", "--model", kArm + "model.yaml", "--posture", "straight",
                                 "--params", kArm + "params_truth.yaml", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["dofs"], 121);
  const std::vector<double> roots = test::Roots(
      [](double w) { return test::SpringTipMassDeterminant(kE * kIz, kRhoA, 1.0, kK, false, 2.0, w); },
      1.0, 2 * M_PI * 50.0, 5000, 1);
  ASSERT_EQ(roots.size(), 1u);
  // A damped mode of K(1 + iη): its frequency moves from the undamped one by O(η²).
  EXPECT_NEAR(json["modes"][0]["frequency_hz"].get<double>() / (roots[0] / (2 * M_PI)), 1.0, 1e-3);
}

TEST_F(FlexibleArmCli, SimulateGivesTheContinuousBeamsReceptance) {
  const test::CliResult r =
      Run({"simulate", "--model", kArm + "model.yaml", "--posture", "straight", "--params",
           kArm + "params_truth.yaml", "--band", "1:170:1", "--format", "receptance", "--out",
           Path("frf.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const FrfSet set = ReadFrfSet(Path("frf.h5"));
  ASSERT_EQ(set.num_lines(), 170);
  double worst = 0.0;
  for (int k = 0; k < set.num_lines(); ++k) {
    const auto exact = test::SpringTipMassReceptance(
        kE * kIz * std::complex<double>(1.0, kEtaArm), kRhoA, 1.0,
        kK * std::complex<double>(1.0, kEtaZ1), false, 2.0, 2 * M_PI * set.frequency_hz[k]);
    worst = std::max(worst, std::abs(set.at(k, 1, 1) - exact) / std::abs(exact));
  }
  // The dataset's 20 elements: 1.1e-4, sixteen times (h⁴) the 7e-6 of 40 (flexible_arm_test.cc).
  EXPECT_LT(worst, 3e-4);
}

// A free-free bar on a free base (six `free: true` coordinates): `frfit modal` reports its six
// rigid-body motions apart and lists the elastic modes from the first bending mode on,
// cos βL cosh βL = 1 (10 elements: 1e-4).
TEST_F(FlexibleArmCli, ModalOnAFreeBaseReportsTheRigidBodyModesApart) {
  std::string dofs;
  for (const char* name : {"x0", "y0", "z0"})
    dofs += std::string("  - {name: ") + name + ", type: translational, free: true}\n";
  for (const char* name : {"r0", "p0", "w0"})
    dofs += std::string("  - {name: ") + name + ", type: rotational, free: true}\n";
  std::ofstream(Path("free.yaml"))
      << "format: frfit-model-1\nname: free\ngravity: [0, 0, 0]\ndamping_model: structural\n"
      << "dofs:\n" << dofs
      << "frames:\n  - {name: base, parent: ground, transforms: [{transx: x0}, {transy: y0}, "
         "{transz: z0}, {rotx: r0}, {roty: p0}, {rotz: w0}]}\n"
         "bodies:\n  - name: bar\n    frame: base\n    beam: {length: 1.0, material: {E: 7.0e10, "
         "G: 2.6e10, density: 2700}, section: {shape: rectangle, y: 0.02, z: 0.04}, theory: "
         "euler_bernoulli, elements: 10, stations: [{name: tip, x: 1.0}], loss_factor: {initial: "
         "0.01, min: 1.0e-4, max: 0.1}}\nsensor: tip\npostures: {rest: }\n";
  std::ofstream(Path("params.yaml")) << "parameters:\n  eta_bar: 0.01\n";
  const test::CliResult r = Run({"modal", "--model", Path("free.yaml"), "--posture", "rest",
                                 "--params", Path("params.yaml"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["rigid_body_modes"], 6);
  EXPECT_EQ(json["overdamped_dofs"], 0);
  EXPECT_EQ(json["modes"].size(), 66u - 6u);
  // Bending in the x–y plane (I = 0.04·0.02³/12), undamped; η = 0.01 moves it by O(η²).
  const double iz = 0.04 * 0.02 * 0.02 * 0.02 / 12.0;
  const auto x = test::Roots([](double v) { return std::cos(v) - 1.0 / std::cosh(v); }, 1.0, 6.0, 100, 1);
  ASSERT_EQ(x.size(), 1u);
  const double f1 = x[0] * x[0] * std::sqrt(7.0e10 * iz / (2700 * 0.0008)) / (2 * M_PI);
  EXPECT_NEAR(json["modes"][0]["frequency_hz"].get<double>() / f1, 1.0, 1e-4);
}

}  // namespace
}  // namespace frfit
