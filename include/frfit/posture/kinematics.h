// Forward kinematics of a Model's frames and bodies, with exact first and second derivatives with
// respect to the elastic DOFs (not finite differences): each elementary transform has closed-form
// derivatives, and the product rule carries them along the chain.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "frfit/model/model.h"

namespace frfit {

using Mat4 = Eigen::Matrix4d;

// A homogeneous transform T(q) and its derivatives at one q: d[p] = ∂T/∂q_p and, when requested,
// dd[p·n + r] = ∂²T/∂q_p∂q_r, for the n elastic DOFs. `moving` lists, in the order met from the
// ground, the DOFs whose steps lie on the frame's path: every other DOF's derivatives are exact
// zeros (+0.0), which the product rule keeps (a zero matrix times a homogeneous transform sums a
// 0·0 or 0·1 term into each entry: +0.0), so they are not computed. A beam's frame moves with a
// few of its 255 coordinates.
struct TransformJet {
  Mat4 T = Mat4::Identity();
  std::vector<Mat4> d;
  std::vector<Mat4> dd;
  std::vector<int> moving;
};

// Pose of every frame (index as in Model::frames) relative to the ground frame.
// q holds every coordinate (DOFs then rigid), in rad / m.
std::vector<TransformJet> FrameJets(const Model& model, std::span<const double> q,
                                    bool second_derivatives);

// The same jet moved by a constant offset expressed in the frame (a body's centre of mass, say).
TransformJet Offset(const TransformJet& jet, const Eigen::Vector3d& offset_m);

// Plain poses, no derivatives (for checks and for drawing).
std::vector<Mat4> FramePoses(const Model& model, std::span<const double> q);

// Angular-velocity Jacobian column from ∂R/∂q_p: vee(∂R/∂q_p · Rᵀ) (paper Eq. 5).
Eigen::Vector3d AngularJacobianColumn(const Mat4& T, const Mat4& dT);

}  // namespace frfit
