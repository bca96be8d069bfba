// FrfSet: a 3×3 FRF matrix per frequency line at one posture, measured or synthesised, between a
// response point and an excitation point (frames of the model; the sensor unless named). It holds
// data only; reading and writing files lives under io/.
#pragma once

#include <array>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "frfit/frf/frf_format.h"

namespace frfit {

// Index of entry H_ij (i response axis, j excitation axis; x=0, y=1, z=2) in a row-major 3×3.
constexpr int EntryIndex(int i, int j) { return 3 * i + j; }
std::string EntryName(int entry);  // "xx", "xy", ... "zz"

struct FrfSet {
  std::string posture;                    // the model's posture name the data belong to
  // Where the response was measured and where the force was applied: names of model frames, each
  // axis in that frame's axes (H_ij: response along axis i of response_frame per unit force along
  // axis j of excitation_frame). Empty: the model's sensor (the tool tip), as in every file
  // before multi-point sets.
  std::string response_frame;
  std::string excitation_frame;
  FrfFormat format = FrfFormat::kInertance;
  std::vector<double> frequency_hz;       // strictly increasing, one per line
  // H[line * 9 + EntryIndex(i, j)], in the units of `format`. Entries not present hold 0.
  std::vector<std::complex<double>> H;
  std::array<bool, 9> present{};          // which of the nine entries were measured
  // The measurement's noise model, when it carries one (docs/noise.md): the variance
  // E|H_measured − H|² of each line and entry, [line * 9 + entry], in the units of `format`
  // squared; empty when unknown. noise_source says where it came from: "variance" (given as
  // such), "coherence" (from coherence and averages: (1 − γ²)/(n γ²)·|H|²), or "" when empty.
  std::vector<double> noise_variance;
  std::string noise_source;
  // Coherence γ² of each line and entry and the number of averages behind it, when the
  // measurement gives them ([line * 9 + entry]; empty and 0 otherwise).
  std::vector<double> coherence;
  int averages = 0;
  // Where the data came from (free text pairs: "model", "parameters", "source_file", ...).
  std::vector<std::pair<std::string, std::string>> provenance;
  // The exponential window exp(−t/τ) the FRFs were measured under (frfit frf
  // --exponential-window): its τ in seconds, +inf for none. It moves every pole by −1/τ; the EMA
  // takes that out (modal/ema.h). Files record it as the provenance's exponential_window_tau_s,
  // which the readers turn into this field (ExponentialWindowTauOf).
  double exponential_window_tau_s = std::numeric_limits<double>::infinity();

  int num_lines() const { return static_cast<int>(frequency_hz.size()); }
  std::complex<double>& at(int line, int i, int j) { return H[line * 9 + EntryIndex(i, j)]; }
  const std::complex<double>& at(int line, int i, int j) const {
    return H[line * 9 + EntryIndex(i, j)];
  }
};

// The exponential window's τ a provenance records (exponential_window_tau_s, the last one given),
// +inf when it records none or no τ > 0.
double ExponentialWindowTauOf(const std::vector<std::pair<std::string, std::string>>& provenance);

// Checks sizes, finiteness and ordering; throws Error naming `source` and the offending field.
void Validate(const FrfSet& set, const std::string& source);

// Returns the same data in another format (multiplies by (iω)^Δorder line by line, the noise
// variance by ω^(2Δorder)). Converting to a lower order at a 0 Hz line is an error.
FrfSet ConvertFormat(const FrfSet& set, FrfFormat to);

// The model is reciprocal (H_s = H_sᵀ); measured cross FRFs usually are not. Before a fit
// compares them (cost.symmetrization):
//   none          — fit the cross FRFs as measured
//   mirror_upper  — replace H_ji (i < j) by H_ij      mirror_lower — replace H_ij (i < j) by H_ji
//   average       — replace both by (H_ij + H_ji)/2
enum class Symmetrization { kNone, kMirrorUpper, kMirrorLower, kAverage };
std::string ToString(Symmetrization mode);
bool FromString(const std::string& text, Symmetrization* mode);

// The set made reciprocal as `mode` says, with the noise variance to match (the mean's is a
// quarter of the sum); an entry of a pair that is absent takes its partner's value. The coherence
// and its averages are dropped: they are the measured entries', not their mirror's or mean's.
FrfSet Symmetrize(const FrfSet& set, Symmetrization mode);

// The same set on the given lines only (indices into set's lines, increasing), with their noise
// variance and coherence.
FrfSet SelectLines(const FrfSet& set, const std::vector<int>& lines);

// The complex noise variance of an H1 estimate from its estimated coherence γ² and n averages,
// as a fit weighs by it: (1 − γ²)/((n − 2) γ²)·|H|². Bendat & Piersol (Random Data, 4th ed.,
// Table 9.6) give (1 − γ²)/(n γ²) for the true γ²; from the measured one, the residual variance
// has n − 1 complex degrees of freedom (one fitted: H), and a weight 1/σ² of such an estimate is
// biased high by (n − 1)/(n − 2): with n − 2 the fit's χ² has mean 1 (docs/decisions.md; with 5
// averages the plain formula made every fit a misfit, reduced χ² ≈ 1.7). n < 3 leaves 1/σ²
// without a mean: kMinAveragesForNoise. γ² = 0 gives +inf.
inline constexpr int kMinAveragesForNoise = 3;
double VarianceFromCoherence(std::complex<double> h, double coherence, int averages);

// Sets the noise model from set->coherence and set->averages (noise_source "coherence"), unless
// the set has a variance already. Validates the coherence first; Error names `source`. With
// fewer than kMinAveragesForNoise averages it sets none and warns: the fit estimates the noise.
void NoiseFromCoherence(FrfSet* set, const std::string& source);

}  // namespace frfit
