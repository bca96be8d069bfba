// One sample of the noise estimate (noise_estimate.h): the local rational model of an FRF entry
// fitted around one line, by a complex Householder QR written out for the 2R+1 × 5 system. The
// arithmetic is Eigen's HouseholderQR, solve and householderQ() (Eigen 3.4, SSE2 packets of one
// complex: its division, its dot products' order) done in place on small arrays, so that every
// sample keeps the bits of before; it runs several times faster than Eigen's dynamic-size code,
// which allocated and dispatched per 13 × 5 matrix. tests/unit/frf/local_rational_test.cc holds
// Eigen's version and compares.
#pragma once

#include <complex>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit {

// Scratch of one thread, reused from line to line.
struct LocalRationalWorkspace {
  std::vector<std::complex<double>> x, y, q, scaled;
};

// The centre line's variance sample |r|²/(1 − h) and the model's |Ĥ|² there; false when the
// centre's leverage leaves less than `min_residual_share` of its variance or a value is not
// finite (the outputs are then unspecified).
bool LocalRationalSample(const FrfSet& set, int entry, int centre, int half_window,
                         double min_residual_share, LocalRationalWorkspace* ws, double* variance,
                         double* magnitude2);

}  // namespace frfit
