// The model check's statistics when the noise variance is itself an estimate (docs/noise.md,
// "When the noise is itself estimated"). With σ̂² from the coherence of n averages,
//     σ̂² = (1 − γ̂²)/((n − 2) γ̂²)·|Ĥ|² = RSS/((n − 2)·S),
// RSS = Σ_k |Y_k − Ĥ X_k|² the residual power of the n averages (σ_N²·Gamma(n − 1, 1)) and
// S = Σ_k |X_k|², while |Ĥ − H|² = (σ_N²/S)·Exp(1), independent of RSS (a regression's estimate
// and its residual). So |z|² = |Ĥ − H|²/σ̂² = (n − 2)/(n − 1)·F(2, 2n − 2), with
//     P(|z|² > t) = (1 + t/(n − 2))^−(n−1),
// a tail far heavier than the known variance's e^−t: at 5 averages a line passes |z|² = 30 with
// probability 7e-5, not 1e-13. The check maps each |z|² to the value of equal tail probability
// under the known-variance law, |w|² = (n − 1)·log(1 + |z|²/(n − 2)) (w keeps z's phase, which is
// uniform and independent of |z| under either law), so w is CN(0, 1) exactly when the model is
// right, and every test built for a known variance holds on w.
#pragma once

#include <array>

#include "frfit/frf/frf_set.h"

namespace frfit {

// Per entry (EntryIndex) the number of averages n behind its noise variance when that variance
// is the coherence estimate above; 0 when it is taken as known (a variance given as such, or the
// estimate from the FRFs: docs/noise.md). A set whose noise_source is "coherence" has the set's
// averages. A "variance" set that carries coherence and averages (frfit frf writes one when the
// hammer directions kept different numbers of hits) has per entry the n at which its variance is
// the coherence formula on every line with 0 < γ² < 1, if there is one.
std::array<int, 9> VarianceAverages(const FrfSet& set);

// |w|² for |z|² = z2 of an entry whose variance rests on `averages` averages (0: z2 itself).
double KnownVarianceEquivalent(double z2, int averages);

}  // namespace frfit
