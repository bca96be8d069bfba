// Poles of a measured FRF set by the least-squares complex-frequency method (LSCF), in its
// poly-reference form (pLSCF, "PolyMAX") when the measured entries form a full block of outputs ×
// references, and as the common-denominator LSCF (one reference per row) otherwise. It estimates
// poles only, order by order; stability across orders and mode shapes live in stabilisation.h and
// lsfd.h. No model is involved: the FRFs are all it reads.
//
// The model (right matrix fraction, z-domain basis Ω_k = exp(−iω_kΔt), Δt = 1/(2 f_max) so that
// the band maps onto the upper half of the unit circle):
//   H_r(ω_k) ≈ B_r(Ω_k) A(Ω_k)⁻¹,  B_r(Ω) = Σ_a Ω^a β_r,a (1×m),  A(Ω) = Σ_a Ω^a α_a (m×m),
// real coefficients (so poles come in conjugate pairs), α_n = I. The numerator coefficients are
// eliminated from the normal equations (the reduced normal equations of PolyMAX), which need only
// sums over lines at lags −n…n: they are formed once for the highest order and every lower order is
// solved from their leading blocks.
#pragma once

#include <Eigen/Core>
#include <array>
#include <complex>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit {

// Which entries the estimator reads, as rows of m entries sharing one reference order.
struct LscfLayout {
  bool poly_reference = false;
  std::vector<int> references;         // excitation axes (0 x, 1 y, 2 z) of the m columns
  std::vector<std::vector<int>> rows;  // EntryIndex of each row's m entries, in reference order
  int m() const { return poly_reference ? static_cast<int>(references.size()) : 1; }
};

// pLSCF when the present entries are exactly a full block (the outputs that have every one of the
// references, at least two references); the common-denominator LSCF on every present entry
// otherwise. Throws nothing; an empty `present` gives an empty layout.
LscfLayout ChooseLayout(const std::array<bool, 9>& present);

// One pole of one model order.
struct LscfPole {
  std::complex<double> eigenvalue;  // s = −ln(z)/Δt, rad/s; Im s ≥ 0 (one of each conjugate pair)
  // The pole's residue direction over the layout's entries (row-major, rows × m): ψ_r·w_j with
  // ψ_r = B_r(z)v, A(z)v = 0, wᵀA(z) = 0. Compared across orders by MAC (the vector criterion).
  Eigen::VectorXcd vector;
};

class LscfEstimator {
 public:
  // `lines` are the line indices of `set` to use (in band, f > 0); at least two. The highest order
  // is clipped to what the lines can determine (MaxOrderFor).
  LscfEstimator(const FrfSet& set, const std::vector<int>& lines, const LscfLayout& layout,
                int max_order);
  // Any block of FRFs, as a campaign's (campaign/campaign_ema.h): rows[r][j] points at row r's
  // FRF against reference column j, one value per line of `frequency_hz`; every row has the same
  // m columns (1: the common-denominator LSCF). After its scaling to unit rms each row is
  // multiplied by row_weight[r] (its quality: a noisy FRF counts less, never vetoes the others).
  LscfEstimator(const std::vector<double>& frequency_hz, const std::vector<int>& lines,
                const std::vector<std::vector<const std::complex<double>*>>& rows,
                const std::vector<double>& row_weight, int max_order);

  int max_order() const { return max_order_; }
  double sampling_time_s() const { return dt_; }
  // Poles of the model of polynomial order `order` (1…max_order), Im s ≥ 0, unsorted.
  std::vector<LscfPole> Poles(int order) const;

 private:
  LscfLayout layout_;
  int max_order_ = 0;
  double dt_ = 0.0;
  // Lag sums over lines, index d + max_order for lag d ∈ [−n, n]:
  std::vector<double> c_;                         // Σ cos(dθ)
  std::vector<std::vector<Eigen::VectorXcd>> p_;  // [row][lag](j): Σ e^{−idθ} H_rj
  std::vector<std::vector<Eigen::MatrixXcd>> q_;  // [row][lag](i,j): Σ e^{−idθ} conj(H_ri) H_rj

  // The lag sums from value(row, column, line), each row scaled to unit rms times its weight.
  template <typename Value>
  void Accumulate(const std::vector<double>& frequency_hz, const std::vector<int>& lines,
                  size_t rows, const std::vector<double>& row_weight, Value value);
};

// The highest polynomial order that `lines` lines can determine for `layout`: the (n+1)×(n+1)
// matrix Re(XᴴX) must be regular (n + 1 ≤ 2·lines − 2) and the unknowns (every row's numerator
// and the shared denominator) fewer than the real equations. 0 when not even order 1 is.
int MaxOrderFor(int lines, const LscfLayout& layout);

}  // namespace frfit
