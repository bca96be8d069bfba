#include "src/frf/exp_likelihood.h"

namespace frfit {

// With c the term differentiated (β, or α) and d_i = ∂σ²_i/∂c (1, or m_i):
//   ∂/∂c   = Σ d_i (σ²_i − v_i)/σ⁴_i
//   ∂²/∂c² = Σ d_i² (2v_i − σ²_i)/σ⁶_i
// and in x = log c: first = c·∂/∂c, second = c·∂/∂c + c²·∂²/∂c².
LogSlope ExpNegLogLikelihoodSlope(const double* m, const double* v, std::size_t n, double alpha,
                                  double beta, bool wrt_alpha) {
  // Four sums side by side: one chain of additions would wait on each one before.
  double first[4] = {0, 0, 0, 0}, second[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  auto add = [&](std::size_t k, int lane) {
    const double r = 1.0 / (alpha * m[k] + beta);
    const double q = v[k] * r;
    const double a = wrt_alpha ? m[k] * r : r;
    first[lane] += a * (1.0 - q);
    second[lane] += a * a * (2.0 * q - 1.0);
  };
  for (; i + 4 <= n; i += 4)
    for (int lane = 0; lane < 4; ++lane) add(i + lane, lane);
  for (int lane = 0; i < n; ++i, ++lane) add(i, lane);
  const double c = wrt_alpha ? alpha : beta;
  const double d1 = (first[0] + first[1]) + (first[2] + first[3]);
  const double d2 = (second[0] + second[1]) + (second[2] + second[3]);
  return {c * d1, c * d1 + c * c * d2};
}

}  // namespace frfit
