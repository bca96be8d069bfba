// The linearisation of a model's tree of frames with respect to its DOFs, loops ignored, and the
// check that its mass matrix is positive definite (posture/linearize.cc).
#pragma once

#include <string>
#include <vector>

#include "frfit/posture/posture.h"

namespace frfit {

Posture LinearizeTree(const Model& model, const std::vector<double>& q, const std::string& name);
// Throws an Error naming the massless DOFs when posture.mass is not positive definite.
void CheckMassMatrix(const Model& model, const Posture& posture, const std::string& name);

}  // namespace frfit
