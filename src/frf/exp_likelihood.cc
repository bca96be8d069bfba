#include "src/frf/exp_likelihood.h"

#include <cmath>

namespace frfit {

// std::log value by value: a faster logarithm would have to reproduce the C library's last bits
// (which the estimates, and so every fitted result, depend on) with code of its own; the time is
// taken back elsewhere (the local models' QR, the entries' sums side by side).
void ExpNegLogLikelihoodTerms(const double* m, const double* v, std::size_t n, double alpha,
                              double beta, double* terms) {
  for (std::size_t i = 0; i < n; ++i) {
    const double sigma2 = alpha * m[i] + beta;
    terms[i] = std::log(sigma2) + v[i] / sigma2;
  }
}

}  // namespace frfit
