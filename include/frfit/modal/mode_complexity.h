// How far a mode shape is from a real (normal) mode: a lightly and proportionally damped structure
// has mode shapes whose components all lie on one line of the complex plane; an estimate whose
// components scatter in phase is a complex mode — non-proportional damping, or a noise pole.
//   MPC, the modal phase collinearity (Pappa et al., 1993): 1 for components on one line, 0 for a
//     circular scatter; ((λ1 − λ2)/(λ1 + λ2))² of the 2×2 covariance of (Re φ, Im φ).
//   MPD, the mean phase deviation: the |φ|-weighted mean angle (degrees, 0…90) between each
//     component and the line that best fits them all (the principal direction of that covariance).
#pragma once

#include <complex>
#include <span>

namespace frfit {

double ModalPhaseCollinearity(std::span<const std::complex<double>> shape);  // NaN for a zero shape
double MeanPhaseDeviationDeg(std::span<const std::complex<double>> shape);   // NaN for a zero shape

}  // namespace frfit
