// Spectra of windowed records on chosen lines, and the FRF estimators over averaged hits.
// A direct DFT on the band's lines only: the band is a small part of the N/2 lines an FFT would
// give, and the project has no FFT library (X_k = Σ x_n e^{−2πi·k·n/N}, numpy's sign and scale).
#pragma once

#include <complex>
#include <string>
#include <vector>

namespace frfit {

// DFT of x at the given bins (0 ≤ bin < N). The twiddles come from a table indexed by k·n mod N,
// so a long record loses no accuracy to large phase arguments.
std::vector<std::complex<double>> DftAtBins(const std::vector<double>& x, const std::vector<int>& bins);

// H1 = G_fx/G_ff (noise on the response averages out), H2 = G_xx/G_xf (noise on the force
// averages out), Hv: the total-least-squares estimate between them (equal noise on both, in
// the channels' units), the root of G_xf·H² − (G_xx − G_ff)·H − G_fx = 0 of smaller residual.
enum class FrfEstimator { kH1, kH2, kHv };
std::string ToString(FrfEstimator estimator);
bool FromString(const std::string& text, FrfEstimator* estimator);

// Sums over hits of one force channel and one response at one line.
struct CrossSpectra {
  double gff = 0.0, gxx = 0.0;
  std::complex<double> gfx;  // Σ conj(F)·X
  void Add(std::complex<double> f, std::complex<double> x) {
    gff += std::norm(f);
    gxx += std::norm(x);
    gfx += std::conj(f) * x;
  }
};
std::complex<double> Estimate(const CrossSpectra& s, FrfEstimator estimator);
// Ordinary coherence γ² = |G_fx|²/(G_ff·G_xx) (1 for a single hit, so one hit gives no noise).
double Coherence(const CrossSpectra& s);

}  // namespace frfit
