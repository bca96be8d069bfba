// A complex double with the arithmetic spelled out, for code shared by host and device.
// std::complex and cuda::std::complex may implement × and ÷ differently (and std::complex's
// division may call library functions); writing each operation here fixes the rounding sequence.
#pragma once

#include "frfit/common/host_device.h"

namespace frfit::kernels {

struct Cplx {
  double re;
  double im;
};

FRFIT_HOST_DEVICE FRFIT_INLINE Cplx Add(Cplx a, Cplx b) { return {a.re + b.re, a.im + b.im}; }
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx Sub(Cplx a, Cplx b) { return {a.re - b.re, a.im - b.im}; }
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx Mul(Cplx a, Cplx b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx Scale(Cplx a, double s) { return {a.re * s, a.im * s}; }
// 1/a = conj(a)/|a|². Entries of Z are far from overflow (|Z| ≲ 1e12), so no scaling is needed.
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx Reciprocal(Cplx a) {
  const double d = a.re * a.re + a.im * a.im;
  return {a.re / d, -a.im / d};
}
// Pivot size: |re| + |im| orders candidates like |z| does to within a factor √2 and is exact.
FRFIT_HOST_DEVICE FRFIT_INLINE double Magnitude1(Cplx a) {
  return (a.re < 0.0 ? -a.re : a.re) + (a.im < 0.0 ? -a.im : a.im);
}

}  // namespace frfit::kernels
