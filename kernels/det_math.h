// Deterministic elementary functions for code that must round the same on the host and on the GPU.
//
// libm and CUDA's math library give different last bits for log and atan2, so the shared per-line
// arithmetic (DESIGN.md §3) must not call them. These versions use only +, −, ×, ÷, sqrt (all
// correctly rounded under IEEE 754 on both sides) and exact bit manipulation of the exponent.
// Accuracy is a few ulp, far below anything a cost function can see; what matters is that the
// cpu and cuda backends produce the same bits. Compile without FMA contraction
// (-ffp-contract=off, nvcc -fmad=false), or the two sides diverge again.
#pragma once

#include <cstdint>
#include <cstring>

#include "frfit/common/host_device.h"

namespace frfit::det {

FRFIT_HOST_DEVICE FRFIT_INLINE std::int64_t BitsOf(double x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  std::int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

FRFIT_HOST_DEVICE FRFIT_INLINE double FromBits(std::int64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(bits);
#else
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // upper bits of ln 2, exact times small ints
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 − kLn2Hi
constexpr double kPi = 3.14159265358979311600e+00;
constexpr double kPiLo = 1.22464679914735317723e-16;   // π − kPi
constexpr double kSqrtHalf = 0.70710678118654757274;
constexpr double kNaN = __builtin_nan("");

// Splits a positive, finite x into m·2^e with m in [sqrt(1/2), sqrt(2)). Subnormals are scaled
// first so the exponent field is meaningful.
FRFIT_HOST_DEVICE FRFIT_INLINE double SplitExponent(double x, int* e) {
  int bias = 0;
  if (x < 2.2250738585072014e-308) {  // subnormal: scale by 2^54 exactly
    x *= 18014398509481984.0;
    bias = -54;
  }
  const std::int64_t bits = BitsOf(x);
  int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  double m = FromBits((bits & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);  // [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    exponent += 1;
  }
  *e = exponent + bias;
  return m;
}

// Natural logarithm. log(0) = −inf, log(x<0) = NaN, log(inf) = inf, log(NaN) = NaN.
FRFIT_HOST_DEVICE FRFIT_INLINE double Log(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -__builtin_inf() : kNaN;
  if (x > 1.7976931348623157e308) return x;
  int e;
  const double m = SplitExponent(x, &e);
  // log m = 2·atanh(s), s = (m−1)/(m+1), |s| ≤ 0.1716: the odd series converges as s² ≤ 0.0295.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double poly = 1.0 / 25.0;
  for (int k = 23; k >= 3; k -= 2) poly = 1.0 / k + s2 * poly;
  const double log_m = 2.0 * s + 2.0 * s * s2 * poly;
  const double de = static_cast<double>(e);
  return (de * kLn2Lo + log_m) + de * kLn2Hi;
}

// atan(t) for t in [0, 1]: two argument halvings t → t / (1 + sqrt(1 + t²)) bring t under
// tan(π/16) ≈ 0.199, where the odd series to t^31 is below an ulp.
FRFIT_HOST_DEVICE FRFIT_INLINE double AtanUnit(double t) {
  t = t / (1.0 + __builtin_sqrt(1.0 + t * t));
  t = t / (1.0 + __builtin_sqrt(1.0 + t * t));
  const double t2 = t * t;
  double poly = -1.0 / 31.0;
  double sign = 1.0;
  for (int k = 29; k >= 3; k -= 2) {
    poly = sign / k + t2 * poly;
    sign = -sign;
  }
  return 4.0 * (t + t * t2 * poly);
}

// Four-quadrant arctangent with the principal range (−π, π]; atan2(0, −x) = π for x > 0.
FRFIT_HOST_DEVICE FRFIT_INLINE double Atan2(double y, double x) {
  if (y != y || x != x) return kNaN;
  const double ay = y < 0.0 ? -y : y;
  const double ax = x < 0.0 ? -x : x;
  if (ay == 0.0 && ax == 0.0) return 0.0;
  // Angle in the first quadrant, from the smaller over the larger so the ratio is in [0, 1].
  double angle;
  if (ay <= ax) {
    angle = AtanUnit(ay / ax);
  } else {
    angle = (0.5 * kPi - AtanUnit(ax / ay)) + 0.5 * kPiLo;
  }
  if (x < 0.0) angle = (kPi - angle) + kPiLo;
  return y < 0.0 ? -angle : angle;
}

}  // namespace frfit::det

namespace frfit::det {

// log|re + i·im| without overflow or underflow: both parts are scaled by the same power of two
// (exact) before squaring. Returns −inf for 0.
FRFIT_HOST_DEVICE FRFIT_INLINE double LogAbs(double re, double im) {
  const double are = re < 0.0 ? -re : re;
  const double aim = im < 0.0 ? -im : im;
  const double big = are > aim ? are : aim;
  if (!(big > 0.0)) return big == 0.0 ? -__builtin_inf() : kNaN;
  if (big > 1.7976931348623157e308) return big;
  int e;
  SplitExponent(big, &e);
  // 2^-e as a double: exponent field 1023 − e (|e| stays far inside the normal range here,
  // except for subnormal inputs, handled by scaling twice).
  const int half = e / 2;
  const double s1 = FromBits(static_cast<std::int64_t>(1023 - half) << 52);
  const double s2 = FromBits(static_cast<std::int64_t>(1023 - (e - half)) << 52);
  const double r = (re * s1) * s2;
  const double i = (im * s1) * s2;
  return 0.5 * Log(r * r + i * i) + static_cast<double>(e) * kLn2Hi + static_cast<double>(e) * kLn2Lo;
}

}  // namespace frfit::det
