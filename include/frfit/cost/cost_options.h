// CostOptions: how simulated and measured FRFs are compared (paper Eq. 22 and its variants).
// A plain value type; every field has a default and IsValid names the field it rejects.
#pragma once

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "frfit/frf/frf_format.h"
#include "frfit/frf/frf_set.h"  // Symmetrization

namespace frfit {

enum class CostType {
  kLogComplex,         // Σ W |log H_s − log H|²   (paper Eq. 22; the default)
  kLogMagnitude,       // Σ W (log|H_s| − log|H|)²
  kNormalizedComplex,  // Σ W |H_s − H|² / Σ W |H|²   (papers/003)
};
std::string ToString(CostType type);
bool FromString(const std::string& text, CostType* type);

// Branch of the complex logarithm in kLogComplex (docs/decisions.md):
//   wrapped         — arg H_s − arg H wrapped into (−π, π], i.e. the principal log of H_s/H.
//   principal_logs  — Log H_s − Log H, each principal: Eq. 22 read literally; jumps by 2π where
//                     one FRF crosses the negative real axis and the other does not.
enum class PhaseMode { kWrapped, kPrincipalLogs };
std::string ToString(PhaseMode mode);
bool FromString(const std::string& text, PhaseMode* mode);

// kNoise: the maximum-likelihood weights of the noise model (docs/noise.md): each line and entry
// weighted by the inverse variance of its residual, 1/σ²_log = |H|²/σ_H² for the log costs and
// 1/σ_H² for normalized_complex (which is then not normalised). kPeaks: the paper's peak gains.
enum class WeightMode { kPeaks, kUniform, kBands, kNoise };
std::string ToString(WeightMode mode);
bool FromString(const std::string& text, WeightMode* mode);

// A user weight rule: lines in [from_hz, to_hz] of the listed entries get `gain`.
struct WeightBand {
  double from_hz = 0.0;
  double to_hz = 0.0;
  double gain = 1.0;
  std::array<bool, 9> entries{true, true, true, true, true, true, true, true, true};
};

struct WeightOptions {
  // The default: the noise model's maximum-likelihood weights (docs/noise.md); kPeaks reproduces
  // the paper (fit_paper.yaml).
  WeightMode mode = WeightMode::kNoise;
  // Peak picking as in the paper: `peak_gain` at each peak of |H| and ±peak_halfwidth_lines
  // around it, `base_gain` on every other line (paper: 50 and 0.5, ±2 lines; KUKA: 80 and 0.5).
  double peak_gain = 50.0;
  double base_gain = 0.5;
  int peak_halfwidth_lines = 2;
  // A local maximum counts as a peak when it stands this much above the higher of the two valleys
  // that separate it from higher neighbours (its topographic prominence; guards against noise
  // ripples in measured data).
  double min_prominence_db = 3.0;
  // A peak lower than the highest peak of the same curve by more than this is no resonance: the
  // numerical bumps of a cross FRF near an antiresonance sit 70 to 115 dB below the real peaks
  // of the bundled datasets, whose real peaks lie within 47 dB of the highest. Three decades.
  double peak_floor_db = 60.0;
  // Peaks found per entry (each FRF its own peaks), or on Σ|H_ii| and applied to every entry.
  bool peaks_per_entry = true;
  // When not empty, these frequencies are the peaks (nearest line each), for every entry.
  std::vector<double> peak_frequencies_hz;
  // Instead of detected maxima, the modes `frfit ema` estimates from the prepared measured FRFs
  // (in band, symmetrised, in the fitted format) are the peaks, nearest line each, for every
  // entry: no weight on a bump that is no resonance. Mode peaks only; off by default.
  bool ema_peaks = false;
  // kBands: every line gets base_gain, then each band in order overrides its lines and entries.
  std::vector<WeightBand> bands;
  // kNoise: the search (not the refinement passes after it, fit/fit_passes.h) multiplies the
  // weights at peaks that stand clear of the noise — a local maximum prominent by
  // min_prominence_db, 10 dB above its noise and 3σ above its valleys (ClearPeaks, problem.h) —
  // and ±peak_halfwidth_lines around them
  // by this: resonances steer the global search as in the paper, noise bumps never do; the
  // refinement passes then use the plain noise weights. 1: off. (The default is the paper's gain
  // for the 3-joint example: with it the log_magnitude cost finds every one of 20 noise-free KUKA
  // truths drawn over the bounds, 18 without; the other costs all 20 either way.)
  double search_peak_gain = 50.0;
};

// Where a fit's noise model comes from (docs/noise.md):
//   auto      the FRF file's (a variance, or coherence and averages) when it carries one, else
//             estimated from the measured FRFs themselves;
//   file      the file's, and an error naming the file when it has none;
//   estimate  estimated from the data even when the file carries one.
enum class NoiseSource { kAuto, kFile, kEstimate };
std::string ToString(NoiseSource source);
bool FromString(const std::string& text, NoiseSource* source);

struct NoiseOptions {
  NoiseSource source = NoiseSource::kAuto;
  // With noise weights: after the search, this many passes of the refinement from its result,
  // each with the weights recomputed from the model's FRF there instead of the measured one
  // (|H_s|²/σ² instead of |H|²/σ²: a measured |H| under the noise floor is the noise's, and
  // weighting a line by it gives the noise a say). Iteratively reweighted least squares; 0: off.
  int reweight_passes = 2;
};

// A robust loss on each entry's weighted error (kernels/line_cost.h, docs/noise.md): none (least
// squares), huber or cauchy, with its scale c in the weighted residual's units — with noise
// weights, noise standard deviations. The same loss in every stage (GA, Nelder–Mead, and
// Levenberg–Marquardt by iteratively reweighted least squares).
enum class LossType { kNone, kHuber, kCauchy };
std::string ToString(LossType type);
bool FromString(const std::string& text, LossType* type);

struct LossOptions {
  LossType type = LossType::kNone;
  double scale = 3.0;
};

struct CostOptions {
  CostType type = CostType::kLogComplex;
  PhaseMode phase = PhaseMode::kWrapped;
  FrfFormat fit_format = FrfFormat::kInertance;  // the measured data are converted to it
  double band_min_hz = 0.0;                      // lines outside [min, max] are not fitted
  double band_max_hz = std::numeric_limits<double>::infinity();
  // Which of the nine entries are fitted (xx, xy, xz, yx, ...); entries the file lacks are skipped.
  std::array<bool, 9> entries{true, true, true, true, true, true, true, true, true};
  Symmetrization symmetrization = Symmetrization::kNone;
  // A measured line that is zero, NaN or infinite in a fitted entry is an error naming the line,
  // unless drop_bad_lines is set; then the whole line is left out (and reported).
  bool drop_bad_lines = false;
  WeightOptions weights;
  NoiseOptions noise;
  LossOptions loss;

  bool IsValid(std::string* error) const;
};

// Parses "xx", "xy", ... into an entry index (0..8); -1 when not an entry name.
int ParseEntryName(const std::string& text);

}  // namespace frfit
