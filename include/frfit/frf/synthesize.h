// FRF synthesis (DESIGN.md §2): H_s(ω) = R_0,Sᵀ J_S Z(ω)⁻¹ J_Sᵀ R_0,S with
// Z(ω) = −ω² M0 + iω C0 + K0, the linearised limit of paper Eqs. 23–28. This is the plain,
// obviously-correct path (Eigen's dense LU) that files are written from and that the fast
// per-line kernels are tested against.
#pragma once

#include <string>
#include <vector>

#include "frfit/frf/frf_set.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/posture.h"

namespace frfit {

// Lines f0, f0+df, ..., up to f1 (inclusive within 1e-9·df). Parses "F0:F1:DF" in Hz.
// An empty or non-finite band is an Error naming `what`.
std::vector<double> ParseBand(const std::string& text, const std::string& what);
std::vector<double> MakeBand(double f0_hz, double f1_hz, double df_hz, const std::string& what);

// All nine entries, in the sensor frame, in `format`.
FrfSet Synthesize(const Posture& posture, const JointCoefficients& coefficients,
                  const std::vector<double>& frequency_hz, FrfFormat format);
// All nine entries between two measurement points, H = B_aᵀ Z⁻¹ B_b, each axis in its frame's axes.
FrfSet Synthesize(const Posture& posture, const JointCoefficients& coefficients,
                  const std::vector<double>& frequency_hz, FrfFormat format,
                  const MeasurementPoints& points);

}  // namespace frfit
