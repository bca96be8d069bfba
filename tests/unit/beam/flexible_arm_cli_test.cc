// `frfit modal` and `frfit simulate` on the beam model datasets/flexible_arm: both run on a model
// with 121 elastic coordinates and agree with the continuous beam of beam_closed_forms.h.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
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

}  // namespace
}  // namespace frfit
