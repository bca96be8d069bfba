// Stability lobes of milling by the zero-order frequency-domain solution of Altintas & Budak,
// "Analytical prediction of stability lobes in milling", CIRP Annals 44(1), 1995 (also Altintas,
// Manufacturing Automation, ch. 4), on a given 2×2 receptance of the tool tip in the cutting
// plane. Pure functions of their arguments: no model, no files (the model's FRF is
// predict/lobes_model.h, the cut file predict/cut_config.h). docs/lobes.md derives every step.
//
// With the directional factors α averaged over the immersion, the chatter condition at a chatter
// frequency ω_c is det(I + Λ Φ(iω_c) α) = 0 with Λ = −(N/4π) a K_t (1 − e^{−iω_c T}); so
// Λ = −1/λ for each eigenvalue λ of Φα, and
//     a_lim = −2π Λ_R (1 + κ²) / (N K_t) = 2π / (N K_t Re λ),   κ = Λ_I / Λ_R,
//     ω_c T = ε + 2kπ,  ε = π − 2 atan κ,   n = 60 / (N T) rpm,   k = 0, 1, …
// Only Re λ > 0 gives a positive depth. Written with the oriented FRF G_or = −λ/(4π) this is the
// textbook a_lim = −1 / (2 K_t N Re G_or).
#pragma once

#include <complex>
#include <limits>
#include <string>
#include <vector>

namespace frfit {

// α of Altintas & Budak (dimensionless), the average of the directional coefficients over one
// revolution times 2π/N: [A0] = (N/2π) α. Angles in rad (φ from +Y, clockwise, see CutConfig).
struct DirectionalFactors {
  double xx = 0.0, xy = 0.0, yx = 0.0, yy = 0.0;
};
DirectionalFactors AverageDirectionalFactors(double entry_rad, double exit_rad, double kr_ratio);

// The tool-tip receptance in the cutting plane, m/N: Φ[line * 4 + 2 i + j], i the response and j
// the force axis, 0 = X (feed), 1 = Y (normal).
struct CuttingPlaneFrf {
  std::vector<double> frequency_hz;  // strictly increasing, > 0
  std::vector<std::complex<double>> receptance;
  int num_lines() const { return static_cast<int>(frequency_hz.size()); }
};

struct LobeOptions {
  int teeth = 2;
  double kt_n_per_m2 = 7e8;
  DirectionalFactors alpha;
  double speed_min_rpm = 5000.0, speed_max_rpm = 30000.0;
  int speed_points = 2000;
  int max_lobes = 0;  // 0: every lobe that reaches speed_min_rpm, at most kLobeLimit
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};
inline constexpr int kLobeLimit = 5000;

// The minimum of lobe k over its points inside the speed range (both eigenvalue branches).
struct LobeMinimum {
  int k = 0;
  double depth_m = 0.0;
  double spindle_speed_rpm = 0.0;
  double chatter_frequency_hz = 0.0;
  // The lobe goes lower outside the range: its minimum here is where the range cuts it, not one
  // of the lobe's own minima.
  bool clipped = false;
};

struct StabilityLobes {
  std::vector<double> spindle_speed_rpm;     // the grid, speed_points values
  // The stability envelope: the smallest a_lim of any lobe at each speed (lobes interpolated
  // linearly in speed between adjacent FRF lines); +inf where no lobe reaches the speed.
  std::vector<double> depth_limit_m;
  std::vector<double> chatter_frequency_hz;  // of the lobe that sets the envelope; NaN with +inf
  double critical_depth_m = kInf;            // min of depth_limit_m
  double critical_spindle_speed_rpm = kNaN;
  double critical_chatter_frequency_hz = kNaN;
  // min over every FRF line of a_lim, whatever the speed: the depth below which the cut is stable
  // at any speed (what the envelope's minimum reaches when a lobe's minimum lies in the range).
  double absolute_critical_depth_m = kInf;
  double absolute_chatter_frequency_hz = kNaN;
  std::vector<LobeMinimum> lobes;  // lobes with a point in the range, by k
  int lobes_computed = 0;          // lobes k = 0..lobes_computed−1 were traced
  bool lobes_truncated = false;    // more would have reached speed_min_rpm (kLobeLimit)

  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
};

// The two eigenvalues of Φα per line, [line * 2 + branch], ordered so that each branch is
// continuous from line to line (nearest to the previous line's).
std::vector<std::complex<double>> DirectionalEigenvalues(const CuttingPlaneFrf& frf,
                                                         const DirectionalFactors& alpha);
// The oriented FRF G_or = −λ/(4π) per line and branch, same packing: a_lim = −1/(2 N K_t Re G_or).
std::vector<std::complex<double>> OrientedFrf(const CuttingPlaneFrf& frf,
                                              const DirectionalFactors& alpha);

// The lobes and their envelope. Throws Error when the options fail Check() or the FRF is empty
// or not increasing.
StabilityLobes ComputeStabilityLobes(const CuttingPlaneFrf& frf, const LobeOptions& options);

}  // namespace frfit
