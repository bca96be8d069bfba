// Closed forms of beam vibration written for the tests, independent of frfit's finite elements:
// the roots of the Euler–Bernoulli frequency equations, the Timoshenko pinned-pinned quadratic and
// clamped-free frequency determinant, and the receptance of a continuous Euler–Bernoulli beam on a
// rotational spring with a tip mass.
#pragma once

#include <cmath>
#include <complex>
#include <functional>
#include <vector>

namespace frfit::test {

// Roots of f on (lo, hi) by sign changes on a grid of `steps` then bisection to the last bit.
inline std::vector<double> Roots(const std::function<double(double)>& f, double lo, double hi,
                                 int steps, size_t count) {
  std::vector<double> roots;
  double a = lo, fa = f(a);
  for (int i = 1; i <= steps && roots.size() < count; ++i) {
    const double b = lo + (hi - lo) * i / steps, fb = f(b);
    if ((fa < 0) != (fb < 0)) {
      double x0 = a, x1 = b, f0 = fa;
      for (int k = 0; k < 200 && x1 - x0 > 1e-15 * std::abs(x1); ++k) {
        const double m = 0.5 * (x0 + x1), fm = f(m);
        if ((fm < 0) == (f0 < 0)) x0 = m, f0 = fm;
        else x1 = m;
      }
      roots.push_back(0.5 * (x0 + x1));
    }
    a = b, fa = fb;
  }
  return roots;
}

struct Section {
  double E, G, rho, A, I, kappa;  // I: the bending plane's second moment
};

// Euler–Bernoulli: ω_n = (β_n L)² √(EI/ρA)/L² with cos βL cosh βL = sign (free-free +1 without
// the rigid modes, clamped-free −1), written as cos x − sign/cosh x for large x.
inline std::vector<double> EulerBernoulliOmegas(const Section& s, double L, double sign, size_t count) {
  const auto x = Roots([&](double v) { return std::cos(v) - sign / std::cosh(v); }, 0.5, 60.0,
                       20000, count);
  std::vector<double> omegas;
  for (double v : x) omegas.push_back(v * v / (L * L) * std::sqrt(s.E * s.I / (s.rho * s.A)));
  return omegas;
}

// Timoshenko pinned-pinned, mode n (k = nπ/L): the lower root ω² of
// ρAρI ω⁴ − ω²(k²κGAρI + k²ρA·EI + ρA·κGA) + κGA·EI·k⁴ = 0.
inline double TimoshenkoPinnedOmega(const Section& s, double L, int n) {
  const double k = n * M_PI / L, kga = s.kappa * s.G * s.A, ra = s.rho * s.A, ri = s.rho * s.I;
  const double a = ra * ri, b = -(k * k * kga * ri + k * k * ra * s.E * s.I + ra * kga),
               c = kga * s.E * s.I * std::pow(k, 4);
  const double w2 = (-b - std::sqrt(b * b - 4 * a * c)) / (2 * a);
  return std::sqrt(w2);
}

// Timoshenko clamped-free: the 4×4 determinant of w(0) = ψ(0) = 0, ψ'(L) = 0, w'(L) − ψ(L) = 0
// for w = C1 cosh ax + C2 sinh ax + C3 cos bx + C4 sin bx (below the cut-off frequency).
inline double TimoshenkoClampedFreeDeterminant(const Section& s, double L, double omega) {
  const double kga = s.kappa * s.G * s.A, ei = s.E * s.I, ra = s.rho * s.A, ri = s.rho * s.I;
  const double w2 = omega * omega;
  const double qa = kga * ei, qb = (kga * ri + ra * ei) * w2, qc = ra * w2 * (ri * w2 - kga);
  const double disc = std::sqrt(qb * qb - 4 * qa * qc);
  const double s1 = (-qb + disc) / (2 * qa), s2 = (-qb - disc) / (2 * qa);
  const double a = std::sqrt(s1), b = std::sqrt(-s2), c = ra * w2 / kga;
  const double al = (a * a + c) / a, be = (b * b - c) / b;
  const double ch = std::cosh(a * L), sh = std::sinh(a * L), co = std::cos(b * L), si = std::sin(b * L);
  const double m[4][4] = {{1, 0, 1, 0},
                          {0, al, 0, be},
                          {al * a * ch, al * a * sh, -be * b * co, -be * b * si},
                          {(a - al) * sh, (a - al) * ch, -(b - be) * si, (b - be) * co}};
  // Laplace expansion of a 4×4.
  auto det3 = [](double x[3][3]) {
    return x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) -
           x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0]) +
           x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]);
  };
  double det = 0.0;
  for (int j = 0; j < 4; ++j) {
    double minor[3][3];
    for (int r = 1; r < 4; ++r)
      for (int c2 = 0, k = 0; c2 < 4; ++c2)
        if (c2 != j) minor[r - 1][k++] = m[r][c2];
    det += (j % 2 ? -1.0 : 1.0) * m[0][j] * det3(minor);
  }
  return det / std::cosh(a * L);  // scaled: the roots are the same, the numbers stay moderate
}

// An Euler–Bernoulli beam (complex bending stiffness ei, mass per length rho_a) on a rotational
// spring kt at x = 0 (w(0) = 0, EI w''(0) = kt w'(0); `clamped`: w'(0) = 0 instead) with a point
// mass m at x = L (EI w''(L) = 0, EI w'''(L) = −ω² m w(L) − F): the boundary conditions on
// w = C1 cos βx + C2 sin βx + C3 cosh βx + C4 sinh βx, β⁴ = ω²ρA/EI, with F = 1 in column 4.
struct SpringTipMassBeam {
  std::complex<double> a[4][5];
  std::complex<double> co, si, ch, sh;
};

inline SpringTipMassBeam SpringTipMassSystem(std::complex<double> ei, double rho_a, double L,
                                             std::complex<double> kt, bool clamped, double m,
                                             double omega) {
  using C = std::complex<double>;
  const C beta = std::pow(omega * omega * rho_a / ei, 0.25);
  const C b2 = beta * beta, b3 = b2 * beta, w2m = omega * omega * m;
  SpringTipMassBeam s;
  s.co = std::cos(beta * L), s.si = std::sin(beta * L), s.ch = std::cosh(beta * L),
  s.sh = std::sinh(beta * L);
  const C rows[4][5] = {
      {1.0, 0.0, 1.0, 0.0, 0.0},
      {clamped ? C(0) : -ei * b2, clamped ? beta : -kt * beta, clamped ? C(0) : ei * b2,
       clamped ? beta : -kt * beta, 0.0},
      {-s.co, -s.si, s.ch, s.sh, 0.0},
      {ei * b3 * s.si + w2m * s.co, -ei * b3 * s.co + w2m * s.si, ei * b3 * s.sh + w2m * s.ch,
       ei * b3 * s.ch + w2m * s.sh, -1.0}};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) s.a[r][c] = rows[r][c];
  return s;
}

// Gaussian elimination with partial pivoting of s.a in place; returns det of the 4×4 part.
inline std::complex<double> Eliminate(SpringTipMassBeam* s) {
  std::complex<double> det = 1.0;
  auto& a = s->a;
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (p != c) {
      for (int k = 0; k < 5; ++k) std::swap(a[c][k], a[p][k]);
      det = -det;
    }
    det *= a[c][c];
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const std::complex<double> f = a[r][c] / a[c][c];
      for (int k = c; k < 5; ++k) a[r][k] -= f * a[c][k];
    }
  }
  return det;
}

// The frequency determinant (real for real ei, kt): zero at the natural frequencies.
inline double SpringTipMassDeterminant(double ei, double rho_a, double L, double kt, bool clamped,
                                       double m, double omega) {
  SpringTipMassBeam s = SpringTipMassSystem(ei, rho_a, L, kt, clamped, m, omega);
  return Eliminate(&s).real() / std::cosh(std::pow(omega * omega * rho_a / ei, 0.25) * L);
}

// w(L)/F of that beam.
inline std::complex<double> SpringTipMassReceptance(std::complex<double> ei, double rho_a, double L,
                                                    std::complex<double> kt, bool clamped,
                                                    double m, double omega) {
  SpringTipMassBeam s = SpringTipMassSystem(ei, rho_a, L, kt, clamped, m, omega);
  Eliminate(&s);
  std::complex<double> x[4];
  for (int c = 0; c < 4; ++c) x[c] = s.a[c][4] / s.a[c][c];
  return x[0] * s.co + x[1] * s.si + x[2] * s.ch + x[3] * s.sh;
}

}  // namespace frfit::test
