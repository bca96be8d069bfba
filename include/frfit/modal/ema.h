// Experimental modal analysis (EMA) of a measured FRF set, `frfit ema` (docs/ema.md): poles by the
// least-squares complex-frequency method over model orders 1…max (lscf.h), their stabilisation
// diagram and the automatic choice of the stable columns (stabilisation.h), then residues, mode
// shapes and the modal model's FRFs by LSFD (lsfd.h). The modes it gives are the reference of a
// fit's modal comparison when the FRFs carry no known parameters (measured data).
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "frfit/frf/frf_set.h"
#include "frfit/modal/modal.h"
#include "frfit/modal/stabilisation.h"

namespace frfit {

struct EmaOptions {
  // Lines with f in [band_min_hz, band_max_hz] and f > 0 are used; poles outside are ignored.
  double band_min_hz = 0.0;
  double band_max_hz = std::numeric_limits<double>::infinity();
  // Highest polynomial order. 0: 120/m (40 with three references, 120 for the common-denominator
  // LSCF), clipped to what the lines can determine.
  int max_order = 0;
  StabilisationCriteria criteria;
  // Called with (steps done, steps) when set: one step per model order of the diagram, then one
  // per refinement of the modal model (as many as there are candidate columns, at most).
  std::function<void(std::size_t, std::size_t)> progress;

  // Names the offending field ("band", "max_order", "criteria.min_mac", …).
  bool IsValid(std::string* error) const;
};

struct EmaMode {
  // eigenvalue, frequency_hz, damping_ratio, sensor_shape (no joint shape); a transfer set's
  // sensor_shape is the response point's φ_a (lsfd.h).
  Mode mode;
  int stable_poles = 0;  // fully stable poles in its column of the diagram
  int lowest_order = 0;  // the order where it first became stable
  // The selection test (criteria.min_contribution): how much the modal model's misfit grows
  // without this mode, relative to its misfit with it (0.5: by half). Against the misfit, which is
  // the noise's, it reads like a signal-to-noise ratio: huge on noise-free data (1e28), where the
  // misfit is rounding. For people, `explained` is the readable one.
  double contribution = 0.0;
  // The share of the measured response (the same relative weights) only this mode explains: what
  // the modal model's misfit grows by without it, over the misfit of a model without any mode. In
  // [0, 1]; together at most 1 — the rest is what the other modes and the residual terms can take
  // over when one mode is left out.
  double explained = 0.0;
  // 1σ of the frequency (Hz) and damping ratio from the covariance of the output-error fit of the
  // poles (pole_refinement.h); NaN where the fit did not move the pole (it left the band).
  double frequency_sigma_hz = std::numeric_limits<double>::quiet_NaN();
  double damping_sigma = std::numeric_limits<double>::quiet_NaN();
  // Modal phase collinearity and mean phase deviation (degrees) of the residues of the measured
  // entries (mode_complexity.h): 1 and 0° for a real mode.
  double mpc = std::numeric_limits<double>::quiet_NaN();
  double mpd_deg = std::numeric_limits<double>::quiet_NaN();
  std::array<std::complex<double>, 9> residues{};  // receptance residues R_ij; 0 where absent
};

// A column of the stabilisation diagram that is not a mode, and why: every one frfit ema says.
enum class EmaDropReason {
  kFewStablePoles,  // fewer than min_stable_poles stable poles (but at least 3)
  kContribution,    // the modal model fits about as well without it (criteria.min_contribution)
};
std::string ToString(EmaDropReason reason);  // "few_stable_poles", "contribution"

struct EmaDropped {
  double frequency_hz = 0.0;  // the column's median, or the refined pole when it was refined
  double damping_ratio = 0.0;
  int stable_poles = 0;
  EmaDropReason reason = EmaDropReason::kContribution;
  // kContribution: its misfit growth when it was dropped; NaN for kFewStablePoles.
  double contribution = std::numeric_limits<double>::quiet_NaN();
};

struct EmaResult;
// "5 stable poles, a mode needs 10 (--min-stable)", "misfit growth without it 0.8 % is below
// --min-contribution 2 %: …": the reason in words.
std::string DescribeDropped(const EmaDropped& dropped, const EmaResult& result);

struct EmaResult {
  std::string source;           // the FRF file (or what the caller named)
  EmaOptions options;           // as given
  std::string method;           // "plscf" (poly-reference) or "lscf" (common denominator)
  std::vector<int> references;  // pLSCF's reference (excitation) axes; empty for lscf
  double band_min_hz = 0.0, band_max_hz = 0.0;  // the lowest and highest line used
  int max_order = 0;                            // used
  int min_stable_poles = 0;                     // used
  double sampling_time_s = 0.0;                 // Δt of the z-domain basis
  int refinement_iterations = 0;                // Levenberg-Marquardt steps of the pole refinement
  std::vector<StabilisationPole> poles;         // every order's candidate poles: the diagram
  std::vector<EmaMode> modes;                   // sorted by frequency
  std::vector<EmaDropped> dropped;              // columns not kept, sorted by frequency
  FrfSet measured;                              // the lines used
  FrfSet synthesized;                           // the modal model at those lines
  // The set's exponential window, taken out of the modes' poles (+inf: none).
  double exponential_window_tau_s = std::numeric_limits<double>::infinity();
};

// FRFs measured under an exponential window exp(−t/τ) (set.exponential_window_tau_s) hold every
// pole moved by −1/τ (the window's added damping ratio, 1/(τ·ω)): the modes come back with it
// taken out, their damping the structure's (Im λ, the frequency, unchanged; the stabilisation
// diagram and the modal model keep the poles as measured).
// Throws Error naming `source` when the options are invalid, no entry is present, or the band
// holds too few lines for order 1. A set without stable poles gives a result without modes.
EmaResult EstimateModes(const FrfSet& set, const EmaOptions& options, const std::string& source);

// The modes alone, as the modal comparison takes them.
std::vector<Mode> ModesOf(const EmaResult& result);

// "pLSCF (references x, y, z), orders 1-40; stable: Δf ≤ 1 %, Δζ ≤ 5 %, MAC ≥ 0.98, 0 < ζ < 20 %,
// at least 10 stable poles": what was done, in one line, for reports and descriptions.
std::string DescribeMethod(const EmaResult& result);

}  // namespace frfit
