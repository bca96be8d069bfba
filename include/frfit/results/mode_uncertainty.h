// The fit's uncertainty carried to the modes it predicts: 1σ of every mode's frequency and
// damping ratio at any posture, linearised (σ² = gᵀ Cov g, g the exact first-order derivatives of
// the eigenvalue by the free parameters, Cov the fit's covariance from its identifiability
// report). Linear propagation holds while 1σ of the parameters is small against the scale on
// which the modes bend (a few percent): docs/identifiability.md, "Predicted modes".
#pragma once

#include <vector>

#include "frfit/fit/host_posture.h"
#include "frfit/results/identifiability.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model.h"

namespace frfit {

struct ModeSigma {
  double frequency_hz;   // 1σ of the damped natural frequency, Hz
  double damping_ratio;  // 1σ of the damping ratio, a fraction (as Mode::damping_ratio)
};

// One per mode of ComputeModes at `posture` with `parameters` (Model::parameters order), in its
// order. NaN for every mode when `id` has no finite covariance, or names a parameter the model
// lacks (a result of another model).
// gᵀ Cov g: the variance of a quantity whose derivatives by the free parameters of `id` (in its
// order) are g, Cov_ab = σ_a σ_b ρ_ab; NaN when not finite.
double PropagatedVariance(const std::vector<double>& g, const Identifiability& id);

// The Model::parameters index of each free parameter of `id`, in its order; empty when `id` has
// no finite covariance or names a parameter the model lacks (a result of another model).
std::vector<int> FreeParameterIndices(const Model& model, const Identifiability& id);

std::vector<ModeSigma> PropagateModeSigmas(const Posture& posture, const Model& model,
                                           const std::vector<double>& parameters,
                                           const Identifiability& id);
// The same on a set's host posture (fit/host_posture.h): a reduced set's modes and their
// sensitivities are its reduced posture's.
std::vector<ModeSigma> PropagateModeSigmas(const HostPosture& host, const Model& model,
                                           const std::vector<double>& parameters,
                                           const Identifiability& id);

}  // namespace frfit
