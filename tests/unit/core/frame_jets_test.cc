// FrameJets (posture/kinematics.h) computes the derivatives of the DOFs that move a frame only,
// leaving the others' +0.0. Against the product rule over every DOF written here — on the KUKA with
// its arm and forearm as beams (255 DOFs, frames carried by the beams' end stations) — every
// frame's T, first and second derivatives are equal bit for bit, zeros' signs included, and so
// are those of a body's offset jet.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"

namespace frfit {
namespace {

struct Jet {
  Mat4 T = Mat4::Identity();
  std::vector<Mat4> d, dd;
};

// The elementary transform of a step at amount a and its first two derivatives, from the
// rotation and translation matrices' definitions.
void Step(const TransformStep& step, double a, Mat4* S, Mat4* dS, Mat4* ddS) {
  S->setIdentity(), dS->setZero(), ddS->setZero();
  const double c = std::cos(a), s = std::sin(a);
  auto rotation = [&](int i, int j) {
    (*S)(i, i) = c, (*S)(i, j) = -s, (*S)(j, i) = s, (*S)(j, j) = c;
    (*dS)(i, i) = -s, (*dS)(i, j) = -c, (*dS)(j, i) = c, (*dS)(j, j) = -s;
    (*ddS)(i, i) = -c, (*ddS)(i, j) = s, (*ddS)(j, i) = -s, (*ddS)(j, j) = -c;
  };
  using K = TransformStep::Kind;
  switch (step.kind) {
    case K::kRotX: rotation(1, 2); break;
    case K::kRotY: rotation(2, 0); break;
    case K::kRotZ: rotation(0, 1); break;
    case K::kTransX: (*S)(0, 3) = a, (*dS)(0, 3) = 1; break;
    case K::kTransY: (*S)(1, 3) = a, (*dS)(1, 3) = 1; break;
    case K::kTransZ: (*S)(2, 3) = a, (*dS)(2, 3) = 1; break;
    case K::kDisp: S->block<3, 1>(0, 3) = step.disp; break;
  }
}

// J ← J·S over every pair of DOFs: ∂²(TS) = ∂²T·S + ∂T·∂S + ∂T·∂S + T·∂²S where the step's DOF is
// involved.
void Multiply(Jet* j, const Mat4& S, const Mat4& dS, const Mat4& ddS, int dof, int n) {
  std::vector<Mat4> dd(j->dd.size());
  for (int p = 0; p < n; ++p)
    for (int r = 0; r < n; ++r) {
      Mat4 v = j->dd[p * n + r] * S;
      if (p == dof) v += j->d[r] * dS;
      if (r == dof) v += j->d[p] * dS;
      if (p == dof && r == dof) v += j->T * ddS;
      dd[p * n + r] = v;
    }
  j->dd = std::move(dd);
  for (int p = 0; p < n; ++p) {
    Mat4 v = j->d[p] * S;
    if (p == dof) v += j->T * dS;
    j->d[p] = v;
  }
  j->T = j->T * S;
}

bool SameBits(const Mat4& a, const Mat4& b) { return std::memcmp(a.data(), b.data(), sizeof(Mat4)) == 0; }

void ExpectSame(const Jet& want, const TransformJet& got, const std::string& what) {
  EXPECT_TRUE(SameBits(want.T, got.T)) << what;
  ASSERT_EQ(want.d.size(), got.d.size()) << what;
  ASSERT_EQ(want.dd.size(), got.dd.size()) << what;
  int differ = 0;
  for (size_t p = 0; p < want.d.size(); ++p) differ += !SameBits(want.d[p], got.d[p]);
  for (size_t k = 0; k < want.dd.size(); ++k) differ += !SameBits(want.dd[k], got.dd[k]);
  EXPECT_EQ(differ, 0) << what << ": derivatives that differ in their bits";
}

TEST(FrameJets, MovingDofsOnlyEqualTheProductRuleOverEveryDofBitForBit) {
  const Model model =
      LoadModel(std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model_flexible.yaml");
  const int n = model.num_dofs();
  ASSERT_GT(n, 200);
  // A posture with every elastic coordinate off zero, so no derivative vanishes by accident.
  std::vector<double> q(model.num_coordinates());
  for (size_t i = 0; i < q.size(); ++i) q[i] = 0.3 * std::sin(1.7 * i + 0.4) * (i < size_t(n) ? 0.01 : 1.0);
  const std::vector<TransformJet> jets = FrameJets(model, q, true);
  ASSERT_EQ(jets.size(), model.frames.size());
  std::vector<Jet> want;
  Jet ground;
  ground.d.assign(n, Mat4::Zero());
  ground.dd.assign(n * n, Mat4::Zero());
  int moving = 0;
  for (size_t f = 0; f < model.frames.size(); ++f) {
    const Frame& frame = model.frames[f];
    Jet j = frame.parent < 0 ? ground : want[frame.parent];
    for (const TransformStep& step : frame.steps) {
      Mat4 S, dS, ddS;
      Step(step, step.value + (step.coordinate >= 0 ? q[step.coordinate] : 0.0), &S, &dS, &ddS);
      Multiply(&j, S, dS, ddS, step.coordinate >= 0 && step.coordinate < n ? step.coordinate : -1, n);
    }
    want.push_back(j);
    ExpectSame(j, jets[f], "frame " + frame.name);
    moving = std::max(moving, static_cast<int>(jets[f].moving.size()));
  }
  EXPECT_LT(moving, n / 4);  // the skipped work is most of it
  // A body's offset jet (the arm's centre of mass: a beam body carried on joint 2).
  const Eigen::Vector3d offset(0.4, -0.05, 0.02);
  Mat4 S = Mat4::Identity(), zero = Mat4::Zero();
  S.block<3, 1>(0, 3) = offset;
  Jet moved = want.back();
  Multiply(&moved, S, zero, zero, -1, n);
  ExpectSame(moved, Offset(jets.back(), offset), "offset of the last frame");
}

}  // namespace
}  // namespace frfit
