// The slope of the noise estimate's pooled likelihood (noise_estimate.cc), which its Newton steps
// follow: Σ_i log σ²_i + v_i/σ²_i, σ²_i = alpha·m_i + beta, the negative log-likelihood of samples
// v_i ~ σ²_i·Exp(1), differentiated in the logarithm of one of its two terms. No logarithm is
// taken: the minimum is where the slope vanishes.
#pragma once

#include <cstddef>

namespace frfit {

// d/dx and d²/dx² of the sum, x = log beta (wrt_alpha false) or x = log alpha (true).
struct LogSlope {
  double first = 0.0, second = 0.0;
};
LogSlope ExpNegLogLikelihoodSlope(const double* m, const double* v, std::size_t n, double alpha,
                                  double beta, bool wrt_alpha);

}  // namespace frfit
