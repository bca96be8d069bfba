// The natural logarithm of many values at once with the C library's bits (what std::log returns
// for each, four at a time where the CPU and the C library allow it), and the one sum of
// logarithms that needs it: the noise estimate's pooled likelihood (noise_estimate.cc), which
// takes a few million logarithms per FRF set and must keep the estimates of before to the bit.
#pragma once

#include <cstddef>

namespace frfit {

// out[i] = std::log(x[i]) for i < n, bit for bit. x and out may be the same array.
void LibmLogs(const double* x, double* out, std::size_t n);

// Σ_i log σ²_i + v_i/σ²_i with σ²_i = alpha·m_i + beta: the negative log-likelihood of samples
// v_i ~ σ²_i·Exp(1). Every term as the plain loop computes it (σ² rounded from alpha·m_i, then
// + beta; std::log's bits; the quotient; their sum), added in order from i = 0, so the result
// is the plain loop's to the bit.
double ExpNegLogLikelihood(const double* m, const double* v, std::size_t n, double alpha,
                           double beta);
// Its terms, terms[i] = log σ²_i + v_i/σ²_i, each as the plain loop computes it: for callers that
// add several such sums side by side (each still in order).
void ExpNegLogLikelihoodTerms(const double* m, const double* v, std::size_t n, double alpha,
                              double beta, double* terms);

// Whether LibmLogs runs four at a time here: the CPU has AVX2 and FMA, and the C library's log
// is the table-driven one (glibc 2.28 on, ARM's optimized-routines) that the four-wide copy
// reproduces, checked once on a probe set that visits every table cell. Otherwise it calls
// std::log value by value.
bool LibmLogsAreVectorised();

}  // namespace frfit
