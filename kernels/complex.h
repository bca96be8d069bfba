// A complex number with the arithmetic spelled out, for code shared by host and device.
// std::complex and cuda::std::complex may implement × and ÷ differently (and std::complex's
// division may call library functions); writing each operation here fixes the rounding sequence.
// The parts are Reals (kernels/real.h): doubles, or SIMD vectors of one line per slot.
#pragma once

#include <type_traits>

#include "frfit/common/host_device.h"
#include "kernels/real.h"

namespace frfit::kernels {

// A complex double is 16-byte aligned, so that the GPU loads and stores it in one 16-byte access
// (two 8-byte ones otherwise: twice the shared-memory instructions of the tiled line kernel).
template <typename Real>
struct alignas(std::is_same_v<Real, double> ? 16 : alignof(Real)) ComplexOf {
  Real re;
  Real im;
};
using Cplx = ComplexOf<double>;

template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Add(ComplexOf<Real> a, ComplexOf<Real> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Sub(ComplexOf<Real> a, ComplexOf<Real> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Mul(ComplexOf<Real> a, ComplexOf<Real> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// s: a Real or a double (the same for every slot).
template <typename Real, typename Scalar>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Scale(ComplexOf<Real> a, Scalar s) {
  return {a.re * s, a.im * s};
}
// 1/a = conj(a)/|a|². Entries of Z are far from overflow (|Z| ≲ 1e12), so no scaling is needed.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Reciprocal(ComplexOf<Real> a) {
  const Real d = a.re * a.re + a.im * a.im;
  return {a.re / d, -a.im / d};
}
// Pivot size: |re| + |im| orders candidates like |z| does to within a factor √2 and is exact.
// Sizes are only compared, so on host vectors the parts' sign bits are cleared (ClearSign, one
// AND) rather than −x selected for x < 0: −0 == +0, and every choice stays the same. A double
// keeps the select: with ClearSign, ptxas (sm_90) gives the GPU's thread-per-line kernel 92
// registers instead of 64 and 88 bytes of spills, a trade not yet measured on a GPU.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Magnitude1(ComplexOf<Real> a) {
  if constexpr (WidthOf<Real>() > 1)
    return ClearSign(a.re) + ClearSign(a.im);
  else
    return Abs(a.re) + Abs(a.im);
}
// The complex number (re, im) in every slot.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> SplatComplex(double re, double im) {
  return {Splat<Real>(re), Splat<Real>(im)};
}

}  // namespace frfit::kernels
