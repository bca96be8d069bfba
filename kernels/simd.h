// SIMD vectors as the Real of the per-line arithmetic (kernels/real.h): SimdReal<W> holds W lines
// side by side, one per slot, for W = 2, 4 and 8 (SSE2, AVX2 and AVX-512 registers). Host only.
//
// These are the GCC/Clang vector extensions: +, −, ×, ÷ and comparisons act slot by slot with the
// IEEE operations of double, `m ? a : b` selects slot by slot, and the compiler lowers a vector to
// whatever registers the function's target has (two AVX2 registers for an 8-slot vector, say), so
// the width changes the speed, never a bit. They are subject to -ffp-contract=off like scalar code:
// no a·b + c is fused (docs/cpu-backend.md says how this is checked).
#pragma once

#if defined(__CUDACC__)
#error "kernels/simd.h is host code; device code uses Real = double"
#endif

#include <cstring>

#include "kernels/real.h"

namespace frfit::kernels {

// Int is what comparing two Reals gives: 64-bit integers, 0 or −1 for a mask.
template <int W>
struct SimdTypes;
template <>
struct SimdTypes<2> {
  typedef double Real __attribute__((vector_size(16)));
  using Int = decltype(Real{} < Real{});
};
template <>
struct SimdTypes<4> {
  typedef double Real __attribute__((vector_size(32)));
  using Int = decltype(Real{} < Real{});
};
template <>
struct SimdTypes<8> {
  typedef double Real __attribute__((vector_size(64)));
  using Int = decltype(Real{} < Real{});
};

template <int W>
using SimdReal = typename SimdTypes<W>::Real;

template <int W>
struct SimdTraits {
  using Real = typename SimdTypes<W>::Real;
  using Mask = typename SimdTypes<W>::Int;  // what a comparison of two Reals gives
  using Int = typename SimdTypes<W>::Int;
  using Bits = typename SimdTypes<W>::Int;
  static constexpr int kWidth = W;
  static inline Real Splat(double x) {
    Real r;
    for (int i = 0; i < W; ++i) r[i] = x;
    return r;
  }
  static inline Int SplatInt(int x) {
    Int r;
    for (int i = 0; i < W; ++i) r[i] = x;
    return r;
  }
  static inline Real Load(const double* p) {
    Real r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  static inline void Store(double* p, Real v) { std::memcpy(p, &v, sizeof v); }
  static inline bool Any(Mask m) {
    long any = 0;
    for (int i = 0; i < W; ++i) any |= m[i];
    return any != 0;
  }
  static inline bool All(Mask m) {
    long all = -1;
    for (int i = 0; i < W; ++i) all &= m[i];
    return all != 0;
  }
  // A cast between vectors of one size reinterprets the bits.
  static inline Bits BitsOf(Real x) { return (Bits)x; }
  static inline Real FromBits(Bits b) { return (Real)b; }
  // One sqrt per slot: compiled without errno (-fno-math-errno, CMakeLists.txt), the compiler
  // makes it one vector square root, which rounds each slot as the scalar one does.
  static inline Real Sqrt(Real x) {
    Real r;
    for (int i = 0; i < W; ++i) r[i] = __builtin_sqrt(x[i]);
    return r;
  }
  static inline Real ToDouble(Int i) { return __builtin_convertvector(i, Real); }
  static inline Int IntOf(Bits b) { return b; }
  static inline Bits BitsOfInt(Int i) { return i; }
};

template <>
struct RealTraits<SimdReal<2>> : SimdTraits<2> {};
template <>
struct RealTraits<SimdReal<4>> : SimdTraits<4> {};
template <>
struct RealTraits<SimdReal<8>> : SimdTraits<8> {};

}  // namespace frfit::kernels
