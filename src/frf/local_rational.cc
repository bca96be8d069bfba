#include "src/frf/local_rational.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frfit {
namespace {

using Complex = std::complex<double>;
constexpr int kUnknowns = 5;  // numerator of degree 2, denominator of degree 2 with D(0) = 1

double Abs2(Complex c) { return c.real() * c.real() + c.imag() * c.imag(); }

// Eigen's division of a vectorised assignment (pdiv<Packet1cd>): a·conj(b) / |b|², not the C
// library's scaled complex division.
Complex PacketDivide(Complex a, Complex b) {
  const double d = b.real() * b.real() + b.imag() * b.imag();
  return Complex((a.real() * b.real() + a.imag() * b.imag()) / d,
                 (a.imag() * b.real() - a.real() * b.imag()) / d);
}

// Σ conj(e_i)·b_i as Eigen's vectorised reductions sum (dot products, inner products): two
// accumulators over even and odd terms, joined, then an odd last term.
Complex PairwiseDot(const Complex* e, const Complex* b, int n) {
  if (n == 1) return std::conj(e[0]) * b[0];
  Complex even = std::conj(e[0]) * b[0], odd = std::conj(e[1]) * b[1];
  const int end2 = n / 2 * 2;
  for (int i = 2; i < end2; i += 2) {
    even = even + std::conj(e[i]) * b[i];
    odd = odd + std::conj(e[i + 1]) * b[i + 1];
  }
  even = even + odd;
  if (n > end2) even = even + std::conj(e[end2]) * b[end2];
  return even;
}

// Σ conj(e_i)·b_i as Eigen's matrix-vector kernel sums one column: in order, from zero.
Complex SequentialDot(const Complex* e, const Complex* b, int n) {
  Complex sum = std::conj(e[0]) * b[0];
  for (int i = 1; i < n; ++i) sum = std::conj(e[i]) * b[i] + sum;
  return sum;
}

// Eigen's applyHouseholderOnTheLeft on rows [0, rows) of `columns` columns of a column-major
// block (leading dimension ld): H = I − τ·v·vᴴ with v = (1, essential). `vector_rhs` says the
// block is a vector at compile time (then Eigen's product is an inner product, summed pairwise);
// a block of one column at run time falls back to a dot product, summed likewise.
void ApplyHouseholder(Complex* block, int ld, int rows, int columns, const Complex* essential,
                      Complex tau, bool vector_rhs, std::vector<Complex>* scaled) {
  if (rows == 1) {
    for (int j = 0; j < columns; ++j) block[j * ld] *= Complex(1) - tau;
    return;
  }
  if (tau == Complex(0)) return;
  const int n = rows - 1;
  scaled->resize(n);
  for (int i = 0; i < n; ++i) (*scaled)[i] = tau * essential[i];
  for (int j = 0; j < columns; ++j) {
    Complex* col = block + j * ld;
    Complex tmp;
    if (vector_rhs)
      tmp = PairwiseDot(essential, col + 1, n);
    else if (columns == 1)
      tmp = Complex(0) + Complex(1) * PairwiseDot(essential, col + 1, n);
    else
      tmp = Complex(0) + Complex(1) * SequentialDot(essential, col + 1, n);
    tmp = tmp + col[0];
    col[0] = col[0] - tau * tmp;
    for (int i = 0; i < n; ++i) col[1 + i] = col[1 + i] - tmp * (*scaled)[i];
  }
}

// Eigen's makeHouseholderInPlace on one column of `rows` entries: the essential part replaces
// the tail; returns τ and β.
void MakeHouseholder(Complex* col, int rows, Complex* tau, double* beta) {
  double tail = 0.0;
  if (rows > 1) {
    tail = Abs2(col[1]);
    for (int i = 2; i < rows; ++i) tail = tail + Abs2(col[i]);
  }
  const Complex c0 = col[0];
  const double tol = std::numeric_limits<double>::min();
  if (tail <= tol && c0.imag() * c0.imag() <= tol) {
    *tau = 0.0, *beta = c0.real();
    for (int i = 1; i < rows; ++i) col[i] = 0.0;
    return;
  }
  *beta = std::sqrt(Abs2(c0) + tail);
  if (c0.real() >= 0.0) *beta = -*beta;
  const Complex denominator = c0 - *beta;
  for (int i = 1; i < rows; ++i) col[i] = PacketDivide(col[i], denominator);
  *tau = std::conj((*beta - c0) / *beta);
}

}  // namespace

bool LocalRationalSample(const FrfSet& set, int entry, int centre, int half_window,
                         double min_residual_share, LocalRationalWorkspace* ws, double* variance,
                         double* magnitude2) {
  const int lines = set.num_lines(), width = 2 * half_window + 1;
  const int first = std::clamp(centre - half_window, 0, lines - width);
  const double scale = 0.5 * (set.frequency_hz[first + width - 1] - set.frequency_hz[first]);
  std::vector<Complex>& x = ws->x;  // column-major, width × kUnknowns; then the QR's factors
  x.assign(static_cast<size_t>(width) * kUnknowns, Complex(0));
  ws->y.resize(width);
  for (int r = 0; r < width; ++r) {
    const int l = first + r;
    const double s = (set.frequency_hz[l] - set.frequency_hz[centre]) / scale;
    const Complex h = set.H[l * 9 + entry];
    double power = 1.0;
    for (int d = 0; d <= 2; ++d, power *= s) x[d * width + r] = power;
    power = s;
    for (int d = 1; d <= 2; ++d, power *= s) x[(2 + d) * width + r] = -h * power;
    ws->y[r] = h;
  }
  Complex tau[kUnknowns];
  for (int k = 0; k < kUnknowns; ++k) {
    Complex* col = &x[k * width + k];
    double beta;
    MakeHouseholder(col, width - k, &tau[k], &beta);
    col[0] = beta;
    ApplyHouseholder(col + width, width, width - k, kUnknowns - k - 1, col + 1, tau[k], false,
                     &ws->scaled);
  }
  // θ = R⁻¹·Qᴴ·y; only θ₀ = N(0) is used.
  std::vector<Complex>& c = ws->y;
  for (int k = 0; k < kUnknowns; ++k)
    ApplyHouseholder(&c[k], width, width - k, 1, &x[k * width + k + 1], tau[k], true, &ws->scaled);
  for (int i = kUnknowns - 1; i >= 0; --i) {
    if (c[i] == Complex(0)) continue;
    c[i] /= x[i * width + i];
    for (int m = 0; m < i; ++m) c[m] = c[m] - c[i] * x[i * width + m];
  }
  // The thin Q (householderQ() times the first columns of the identity), for the centre's
  // leverage: the squared norm of its row.
  std::vector<Complex>& q = ws->q;
  q.assign(static_cast<size_t>(width) * kUnknowns, Complex(0));
  for (int d = 0; d < kUnknowns; ++d) q[d * width + d] = 1.0;
  for (int k = kUnknowns - 1; k >= 0; --k)
    ApplyHouseholder(&q[k], width, width - k, kUnknowns, &x[k * width + k + 1], std::conj(tau[k]),
                     false, &ws->scaled);
  const int row = centre - first;
  double leverage = Abs2(q[row]);
  for (int d = 1; d < kUnknowns; ++d) leverage = leverage + Abs2(q[d * width + row]);
  if (!(1.0 - leverage >= min_residual_share)) return false;
  // s is the offset from the centre line, so there D = 1 and the model's value is N(0): the
  // linearised residual H·D − N is the FRF's own.
  const Complex h = set.H[centre * 9 + entry];
  *variance = std::norm(h - c[0]) / (1.0 - leverage);
  *magnitude2 = std::norm(c[0]);
  return std::isfinite(*variance) && std::isfinite(*magnitude2);
}

}  // namespace frfit
