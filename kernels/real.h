// The number type of the per-line arithmetic (kernels/line_cost.h, line_normal.h, det_math.h).
// `Real` is either `double` — one line: the cuda backend and the cpu backend's scalar path — or a
// SIMD vector of doubles holding several lines side by side, one per slot (kernels/simd.h, host
// only), on which every operator acts slot by slot. The arithmetic is written once against the
// operators and the helpers below; with a vector each slot performs exactly the operations a double
// performs, in the same order, so every width gives the same bits (DESIGN.md §3).
//
// Code written for every Real:
//   - branches only on what is the same for every slot (sizes, cost kind, fit order, indices);
//     a data-dependent choice is Select(mask, a, b), which computes both and keeps one per slot;
//   - Any(mask) / All(mask) may skip work that no slot needs, never change what a slot computes;
//   - comparisons give a Mask (bool for double); combine masks with And/Or, never with !, && or ||.
//
// RealTraits<Real> provides
//   Mask, Int    a comparison's result, and integers of at least 32 bits, slot by slot
//                (bool and int for double; 64-bit integer vectors for a vector);
//   Bits         the IEEE bits of a double slot by slot (int64; the 64-bit integer vector);
//   kWidth       lines per value;
//   Splat(x), Load(p), Store(p, v)   all slots x; kWidth consecutive doubles from/to p;
//   Sqrt(v), Any(m), All(m), BitsOf(v), FromBits(b), ToDouble(i), IntOf(b) (Bits → Int),
//   BitsOfInt(i).
#pragma once

#include <cstdint>
#include <cstring>

#include "frfit/common/host_device.h"

namespace frfit::kernels {

template <typename Real>
struct RealTraits;

template <>
struct RealTraits<double> {
  using Mask = bool;
  using Int = int;
  using Bits = std::int64_t;
  static constexpr int kWidth = 1;
  FRFIT_HOST_DEVICE FRFIT_INLINE static double Splat(double x) { return x; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static int SplatInt(int x) { return x; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static double Load(const double* p) { return *p; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static void Store(double* p, double v) { *p = v; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static bool Any(bool m) { return m; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static bool All(bool m) { return m; }
  FRFIT_HOST_DEVICE FRFIT_INLINE static std::int64_t BitsOf(double x) {
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(x);
#else
    std::int64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
  }
  FRFIT_HOST_DEVICE FRFIT_INLINE static double FromBits(std::int64_t bits) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(bits);
#else
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
#endif
  }
  FRFIT_HOST_DEVICE FRFIT_INLINE static double Sqrt(double x) { return __builtin_sqrt(x); }
  FRFIT_HOST_DEVICE FRFIT_INLINE static double ToDouble(int i) { return static_cast<double>(i); }
  FRFIT_HOST_DEVICE FRFIT_INLINE static int IntOf(std::int64_t b) { return static_cast<int>(b); }
  FRFIT_HOST_DEVICE FRFIT_INLINE static std::int64_t BitsOfInt(int i) {
    return static_cast<std::int64_t>(i);
  }
};

template <typename Real>
using MaskOf = typename RealTraits<Real>::Mask;
template <typename Real>
using IntOf = typename RealTraits<Real>::Int;

// Per slot: m ? a : b. Both are computed; for double this is the plain conditional expression.
template <typename M, typename T>
FRFIT_HOST_DEVICE FRFIT_INLINE T Select(M m, T a, T b) {
  return m ? a : b;
}

// |x| as x < 0 ? −x : x, per slot: −0 stays −0 (unlike fabs), as the scalar code always had it.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Abs(Real x) {
  return Select(x < 0.0, -x, x);
}

// |x| as fabs does it, by clearing the sign bit: −0 becomes +0. Where a size is only compared
// (a pivot's), it orders every pair as Abs does, since −0 == +0, in one AND per vector where Abs
// takes a compare and a select.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real ClearSign(Real x) {
  using T = RealTraits<Real>;
  return T::FromBits(T::BitsOf(x) & 0x7fffffffffffffffLL);
}

// Mask algebra that means the same for bool and for integer vectors of 0 / −1.
template <typename M>
FRFIT_HOST_DEVICE FRFIT_INLINE M And(M a, M b) {
  return a & b;
}
template <typename M>
FRFIT_HOST_DEVICE FRFIT_INLINE M Or(M a, M b) {
  return a | b;
}
FRFIT_HOST_DEVICE FRFIT_INLINE bool And(bool a, bool b) { return a && b; }
FRFIT_HOST_DEVICE FRFIT_INLINE bool Or(bool a, bool b) { return a || b; }
// a and not b.
template <typename M>
FRFIT_HOST_DEVICE FRFIT_INLINE M AndNot(M a, M b) {
  return a & ~b;
}
FRFIT_HOST_DEVICE FRFIT_INLINE bool AndNot(bool a, bool b) { return a && !b; }

template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Splat(double x) {
  return RealTraits<Real>::Splat(x);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE IntOf<Real> SplatInt(int x) {
  return RealTraits<Real>::SplatInt(x);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Load(const double* p) {
  return RealTraits<Real>::Load(p);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void Store(double* p, Real v) {
  RealTraits<Real>::Store(p, v);
}
// Correctly rounded square root, slot by slot.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Sqrt(Real x) {
  return RealTraits<Real>::Sqrt(x);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE bool Any(MaskOf<Real> m) {
  return RealTraits<Real>::Any(m);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE bool All(MaskOf<Real> m) {
  return RealTraits<Real>::All(m);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE constexpr int WidthOf() {
  return RealTraits<Real>::kWidth;
}

// A mask that is false in every slot.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE MaskOf<Real> NoSlots() {
  return Splat<Real>(0.0) != Splat<Real>(0.0);
}

// Line status bits per slot: unsigned for double, Int for a vector.
template <typename Real>
struct StatusOfT {
  using Type = IntOf<Real>;
};
template <>
struct StatusOfT<double> {
  using Type = unsigned;
};
template <typename Real>
using StatusOf = typename StatusOfT<Real>::Type;

// status |= bit in the slots of `m`.
template <typename Real, typename M>
FRFIT_HOST_DEVICE FRFIT_INLINE void MarkStatus(StatusOf<Real>* status, M m, unsigned bit) {
  if constexpr (WidthOf<Real>() == 1) {
    if (m) *status |= bit;
  } else {
    *status = *status | Select(m, SplatInt<Real>(static_cast<int>(bit)), SplatInt<Real>(0));
  }
}

}  // namespace frfit::kernels
