// The noise of measured FRFs estimated from the data alone, without a structural model, for fits
// of files that carry no noise model (docs/noise.md).
//
// At every line a local rational model N(s)/D(s) (numerator and denominator of degree 2, D(0) = 1,
// s the frequency offset from the line) is fitted by linear least squares to the 2R + 1 lines
// around it — the local rational method of McKelvey and Guérin (2012): a rational function follows
// a resonance that a local polynomial cannot. The residual at the centre line divided by
// 1 − its leverage is an unbiased sample of the noise variance there. The samples of each entry are
// pooled into the two-term model of an impact test,
//     σ²(line) = relative²·|Ĥ(line)|² + floor²,
// by maximum likelihood (a complex Gaussian residual's |r|² is σ²·Exp(1)), trimmed of samples the
// local model could not follow (two close modes in one window), Ĥ being the local model's value.
// Pooling two numbers per entry over all its lines is what makes the estimate usable: one line's
// sample has only a few degrees of freedom. The relative term is at least 1e-4 (no measurement is
// better than 0.01 %; on noise-free data the estimate would otherwise be the local models'
// rounding, which differs by decades between entries).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit {

struct NoiseEstimateOptions {
  int half_window_lines = 6;  // R: each local model sees 2R + 1 lines
};

struct NoiseEstimate {
  std::vector<double> variance;  // [line][9], E|H_measured − H|²; 0 where an entry is absent
  std::vector<double> smoothed_magnitude;  // |Ĥ| of the local models, [line][9]
  // Per entry: the pooled model's two terms (NaN where the entry is absent); floor in the units
  // of the set's format, relative as a fraction.
  std::array<double, 9> relative{}, floor{};
  int samples_used = 0, samples_trimmed = 0;  // over all entries
};

// Needs at least 2R + 2 lines. Throws Error naming `source` when the set is too short.
NoiseEstimate EstimateNoise(const FrfSet& set, const std::string& source,
                            const NoiseEstimateOptions& options = {});

// The two terms per entry that best describe a set's noise variance (set.noise_variance, from a
// file or an estimate), pooled as the estimate pools its samples, with the floor given as a
// fraction of each entry's peak |H|: how noisy a measurement at another posture would be
// (`frfit design`). NaN for entries the set lacks.
struct NoiseTerms {
  std::array<double, 9> relative{}, floor_of_peak{};
};
NoiseTerms PooledNoiseTerms(const FrfSet& set);

}  // namespace frfit
