// The logarithms of the noise estimate's pooled likelihood (noise_estimate.cc), which takes a few
// million of them per FRF set and must keep the estimates of before to the bit: every value is
// std::log's, every sum is added in the plain loop's order.
#pragma once

#include <cstddef>

namespace frfit {

// The terms of Σ_i log σ²_i + v_i/σ²_i with σ²_i = alpha·m_i + beta, the negative log-likelihood
// of samples v_i ~ σ²_i·Exp(1): terms[i] = log σ²_i + v_i/σ²_i, each as the plain loop computes
// it (σ² rounded from alpha·m_i, then + beta; std::log; the quotient; their sum), for callers
// that add several such sums side by side (each still in order).
void ExpNegLogLikelihoodTerms(const double* m, const double* v, std::size_t n, double alpha,
                              double beta, double* terms);

}  // namespace frfit
