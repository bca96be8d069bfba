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

// Natural logarithm. log(0) = −inf, log(x<0) = NaN, log(inf) = inf, log(NaN) = NaN.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Log(Real x) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  kernels::IntOf<Real> e;
  const Real m = SplitExponent(x, &e);
  // log m = 2·atanh(s), s = (m−1)/(m+1), |s| ≤ 0.1716: the odd series converges as s² ≤ 0.0295.
  const Real s = (m - 1.0) / (m + 1.0);
  const Real s2 = s * s;
  Real poly = T::Splat(1.0 / 25.0);
  for (int k = 23; k >= 3; k -= 2) poly = 1.0 / k + s2 * poly;
  const Real log_m = 2.0 * s + 2.0 * s * s2 * poly;
  const Real de = T::ToDouble(e);
  const Real finite = (de * kLn2Lo + log_m) + de * kLn2Hi;
  return Select(x > 0.0, Select(x > kMaxFinite, x, finite),
                Select(x == 0.0, T::Splat(-kInf), T::Splat(kNaN)));
}

// atan(t) for t in [0, 1]: two argument halvings t → t / (1 + sqrt(1 + t²)) bring t under
// tan(π/16) ≈ 0.199, where the odd series to t^31 is below an ulp.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real AtanUnit(Real t) {
  t = t / (1.0 + kernels::Sqrt(1.0 + t * t));
  t = t / (1.0 + kernels::Sqrt(1.0 + t * t));
  const Real t2 = t * t;
  Real poly = kernels::Splat<Real>(-1.0 / 31.0);
  double sign = 1.0;
  for (int k = 29; k >= 3; k -= 2) {
    poly = sign / k + t2 * poly;
    sign = -sign;
  }
  return 4.0 * (t + t * t2 * poly);
}

// Four-quadrant arctangent with the principal range (−π, π]; atan2(0, −x) = π for x > 0.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real Atan2(Real y, Real x) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real ay = kernels::Abs(y);
  const Real ax = kernels::Abs(x);
  // Angle in the first quadrant, from the smaller over the larger so the ratio is in [0, 1].
  const auto steep = ay > ax;
  const Real unit = AtanUnit(Select(steep, ax, ay) / Select(steep, ay, ax));
  Real angle = Select(steep, (0.5 * kPi - unit) + 0.5 * kPiLo, unit);
  angle = Select(x < 0.0, (kPi - angle) + kPiLo, angle);
  const Real signed_angle = Select(y < 0.0, -angle, angle);
  return Select(kernels::Or(y != y, x != x), T::Splat(kNaN),
                Select(kernels::And(ay == 0.0, ax == 0.0), T::Splat(0.0), signed_angle));
}

// log|re + i·im| without overflow or underflow: both parts are scaled by the same power of two
// (exact) before squaring. Returns −inf for 0.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real LogAbs(Real re, Real im) {
  using T = kernels::RealTraits<Real>;
  using kernels::Select;
  const Real are = kernels::Abs(re);
  const Real aim = kernels::Abs(im);
  const Real big = Select(are > aim, are, aim);
  kernels::IntOf<Real> e;
  SplitExponent(big, &e);
  // 2^-e as a double: exponent field 1023 − e (|e| stays far inside the normal range here,
  // except for subnormal inputs, handled by scaling twice).
  const kernels::IntOf<Real> half = e / 2;
  const Real s1 = T::FromBits(T::BitsOfInt(1023 - half) << 52);
  const Real s2 = T::FromBits(T::BitsOfInt(1023 - (e - half)) << 52);
  const Real r = (re * s1) * s2;
  const Real i = (im * s1) * s2;
  const Real de = T::ToDouble(e);
  const Real finite = 0.5 * Log(r * r + i * i) + de * kLn2Hi + de * kLn2Lo;
  return Select(big > 0.0, Select(big > kMaxFinite, big, finite),
                Select(big == 0.0, T::Splat(-kInf), T::Splat(kNaN)));
}

}  // namespace frfit::det
