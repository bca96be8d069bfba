// The 3-joint validation example of the paper (section 4): at the milling posture with the Table 1
// parameters, the linearised matrices must reproduce Eqs. 33–34 and the modal parameters printed in
// the text (f = 10.17, 11.24, 22.6 Hz; ζ = 1.89, 1.8, 1.66 %). Every expected number below is the
// paper's, never an output of this code.
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

const std::string kDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class CorePaper3Dof : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new Model(LoadModel(kDir + "model.yaml"));
    params_ = new std::vector<double>(LoadParameters(kDir + "params_table1.yaml", *model_));
    posture_ = new Posture(Linearize(*model_, "milling"));
  }
  static void TearDownTestSuite() {
    delete posture_;
    delete params_;
    delete model_;
  }
  static Model* model_;
  static std::vector<double>* params_;
  static Posture* posture_;
};
Model* CorePaper3Dof::model_ = nullptr;
std::vector<double>* CorePaper3Dof::params_ = nullptr;
Posture* CorePaper3Dof::posture_ = nullptr;

TEST_F(CorePaper3Dof, ModelHasThreeJointsAndTable1Parameters) {
  ASSERT_EQ(model_->num_dofs(), 3);
  ASSERT_EQ(model_->num_parameters(), 6);
  const char* names[] = {"k_z1", "k_z2", "k_z3", "d_z1", "d_z2", "d_z3"};
  const double table1[] = {2.0e6, 3.0e6, 1.55e6, 1.2e3, 1.545e3, 0.34e3};
  for (int i = 0; i < 6; ++i) {
    const int index = model_->FindParameter(names[i]);
    ASSERT_GE(index, 0) << names[i];
    EXPECT_EQ((*params_)[index], table1[i]) << names[i];
  }
  const PostureSpec& milling = model_->posture("milling");
  EXPECT_NEAR(milling.q[0], 0.0, 1e-15);
  EXPECT_NEAR(milling.q[1], 70.0 * M_PI / 180.0, 1e-15);
  EXPECT_NEAR(milling.q[2], -100.0 * M_PI / 180.0, 1e-15);
}

// Eq. 33: M0 at the milling posture. Off-diagonals to the printed digits, diagonals within 0.2 %
// (DESIGN.md: the printed diagonal is not reproduced exactly with Table 2's rounded inertias).
TEST_F(CorePaper3Dof, MassMatrixMatchesEq33) {
  const Eigen::MatrixXd& M = posture_->mass;
  ASSERT_EQ(M.rows(), 3);
  ASSERT_EQ(M.cols(), 3);
  const double off[3][3] = {{0, -30.5, 0.3}, {-30.5, 0, 72.1}, {0.3, 72.1, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) EXPECT_NEAR(M(i, j), off[i][j], 0.1) << "M0(" << i + 1 << "," << j + 1 << ")";
  const double diag[3] = {482.1, 588.8, 88.7};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(M(i, i), diag[i], 0.002 * diag[i]) << "M0(" << i + 1 << "," << i + 1 << ")";
  EXPECT_EQ(M(0, 1), M(1, 0));
  EXPECT_EQ(M(0, 2), M(2, 0));
  EXPECT_EQ(M(1, 2), M(2, 1));
}

// Eq. 34: K0 = K_gravity + diag(k). The springs only touch the diagonal, so K0(2,3) is gravity.
TEST_F(CorePaper3Dof, StiffnessMatrixMatchesEq34) {
  const JointCoefficients c = Coefficients(*model_, *params_);
  const Eigen::MatrixXcd K = TangentStiffness(*posture_, c);
  EXPECT_NEAR(K(1, 2).real(), 427.816, 0.001 * 427.816);
  EXPECT_NEAR(K(2, 1).real(), 427.816, 0.001 * 427.816);
  EXPECT_NEAR(posture_->gravity_stiffness(1, 2), 427.816, 0.001 * 427.816);
  // Joint 1 rotates about the vertical axis: gravity does no work on it.
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(posture_->gravity_stiffness(0, j), 0.0, 1e-9);
    EXPECT_NEAR(posture_->gravity_stiffness(j, 0), 0.0, 1e-9);
  }
  // Eq. 34 prints the diagonal as 2e6, 3e6, 1.55e6: within half a unit of the last printed
  // digit of 1.55e6 (5e3); the gravity diagonal terms are a few thousand N*m/rad.
  const double k[3] = {2e6, 3e6, 1.55e6};
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(K(j, j).real(), k[j], 5e3) << "K0(" << j + 1 << "," << j + 1 << ")";
    EXPECT_EQ(K(j, j).real(), posture_->gravity_stiffness(j, j) + k[j]);
    EXPECT_EQ(K(j, j).imag(), 0.0);  // viscous model: no hysteretic part
  }
  // C0 = diag(d) for the viscous model (Eq. 33 prints diag 1200, 1545, 340).
  const Eigen::MatrixXd C = TangentDamping(*posture_, c);
  const double d[3] = {1200, 1545, 340};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(C(i, j), i == j ? d[i] : 0.0, 1e-12);
}

// Section 4: f = 10.17, 11.24, 22.6 Hz and ζ = 1.89, 1.8, 1.66 %.
TEST_F(CorePaper3Dof, ModesMatchSection4) {
  const std::vector<Mode> modes = ComputeModes(*posture_, Coefficients(*model_, *params_));
  ASSERT_EQ(modes.size(), 3u);
  const double f[3] = {10.17, 11.24, 22.6};
  const double zeta_percent[3] = {1.89, 1.8, 1.66};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(modes[k].frequency_hz, f[k], 0.005 * f[k]) << "mode " << k + 1;
    EXPECT_NEAR(100.0 * modes[k].damping_ratio, zeta_percent[k], 0.05) << "mode " << k + 1;
  }
  // Eq. 20 consistency: f = Im λ / 2π, ζ = −Re λ / |λ|.
  for (const Mode& m : modes) {
    EXPECT_NEAR(m.frequency_hz, m.eigenvalue.imag() / (2 * M_PI), 1e-12 * m.frequency_hz);
    EXPECT_NEAR(m.damping_ratio, -m.eigenvalue.real() / std::abs(m.eigenvalue), 1e-12);
  }
}

// The eigenvalues must satisfy det(λ²M + λC + K) = 0: checked by an independent route, the
// smallest singular value of the quadratic pencil at each λ relative to its largest.
TEST_F(CorePaper3Dof, EigenvaluesSolveTheQuadraticPencil) {
  const JointCoefficients c = Coefficients(*model_, *params_);
  const Eigen::MatrixXcd M = posture_->mass.cast<std::complex<double>>();
  const Eigen::MatrixXcd C = TangentDamping(*posture_, c).cast<std::complex<double>>();
  const Eigen::MatrixXcd K = TangentStiffness(*posture_, c);
  for (const Mode& m : ComputeModes(*posture_, c)) {
    const std::complex<double> l = m.eigenvalue;
    const Eigen::MatrixXcd P = l * l * M + l * C + K;
    const Eigen::VectorXcd r = P * m.shape;
    EXPECT_LT(r.norm(), 1e-8 * P.norm() * m.shape.norm()) << "mode at " << m.frequency_hz << " Hz";
  }
}

}  // namespace
}  // namespace frfit
