// Simulated impact tests of a structure known in modal form, for the impact/ tests: raised-cosine
// hammer pulses (a half-sine's spectrum falls as 1/f², and sampled without an anti-alias filter
// its aliases bias the force spectrum by 0.4 % at 1 kHz sampling — more than H1's random error
// where γ² = 0.99999; a raised cosine's falls as 1/f³, 0.02 %), responses by exact modal superposition in the time domain (the convolution of
// each mode's impulse response with the pulse in closed form, no discretisation), noise on every
// channel, double hits and clipping on request. The true FRF comes from the same modes in the
// frequency domain, a path that shares nothing with the estimator.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "frfit/common/rng.h"
#include "frfit/impact/time_recording.h"

namespace frfit::test {

using cd = std::complex<double>;

// One pole pair: receptance H(s) = Σ_r A_r/(s − λ_r) + conj(A_r)/(s − conj λ_r), residues A_r
// [3×3 row-major, response i, excitation j]. A physical receptance has Σ_r 2·Re A_r = 0 (it falls
// as 1/s², not 1/s); the acceleration formula below relies on it.
struct SimMode {
  cd lambda;
  std::array<cd, 9> residue;
};

// Proportionally damped mode of modal mass m and real shape φ: A = φφᵀ/(2i·m·ω_d).
inline SimMode ProportionalMode(double f_hz, double zeta, std::array<double, 3> phi, double mass) {
  const double wn = 2 * std::numbers::pi * f_hz, wd = wn * std::sqrt(1 - zeta * zeta);
  SimMode m{cd(-zeta * wn, wd), {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.residue[3 * i + j] = phi[i] * phi[j] / (cd(0, 2) * mass * wd);
  return m;
}

// H_ij(iω) in receptance (m/N).
inline cd TrueReceptance(const std::vector<SimMode>& modes, int i, int j, double f_hz) {
  const cd s(0, 2 * std::numbers::pi * f_hz);
  cd h;
  for (const SimMode& m : modes)
    h += m.residue[3 * i + j] / (s - m.lambda) + std::conj(m.residue[3 * i + j]) / (s - std::conj(m.lambda));
  return h;
}

struct Pulse1 {
  double t0, duration, amplitude;  // P·(1 − cos(2π(t − t0)/T))/2 on [t0, t0 + T]
};

inline double PulseForce(const Pulse1& p, double t) {
  const double u = t - p.t0;
  return u <= 0 || u >= p.duration
             ? 0.0
             : p.amplitude * 0.5 * (1 - std::cos(2 * std::numbers::pi * u / p.duration));
}

// ∫ e^{λ(t−τ)} f(τ) dτ for one pulse, in closed form:
// ∫₀^v e^{−λτ} dτ = (1 − e^{−λv})/λ, ∫₀^v e^{−λτ} cos(aτ) dτ = (e^{−λv}(a sin av − λ cos av) + λ)/(λ² + a²).
inline cd ModeConvolution(cd lambda, const Pulse1& p, double t) {
  const double u = t - p.t0;
  if (u <= 0) return 0.0;
  const double a = 2 * std::numbers::pi / p.duration, v = std::min(u, p.duration);
  const cd e = std::exp(-lambda * v);
  const cd plain = (1.0 - e) / lambda;
  const cd cosine = (e * (a * std::sin(a * v) - lambda * std::cos(a * v)) + lambda) /
                    (lambda * lambda + a * a);
  return p.amplitude * 0.5 * std::exp(lambda * u) * (plain - cosine);
}

// Response along axis i to hammer axis j at time t: displacement x = Σ 2Re(A·I); acceleration
// ẍ = Σ 2Re(A·(λ²I + λf)) (+ f'·Σ 2Re A, which is 0).
inline double Response(const std::vector<SimMode>& modes, const std::vector<Pulse1>& pulses, int i,
                       int j, double t, ChannelQuantity q) {
  double x = 0;
  for (const Pulse1& p : pulses) {
    const double f = PulseForce(p, t);
    for (const SimMode& m : modes) {
      const cd a = m.residue[3 * i + j], conv = ModeConvolution(m.lambda, p, t);
      x += 2 * std::real(q == ChannelQuantity::kAcceleration
                             ? a * (m.lambda * m.lambda * conv + m.lambda * f)
                             : a * conv);
    }
  }
  return x;
}

struct HitSpec {
  int hammer_axis = 2;
  double record_s = 6.0, fs = 1024.0, pretrigger_s = 0.05;
  double pulse_s = 0.012, amplitude_n = 100.0;
  double double_hit_fraction = 0.0;  // > 0: a second pulse of this size, 40 ms after the first
  double clip_response_fraction = 0.0;  // > 0: response x saturates at this fraction of its peak
  bool clip_with_full_scale = true;     // the front end's range is known (else a flat top only)
  double force_noise = 0.002, response_noise = 0.002;  // σ relative to the channel group's peak
  ChannelQuantity quantity = ChannelQuantity::kDisplacement;
};

// One triggered record: a force channel on the hammer axis and responses on x, y, z.
inline TimeRecording SimulateHit(const std::vector<SimMode>& modes, const HitSpec& s, Rng* rng,
                                 int hit_index) {
  const int n = static_cast<int>(std::lround(s.record_s * s.fs));
  std::vector<Pulse1> pulses{{s.pretrigger_s, s.pulse_s, s.amplitude_n}};
  if (s.double_hit_fraction > 0)
    pulses.push_back({s.pretrigger_s + 0.04, s.pulse_s, s.double_hit_fraction * s.amplitude_n});
  TimeRecording r;
  r.sample_rate_hz = s.fs;
  r.hit = hit_index;
  r.source = "simulated";
  TimeChannel force{"hammer", ChannelQuantity::kForce, s.hammer_axis, std::vector<double>(n), 0.0};
  for (int k = 0; k < n; ++k)
    for (const Pulse1& p : pulses) force.samples[k] += PulseForce(p, k / s.fs);
  std::vector<TimeChannel> responses;
  double peak = 0;
  for (int i = 0; i < 3; ++i) {
    TimeChannel c{std::string("resp_") + "xyz"[i], s.quantity, i, std::vector<double>(n), 0.0};
    for (int k = 0; k < n; ++k) {
      c.samples[k] = Response(modes, pulses, i, s.hammer_axis, k / s.fs, s.quantity);
      peak = std::max(peak, std::abs(c.samples[k]));
    }
    responses.push_back(std::move(c));
  }
  // Offsets too: the DC removal must take them out.
  for (double& v : force.samples) v += s.force_noise * s.amplitude_n * rng->Normal() + 0.3;
  for (TimeChannel& c : responses)
    for (double& v : c.samples) v += s.response_noise * peak * rng->Normal() + 0.01 * peak;
  if (s.clip_response_fraction > 0) {
    TimeChannel& c = responses[s.hammer_axis];
    double top = 0;
    for (double v : c.samples) top = std::max(top, std::abs(v));
    const double limit = s.clip_response_fraction * top;
    for (double& v : c.samples) v = std::clamp(v, -limit, limit);
    if (s.clip_with_full_scale) c.full_scale = limit;
  }
  r.channels.push_back(std::move(force));
  for (TimeChannel& c : responses) r.channels.push_back(std::move(c));
  return r;
}

// A structure with three well separated modes and coupled axes.
// Two modes 5 % apart whose half-power bands overlap (each 2ζf ≈ 0.8 Hz wide, 1 Hz apart),
// with different shapes, and a third well clear.
inline std::vector<SimMode> CloseModes() {
  return {ProportionalMode(20.0, 0.02, {1.0, 0.3, 0.5}, 40.0),
          ProportionalMode(21.0, 0.015, {-0.4, 1.0, 0.2}, 35.0),
          ProportionalMode(41.0, 0.01, {0.3, -0.6, 1.0}, 25.0)};
}

inline std::vector<SimMode> ThreeModes() {
  return {ProportionalMode(12.0, 0.02, {1.0, 0.4, 0.6}, 40.0),
          ProportionalMode(25.0, 0.015, {-0.5, 1.0, 0.3}, 30.0),
          ProportionalMode(41.0, 0.01, {0.3, -0.6, 1.0}, 25.0)};
}

}  // namespace frfit::test
