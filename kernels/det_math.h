// Deterministic elementary functions for code that must round the same on the host and on the GPU.
//
// libm and CUDA's math library give different last bits for log and atan2, so the shared per-line
// arithmetic (DESIGN.md §3) must not call them. These versions use only +, −, ×, ÷, sqrt (all
// correctly rounded under IEEE 754 on both sides) and exact bit manipulation of the exponent.
// Accuracy is a few ulp, far below anything a cost function can see; what matters is that the
// cpu and cuda backends produce the same bits. Compile without FMA contraction
// (-ffp-contract=off, nvcc -fmad=false), or the two sides diverge again.
//
// Every function takes any Real (kernels/real.h): a double or a SIMD vector of one line per slot.
// The special cases (zero, negative, infinite, NaN and subnormal arguments, the octant of atan2)
// are chosen per slot with Select, after the main path has run on whatever the slot holds, so a
// vector slot and a double round the same way whatever the other slots hold.
#pragma once

#include "frfit/common/host_device.h"
#include "kernels/real.h"

namespace frfit::det {

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // upper bits of ln 2, exact times small ints
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 − kLn2Hi
constexpr double kPi = 3.14159265358979311600e+00;
constexpr double kPiLo = 1.22464679914735317723e-16;   // π − kPi
constexpr double kSqrtHalf = 0.70710678118654757274;
constexpr double kNaN = __builtin_nan("");
constexpr double kInf = __builtin_inf();
constexpr double kMaxFinite = 1.7976931348623157e308;

// Splits a positive, finite x into m·2^e with m in [sqrt(1/2), sqrt(2)). Subnormals are scaled
// first so the exponent field is meaningful. Other slots get some m and e, never a trap.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real SplitExponent(Real x, kernels::IntOf<Real>* e) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const auto subnormal = x < 2.2250738585072014e-308;
  x = Select(subnormal, x * 18014398509481984.0, x);  // scaled by 2^54 exactly
  const kernels::IntOf<Real> bias = Select(subnormal, T::SplatInt(-54), T::SplatInt(0));
  const typename T::Bits bits = T::BitsOf(x);
  kernels::IntOf<Real> exponent = T::IntOf((bits >> 52) & 0x7ff) - 1023;
  Real m = T::FromBits((bits & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);  // [1, 2)
  const auto high = m > 1.4142135623730951;
  m = Select(high, m * 0.5, m);
  exponent = Select(high, exponent + 1, exponent);
  *e = exponent + bias;
  return m;
}

// The chains of Log, LogAbs and Atan2 cut into stages. A caller with many independent arguments
// (the nine entries of a line, on host vectors: kernels/line_cost.h) can run one stage over all of
// them before the next, so that the processor overlaps their chains; the functions themselves are
// their stages run one after the other, so both ways do the same operations in the same order.

// The stages hand their results on through references, not structs: GCC copies a struct of
// vector pairs through general registers, piece by piece.

// Log's first stage: x = m·2^e, s = (m−1)/(m+1) (log m = 2·atanh(s), |s| ≤ 0.1716), s², e.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void LogStart(Real x, Real& s, Real& s2, Real& de) {
  kernels::IntOf<Real> e;
  const Real m = SplitExponent(x, &e);
  s = (m - 1.0) / (m + 1.0);
  s2 = s * s;
  de = kernels::RealTraits<Real>::ToDouble(e);
}
// The odd series of atanh in s² (s² ≤ 0.0295), from 1/25 down to 1/3, for `count` arguments side by
// side: each Horner step runs over all of them before the next, so that their chains overlap.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void LogSeries(const Real* s2, Real* poly, int count) {
  for (int i = 0; i < count; ++i) poly[i] = kernels::Splat<Real>(1.0 / 25.0);
  for (int k = 23; k >= 3; k -= 2) {
    FRFIT_UNROLL_3
    for (int i = 0; i < count; ++i) poly[i] = 1.0 / k + s2[i] * poly[i];
  }
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real LogFinish(Real x, Real s, Real s2, Real de, Real poly) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real log_m = 2.0 * s + 2.0 * s * s2 * poly;
  const Real finite = (de * kLn2Lo + log_m) + de * kLn2Hi;
  return Select(x > 0.0, Select(x > kMaxFinite, x, finite),
                Select(x == 0.0, T::Splat(-kInf), T::Splat(kNaN)));
}

// Natural logarithm. log(0) = −inf, log(x<0) = NaN, log(inf) = inf, log(NaN) = NaN.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Log(Real x) {
  Real s, s2, de, poly;
  LogStart(x, s, s2, de);
  LogSeries(&s2, &poly, 1);
  return LogFinish(x, s, s2, de, poly);
}

// atan(t) for t in [0, 1]: two argument halvings t → t / (1 + sqrt(1 + t²)) (AtanHalve) bring t
// under tan(π/16) ≈ 0.199, where the odd series to t^31 is below an ulp: AtanSeries sums it in t²
// for `count` arguments side by side (as LogSeries), AtanOfHalved multiplies out t and the
// halvings.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real AtanHalve(Real t) {
  return t / (1.0 + kernels::Sqrt(1.0 + t * t));
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void AtanSeries(const Real* t2, Real* poly, int count) {
  for (int i = 0; i < count; ++i) poly[i] = kernels::Splat<Real>(-1.0 / 31.0);
  double sign = 1.0;
  for (int k = 29; k >= 3; k -= 2) {
    FRFIT_UNROLL_3
    for (int i = 0; i < count; ++i) poly[i] = sign / k + t2[i] * poly[i];
    sign = -sign;
  }
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real AtanOfHalved(Real t, Real t2, Real poly) {
  return 4.0 * (t + t * t2 * poly);
}
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real AtanUnit(Real t) {
  t = AtanHalve(AtanHalve(t));
  const Real t2 = t * t;
  Real poly;
  AtanSeries(&t2, &poly, 1);
  return AtanOfHalved(t, t2, poly);
}

// Atan2's first stage: the smaller of |y|, |x| over the larger, in [0, 1].
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Atan2Ratio(Real y, Real x) {
  using kernels::Select;
  const Real ay = kernels::Abs(y);
  const Real ax = kernels::Abs(x);
  const auto steep = ay > ax;
  return Select(steep, ax, ay) / Select(steep, ay, ax);
}
// Atan2's last stage: the quadrant and the special cases around unit = AtanUnit(Atan2Ratio(y, x)).
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Atan2Finish(Real y, Real x, Real unit) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real ay = kernels::Abs(y);
  const Real ax = kernels::Abs(x);
  Real angle = Select(ay > ax, (0.5 * kPi - unit) + 0.5 * kPiLo, unit);
  angle = Select(x < 0.0, (kPi - angle) + kPiLo, angle);
  const Real signed_angle = Select(y < 0.0, -angle, angle);
  return Select(kernels::Or(y != y, x != x), T::Splat(kNaN),
                Select(kernels::And(ay == 0.0, ax == 0.0), T::Splat(0.0), signed_angle));
}

// Four-quadrant arctangent with the principal range (−π, π]; atan2(0, −x) = π for x > 0.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Atan2(Real y, Real x) {
  return Atan2Finish(y, x, AtanUnit(Atan2Ratio(y, x)));
}

// LogAbs's first stage: the larger part's size `big`, its exponent e (as `de`), and
// q = |re + i·im|²·2^(−2e), both parts scaled by the same power of two (exact) before squaring.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void LogAbsStart(Real re, Real im, Real& big, Real& q, Real& de) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real are = kernels::Abs(re);
  const Real aim = kernels::Abs(im);
  big = Select(are > aim, are, aim);
  kernels::IntOf<Real> e;
  SplitExponent(big, &e);
  // 2^-e as a double: exponent field 1023 − e (|e| stays far inside the normal range here,
  // except for subnormal inputs, handled by scaling twice).
  const kernels::IntOf<Real> half = e / 2;
  const Real s1 = T::FromBits(T::BitsOfInt(1023 - half) << 52);
  const Real s2 = T::FromBits(T::BitsOfInt(1023 - (e - half)) << 52);
  const Real r = (re * s1) * s2;
  const Real i = (im * s1) * s2;
  q = r * r + i * i;
  de = T::ToDouble(e);
}
// LogAbs's last stage, from log_q = Log(q).
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real LogAbsFinish(Real big, Real de, Real log_q) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real finite = 0.5 * log_q + de * kLn2Hi + de * kLn2Lo;
  return Select(big > 0.0, Select(big > kMaxFinite, big, finite),
                Select(big == 0.0, T::Splat(-kInf), T::Splat(kNaN)));
}

// log|re + i·im| without overflow or underflow. Returns −inf for 0.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real LogAbs(Real re, Real im) {
  Real big, q, de;
  LogAbsStart(re, im, big, q, de);
  return LogAbsFinish(big, de, Log(q));
}

}  // namespace frfit::det
