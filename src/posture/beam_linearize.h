// The beam bodies' share of a linearised posture (docs/decisions.md, "Beam bodies").
#pragma once

#include <vector>

#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"

namespace frfit {

// Adds every beam's distributed inertia to posture->mass, its own weight's tangent stiffness to
// posture->gravity_stiffness, and its stiffness (per unit E and G), loss and Rayleigh shares to
// posture->affine_parts. `frames` are the model's frame jets at the posture, with second
// derivatives.
void AddBeams(const Model& model, const std::vector<TransformJet>& frames, Posture* posture);

}  // namespace frfit
