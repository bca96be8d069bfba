// Windows of an impact test: the force window (1 around the pulse, cosine tapered, 0 elsewhere,
// so the force channel's noise outside the pulse does not enter the spectra) and the exponential
// window (forces the responses to decay inside the record, at the price of added damping).
#pragma once

#include <string>
#include <vector>

namespace frfit {

// Where the force pulse is in a record: the samples around the peak where |force| stays at or
// above kPulseFraction of the peak.
inline constexpr double kPulseFraction = 0.1;
struct Pulse {
  int peak = 0;   // sample of the largest |force|
  int first = 0;  // last sample before the peak below kPulseFraction·peak (0 if none)
  int last = 0;   // first sample after the peak below kPulseFraction·peak (N−1 if none)
  double peak_value = 0.0;
};
Pulse FindPulse(const std::vector<double>& force);

struct ForceWindowOptions {
  bool enabled = true;
  double margin_s = 0.002;  // flat part beyond the pulse on each side: keeps the pulse's tails
  double taper_s = 0.002;   // half-cosine from 1 to 0 outside the margin: no step in the force
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};

// Window for the force channel of one record (all ones when disabled).
std::vector<double> ForceWindow(const Pulse& pulse, int samples, double sample_rate_hz,
                                const ForceWindowOptions& options);
// First sample the force window covers: the samples before it are the pre-trigger (DC) region.
int ForceWindowStart(const Pulse& pulse, double sample_rate_hz, const ForceWindowOptions& options);

// exp(−t/τ) from the record's first sample, applied to the force and to every response so that
// H is unchanged by the window's level and only its damping remains: the windowed impulse
// response decays 1/τ faster, each pole moves by −1/τ.
struct ExponentialWindowOptions {
  double tau_s = 0.0;      // time constant; 0 with end_value 0: no window
  double end_value = 0.0;  // alternatively the window's value at the record's end (0 < r < 1)
  bool enabled() const { return tau_s > 0.0 || end_value > 0.0; }
  // τ for a record of `record_s` seconds (+inf when disabled).
  double TimeConstant(double record_s) const;
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};
std::vector<double> ExponentialWindow(int samples, double sample_rate_hz, double tau_s);

// The damping ratio a window exp(−t/τ) adds to a mode at ω (rad/s): 1/(τ·ω). An estimate from
// windowed data is corrected by subtracting it (exact for the pole shift; a fraction of the
// undamped natural frequency, which for light damping is the damped one within ζ²/2).
double AddedDampingRatio(double tau_s, double omega_rad_s);

}  // namespace frfit
