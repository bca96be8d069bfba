#include "frfit/posture/kinematics.h"

#include <algorithm>
#include <cmath>

namespace frfit {
namespace {

// The elementary transform of `step` at amount a, and its first and second derivatives with
// respect to a (both zero for a constant displacement).
void StepTransform(const TransformStep& step, double a, Mat4* T, Mat4* dT, Mat4* ddT) {
  T->setIdentity();
  dT->setZero();
  ddT->setZero();
  const double c = std::cos(a), s = std::sin(a);
  auto rotation = [&](int i, int j) {  // rotation in the (i, j) plane, i→j positive
    (*T)(i, i) = c;   (*T)(i, j) = -s;  (*T)(j, i) = s;   (*T)(j, j) = c;
    (*dT)(i, i) = -s; (*dT)(i, j) = -c; (*dT)(j, i) = c;  (*dT)(j, j) = -s;
    (*ddT)(i, i) = -c; (*ddT)(i, j) = s; (*ddT)(j, i) = -s; (*ddT)(j, j) = -c;
  };
  using K = TransformStep::Kind;
  switch (step.kind) {
    case K::kRotX: rotation(1, 2); break;
    case K::kRotY: rotation(2, 0); break;  // Eq. 3: R_y = [c 0 s; 0 1 0; −s 0 c]
    case K::kRotZ: rotation(0, 1); break;
    case K::kTransX: (*T)(0, 3) = a; (*dT)(0, 3) = 1.0; break;
    case K::kTransY: (*T)(1, 3) = a; (*dT)(1, 3) = 1.0; break;
    case K::kTransZ: (*T)(2, 3) = a; (*dT)(2, 3) = 1.0; break;
    case K::kDisp: T->block<3, 1>(0, 3) = step.disp; break;
  }
}

// jet ← jet · S(q_c), with c the step's elastic DOF (or none). Only the moving DOFs' derivatives
// are computed (TransformJet); the others stay +0.0, as the full product would leave them.
void Append(TransformJet* jet, const Mat4& S, const Mat4& dS, const Mat4& ddS, int dof, int n,
            bool second) {
  if (dof >= 0 && std::find(jet->moving.begin(), jet->moving.end(), dof) == jet->moving.end())
    jet->moving.push_back(dof);
  if (second) {
    for (int p : jet->moving)
      for (int r : jet->moving) {
        Mat4 v = jet->dd[p * n + r] * S;
        if (p == dof) v += jet->d[r] * dS;
        if (r == dof) v += jet->d[p] * dS;
        if (p == dof && r == dof) v += jet->T * ddS;
        jet->dd[p * n + r] = v;
      }
  }
  for (int p : jet->moving) {
    Mat4 v = jet->d[p] * S;
    if (p == dof) v += jet->T * dS;
    jet->d[p] = v;
  }
  jet->T = jet->T * S;
}

}  // namespace

std::vector<TransformJet> FrameJets(const Model& model, std::span<const double> q,
                                    bool second_derivatives) {
  const int n = model.num_dofs();
  TransformJet ground;
  ground.d.assign(n, Mat4::Zero());
  if (second_derivatives) ground.dd.assign(n * n, Mat4::Zero());
  std::vector<TransformJet> jets;
  jets.reserve(model.frames.size());
  for (const Frame& frame : model.frames) {
    TransformJet jet = frame.parent < 0 ? ground : jets[frame.parent];
    for (const TransformStep& step : frame.steps) {
      const double amount = step.value + (step.coordinate >= 0 ? q[step.coordinate] : 0.0);
      Mat4 S, dS, ddS;
      StepTransform(step, amount, &S, &dS, &ddS);
      const int dof = step.coordinate >= 0 && step.coordinate < n ? step.coordinate : -1;
      Append(&jet, S, dS, ddS, dof, n, second_derivatives);
    }
    jets.push_back(std::move(jet));
  }
  return jets;
}

TransformJet Offset(const TransformJet& jet, const Eigen::Vector3d& offset_m) {
  Mat4 S = Mat4::Identity();
  S.block<3, 1>(0, 3) = offset_m;
  TransformJet out;
  out.T = jet.T * S;
  // The non-moving DOFs' zeros are copied, not multiplied (TransformJet).
  out.moving = jet.moving;
  out.d = jet.d;
  out.dd = jet.dd;
  const size_t n = jet.d.size();
  for (int p : jet.moving) {
    out.d[p] = jet.d[p] * S;
    if (jet.dd.empty()) continue;
    for (int r : jet.moving) out.dd[p * n + r] = jet.dd[p * n + r] * S;
  }
  return out;
}

std::vector<Mat4> FramePoses(const Model& model, std::span<const double> q) {
  std::vector<Mat4> poses;
  for (const Frame& frame : model.frames) {
    Mat4 T = frame.parent < 0 ? Mat4::Identity() : poses[frame.parent];
    for (const TransformStep& step : frame.steps) {
      Mat4 S, dS, ddS;
      StepTransform(step, step.value + (step.coordinate >= 0 ? q[step.coordinate] : 0.0), &S, &dS,
                    &ddS);
      T = T * S;
    }
    poses.push_back(T);
  }
  return poses;
}

Eigen::Vector3d AngularJacobianColumn(const Mat4& T, const Mat4& dT) {
  const Eigen::Matrix3d W = dT.block<3, 3>(0, 0) * T.block<3, 3>(0, 0).transpose();
  return Eigen::Vector3d(W(2, 1), W(0, 2), W(1, 0));
}

}  // namespace frfit
