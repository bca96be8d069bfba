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
#include <type_traits>

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
  // Or-ed by halves inside the vector, then one slot leaves it: slot by slot, each of the W
  // slots was moved out on its own (two instructions a slot on AVX2).
  static inline bool Any(Mask m) {
    if constexpr (W == 8) {
      m = m | __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
      m = m | __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
      m = m | __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
    } else if constexpr (W == 4) {
      m = m | __builtin_shufflevector(m, m, 2, 3, 0, 1);
      m = m | __builtin_shufflevector(m, m, 1, 0, 3, 2);
    } else {
      m = m | __builtin_shufflevector(m, m, 1, 0);
    }
    return m[0] != 0;
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
  // Exact for |i| < 2^51, which holds for the exponents it converts (det_math.h): i + 1.5·2^52
  // has i in its low mantissa bits, and subtracting 1.5·2^52 leaves exactly i — the value the
  // conversion instruction gives, which AVX2 lacks for 64-bit integers (GCC then converts slot by
  // slot through general registers).
  static inline Real ToDouble(Int i) {
    const Real magic = Splat(6755399441055744.0);  // 1.5 · 2^52
    return FromBits(i + BitsOf(magic)) - magic;
  }
  static inline Int IntOf(Bits b) { return b; }
  static inline Bits BitsOfInt(Int i) { return i; }
};

template <>
struct RealTraits<SimdReal<2>> : SimdTraits<2> {};
template <>
struct RealTraits<SimdReal<4>> : SimdTraits<4> {};
template <>
struct RealTraits<SimdReal<8>> : SimdTraits<8> {};

// Two vectors as one Real of 2W lines: every operation is done on both halves, which are
// independent, so the processor overlaps them. That hides the latency of long dependent chains —
// the Horner steps of log and atan2, a division feeding a square root — which one vector leaves
// exposed, without changing any operation. (The compiler's own vectors of 2W slots on W-slot
// registers, SimdReal<2W>, are split much less well by GCC 12.)
template <int W>
struct SimdPair {
  using Half = SimdReal<W>;
  Half lo, hi;  // lines 0 … W−1 and W … 2W−1
};
template <int W>
struct SimdIntPair {
  using Half = typename SimdTypes<W>::Int;
  Half lo, hi;
};

// Both halves through `op`; a double (or int) operand goes to both.
#define FRFIT_PAIR_BINARY(Pair, Result, op)                                           \
  template <int W>                                                                   \
  inline Result<W> operator op(const Pair<W>& a, const Pair<W>& b) {                 \
    return {a.lo op b.lo, a.hi op b.hi};                                             \
  }                                                                                  \
  template <int W, typename S, typename = std::enable_if_t<std::is_arithmetic_v<S>>> \
  inline Result<W> operator op(const Pair<W>& a, S b) {                              \
    return {a.lo op b, a.hi op b};                                                   \
  }                                                                                  \
  template <int W, typename S, typename = std::enable_if_t<std::is_arithmetic_v<S>>> \
  inline Result<W> operator op(S a, const Pair<W>& b) {                              \
    return {a op b.lo, a op b.hi};                                                   \
  }
FRFIT_PAIR_BINARY(SimdPair, SimdPair, +)
FRFIT_PAIR_BINARY(SimdPair, SimdPair, -)
FRFIT_PAIR_BINARY(SimdPair, SimdPair, *)
FRFIT_PAIR_BINARY(SimdPair, SimdPair, /)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, <)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, <=)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, >)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, >=)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, ==)
FRFIT_PAIR_BINARY(SimdPair, SimdIntPair, !=)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, +)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, -)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, /)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, &)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, |)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, <<)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, >>)
FRFIT_PAIR_BINARY(SimdIntPair, SimdIntPair, ==)
#undef FRFIT_PAIR_BINARY

template <int W>
inline SimdPair<W> operator-(const SimdPair<W>& a) {
  return {-a.lo, -a.hi};
}
template <int W>
inline SimdIntPair<W> operator~(const SimdIntPair<W>& a) {
  return {~a.lo, ~a.hi};
}
template <int W>
inline SimdPair<W> Select(const SimdIntPair<W>& m, const SimdPair<W>& a, const SimdPair<W>& b) {
  return {m.lo ? a.lo : b.lo, m.hi ? a.hi : b.hi};
}
template <int W>
inline SimdIntPair<W> Select(const SimdIntPair<W>& m, const SimdIntPair<W>& a,
                             const SimdIntPair<W>& b) {
  return {m.lo ? a.lo : b.lo, m.hi ? a.hi : b.hi};
}

template <int W>
struct RealTraits<SimdPair<W>> {
  using Half = SimdTraits<W>;
  using Mask = SimdIntPair<W>;
  using Int = SimdIntPair<W>;
  using Bits = SimdIntPair<W>;
  static constexpr int kWidth = 2 * W;
  static inline SimdPair<W> Splat(double x) { return {Half::Splat(x), Half::Splat(x)}; }
  static inline Int SplatInt(int x) { return {Half::SplatInt(x), Half::SplatInt(x)}; }
  static inline SimdPair<W> Load(const double* p) { return {Half::Load(p), Half::Load(p + W)}; }
  static inline void Store(double* p, const SimdPair<W>& v) {
    Half::Store(p, v.lo);
    Half::Store(p + W, v.hi);
  }
  static inline bool Any(const Mask& m) { return Half::Any(m.lo | m.hi); }
  static inline bool All(const Mask& m) { return Half::All(m.lo & m.hi); }
  static inline SimdPair<W> Sqrt(const SimdPair<W>& x) { return {Half::Sqrt(x.lo), Half::Sqrt(x.hi)}; }
  static inline Bits BitsOf(const SimdPair<W>& x) { return {Half::BitsOf(x.lo), Half::BitsOf(x.hi)}; }
  static inline SimdPair<W> FromBits(const Bits& b) {
    return {Half::FromBits(b.lo), Half::FromBits(b.hi)};
  }
  static inline SimdPair<W> ToDouble(const Int& i) {
    return {Half::ToDouble(i.lo), Half::ToDouble(i.hi)};
  }
  static inline Int IntOf(const Bits& b) { return b; }
  static inline Bits BitsOfInt(const Int& i) { return i; }
};

}  // namespace frfit::kernels
