// The KUKA KR90 R3100 model of the paper (section 5) with the joint parameters identified in its
// ref. [34] (Table 5, column "From [34]"): the four modes below 30 Hz must match Table 6, column
// "From [34]": f = 10.0, 11.1, 18.7, 23.8 Hz. Expected numbers are the paper's.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

TEST(CoreKukaKr90, ModelHasNineVirtualJoints) {
  const Model model = LoadModel(kDir + "model.yaml");
  ASSERT_EQ(model.num_dofs(), 9);
  const char* names[] = {"z1", "x1", "y1", "z2", "x2", "y2", "z3", "x3", "y3"};
  for (const char* name : names) EXPECT_GE(model.FindDof(name), 0) << name;
  EXPECT_EQ(model.num_parameters(), 18);
  // Table 5, "From [34]".
  const std::vector<double> p = LoadParameters(kDir + "params_from34.yaml", model);
  EXPECT_EQ(p[model.FindParameter("k_z1")], 5.0e6);
  EXPECT_EQ(p[model.FindParameter("k_y3")], 12.0e6);
  EXPECT_EQ(p[model.FindParameter("d_x3")], 9.2e3);
}

TEST(CoreKukaKr90, FourModesBelow30HzMatchTable6) {
  const Model model = LoadModel(kDir + "model.yaml");
  const std::vector<double> p = LoadParameters(kDir + "params_from34.yaml", model);
  const Posture posture = Linearize(model, "milling");
  const std::vector<Mode> modes = ComputeModes(posture, Coefficients(model, p));
  std::vector<const Mode*> low;
  for (const Mode& m : modes)
    if (m.frequency_hz < 30.0) low.push_back(&m);
  ASSERT_EQ(low.size(), 4u) << "Table 6 lists four modes below 30 Hz";
  const double f[4] = {10.0, 11.1, 18.7, 23.8};
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(low[k]->frequency_hz, f[k], 0.01 * f[k]) << "mode " << k + 1;
  // Every mode is lightly damped (Table 6 lists 0.6 to 1.1 %): the damping ratios are fractions,
  // positive and small.
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(low[k]->damping_ratio, 0.0);
    EXPECT_LT(low[k]->damping_ratio, 0.05);
  }
}

}  // namespace
}  // namespace frfit
