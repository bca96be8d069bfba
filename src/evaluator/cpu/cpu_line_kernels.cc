// The per-instruction-set copies of the cpu backend's inner loops (cpu_line_kernels.h).
//
// One template (CostLines / NormalLines over a Real) is instantiated per variant inside a function
// that carries the variant's target attribute and `flatten`: everything it calls, down to the last
// complex multiply, is inlined into it and compiled for that target, while this file as a whole is
// compiled for the baseline x86-64, so one binary runs everywhere and picks at run time. The AVX2
// target does not include FMA, and the file is compiled with -ffp-contract=off besides, so no
// a·b + c is fused (tests/unit/evaluator/cpu_no_fma_test.cmake checks the machine code).
// -fno-math-errno (CMakeLists.txt) lets sqrt be one instruction per vector; it rounds the same.
#include "src/evaluator/cpu/cpu_line_kernels.h"

#include <algorithm>
#include <type_traits>

#include "frfit/common/error.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"
#include "kernels/simd.h"

namespace frfit::cpu {
namespace {

template <typename Real>
kernels::LineTargetOf<Real> BlockTarget(const BlockRange& range, int block) {
  constexpr int w = kernels::WidthOf<Real>();
  const double* values = range.lines->values.data() + static_cast<size_t>(block) * kLineValues * w;
  return {kernels::Load<Real>(values), values + w, values + 10 * w, range.loss, range.loss_scale};
}

// Status bits of every slot, or-ed.
inline unsigned FoldStatus(unsigned status) { return status; }
template <typename Int>
unsigned FoldStatus(const Int& status) {
  unsigned all = 0;
  for (size_t i = 0; i < sizeof(Int) / sizeof(status[0]); ++i)
    all |= static_cast<unsigned>(status[i]);
  return all;
}
template <int W>
unsigned FoldStatus(const kernels::SimdIntPair<W>& status) {
  return FoldStatus(status.lo) | FoldStatus(status.hi);
}

// A variant runs the elimination on Solve and everything after it on Score: Score is Solve
// itself, or the pair of two Solve vectors (SimdPair). Then a block of 2W lines is solved as two
// vectors of W lines and scored as one pair: the elimination keeps one vector's registers busy,
// while the scoring's long dependent chains (log, atan2) need the pair's two independent halves
// to hide their latency (docs/cpu-backend.md).
template <typename Solve, typename Score>
class BlockSolver {
 public:
  // Solves the lines of a block whose ω are `omega`; x() then holds X = Z⁻¹B, n×3, of every slot.
  kernels::MaskOf<Score> Run(const BlockRange& range, Score omega) {
    return Run(range.posture, range.coefficients, omega);
  }
  // The same with the response point on the right: x() then holds Y = Z⁻¹B_a.
  kernels::MaskOf<Score> RunResponse(const BlockRange& range, Score omega) {
    kernels::PostureArrays response = range.posture;
    response.basis = range.posture.Response();
    return Run(response, range.coefficients, omega);
  }
  kernels::ComplexOf<Score>* x() { return x_; }

 private:
  kernels::MaskOf<Score> Run(const kernels::PostureArrays& posture, const double* coefficients,
                             Score omega) {
    const kernels::SerialTeam team;
    if constexpr (std::is_same_v<Solve, Score>) {
      return kernels::SolveLineTeam(team, kernels::LineScratchOf<Solve>{z_, x_, pivots_, nullptr},
                                    posture, coefficients, omega);
    } else {
      const kernels::LineScratchOf<Solve> half{z_, half_x_, pivots_, nullptr};
      const int rows = 3 * posture.n;
      const auto lo = kernels::SolveLineTeam(team, half, posture, coefficients, omega.lo);
      for (int i = 0; i < rows; ++i) x_[i].re.lo = half_x_[i].re, x_[i].im.lo = half_x_[i].im;
      const auto hi = kernels::SolveLineTeam(team, half, posture, coefficients, omega.hi);
      for (int i = 0; i < rows; ++i) x_[i].re.hi = half_x_[i].re, x_[i].im.hi = half_x_[i].im;
      return {lo, hi};
    }
  }

  static constexpr int kCap = kernels::kMaxDofs;
  kernels::ComplexOf<Solve> z_[kCap * kCap];
  kernels::ComplexOf<Solve> half_x_[std::is_same_v<Solve, Score> ? 1 : kCap * 3];
  kernels::ComplexOf<Solve> pivots_[kCap];
  kernels::ComplexOf<Score> x_[kCap * 3];
};

template <typename Solve, typename Score>
inline void CostLines(const BlockRange& range, double* line_costs, unsigned* status) {
  constexpr int w = kernels::WidthOf<Score>();
  BlockSolver<Solve, Score> solver;
  Score terms[9];
  kernels::StatusOf<Score> slots{};
  for (int b = range.first_block; b < range.last_block; ++b) {
    const kernels::LineTargetOf<Score> line = BlockTarget<Score>(range, b);
    const kernels::MaskOf<Score> singular = solver.Run(range, line.omega_rad_s);
    const Score cost = kernels::ScoreLineTeam(
        kernels::SerialTeam{}, kernels::LineScratchOf<Score>{nullptr, solver.x(), nullptr, terms},
        range.posture, line, range.fit_order, range.cost_kind, range.phase_mode, singular, &slots);
    kernels::Store(line_costs + static_cast<size_t>(b) * w, cost);
  }
  *status |= FoldStatus(slots);
}

template <typename Solve, typename Score>
inline void NormalLines(const BlockRange& range, const double* sensitivity, int dim,
                        double* terms, long long stride, unsigned* status) {
  constexpr int w = kernels::WidthOf<Score>();
  BlockSolver<Solve, Score> solver;
  kernels::StatusOf<Score> slots{};
  // Two measurement points: Y = Z⁻¹B_a, solved first and kept here (kernels/line_normal.h).
  const bool two_points = range.posture.TwoPoints();
  kernels::ComplexOf<Score> y[kernels::kMaxDofs * 3];
  for (int b = range.first_block; b < range.last_block; ++b) {
    const kernels::LineTargetOf<Score> line = BlockTarget<Score>(range, b);
    kernels::MaskOf<Score> singular = kernels::NoSlots<Score>();
    if (two_points) {
      singular = solver.RunResponse(range, line.omega_rad_s);
      std::copy(solver.x(), solver.x() + 3 * range.posture.n, y);
    }
    singular = kernels::Or(singular, solver.Run(range, line.omega_rad_s));
    kernels::NormalTermsOfSolution(range.posture, solver.x(), two_points ? y : solver.x(),
                                   range.coefficients, sensitivity, dim, line,
                                   range.fit_order, range.cost_kind, range.phase_mode,
                                   terms + static_cast<size_t>(b) * w, stride, singular, &slots);
  }
  *status |= FoldStatus(slots);
}

#define FRFIT_LINE_KERNELS(suffix, attributes, Solve, Score)                                    \
  attributes void CostLines##suffix(const BlockRange& range, double* line_costs,               \
                                    unsigned* status) {                                        \
    CostLines<Solve, Score>(range, line_costs, status);                                        \
  }                                                                                            \
  attributes void NormalLines##suffix(const BlockRange& range, const double* sensitivity,      \
                                      int dim, double* terms, long long stride,                \
                                      unsigned* status) {                                      \
    NormalLines<Solve, Score>(range, sensitivity, dim, terms, stride, status);                 \
  }

using kernels::SimdPair;
using kernels::SimdReal;
FRFIT_LINE_KERNELS(Scalar, __attribute__((flatten)), double, double)
FRFIT_LINE_KERNELS(Sse2, __attribute__((flatten)), SimdReal<2>, SimdReal<2>)
FRFIT_LINE_KERNELS(Sse2x4, __attribute__((flatten)), SimdReal<2>, SimdPair<2>)
#if defined(__x86_64__)
FRFIT_LINE_KERNELS(Avx2, __attribute__((target("avx2"), flatten)), SimdReal<4>, SimdPair<4>)
FRFIT_LINE_KERNELS(Avx2x4, __attribute__((target("avx2"), flatten)), SimdReal<4>, SimdReal<4>)
FRFIT_LINE_KERNELS(Avx512, __attribute__((target("avx512f,avx512dq"), flatten)), SimdReal<8>,
                   SimdReal<8>)
#endif
#undef FRFIT_LINE_KERNELS

struct Variant {
  LineKernels kernels;
  bool (*runs)();
};

const std::vector<Variant>& Variants() {
  static const std::vector<Variant> variants = {
      {{"scalar", 1, 1, CostLinesScalar, NormalLinesScalar}, [] { return true; }},
      // SSE2 is part of x86-64; elsewhere the compiler lowers 2-slot vectors to what there is.
      {{"sse2", 2, 2, CostLinesSse2, NormalLinesSse2}, [] { return true; }},
      {{"sse2x4", 4, 2, CostLinesSse2x4, NormalLinesSse2x4}, [] { return true; }},
#if defined(__x86_64__)
      {{"avx2", 8, 4, CostLinesAvx2, NormalLinesAvx2},
       [] { return __builtin_cpu_supports("avx2") != 0; }},
      {{"avx2x4", 4, 4, CostLinesAvx2x4, NormalLinesAvx2x4},
       [] { return __builtin_cpu_supports("avx2") != 0; }},
      {{"avx512", 8, 8, CostLinesAvx512, NormalLinesAvx512},
       [] {
         return __builtin_cpu_supports("avx512f") != 0 &&
                __builtin_cpu_supports("avx512dq") != 0;
       }},
#endif
  };
  return variants;
}

}  // namespace

LineBlocks MakeLineBlocks(const PackedPosture& posture, int width) {
  LineBlocks out;
  out.width = width;
  out.lines = posture.num_lines();
  out.blocks = (out.lines + width - 1) / width;
  out.values.resize(static_cast<size_t>(out.blocks) * kLineValues * width);
  for (int b = 0; b < out.blocks; ++b) {
    double* block = out.values.data() + static_cast<size_t>(b) * kLineValues * width;
    for (int slot = 0; slot < width; ++slot) {
      const int l = std::min(b * width + slot, out.lines - 1);
      block[slot] = posture.omega_rad_s[l];
      for (int e = 0; e < 9; ++e) block[(1 + e) * width + slot] = posture.weight[9 * l + e];
      for (int v = 0; v < 18; ++v) block[(10 + v) * width + slot] = posture.target[18 * l + v];
    }
  }
  return out;
}

std::vector<LineKernels> SupportedLineKernels() {
  std::vector<LineKernels> out;
  for (const Variant& v : Variants())
    if (v.runs()) out.push_back(v.kernels);
  return out;
}

LineKernels FindLineKernels(const std::string& name) {
  std::string want = name;
  if (want.empty()) {
    // avx2 wherever it runs, AVX-512 machines included: the avx512 variant has not been timed
    // (docs/cpu-backend.md). Without AVX2, the SSE2 pair (measured faster than sse2).
    want = "sse2x4";
    for (const LineKernels& k : SupportedLineKernels())
      if (std::string(k.name) == "avx2") want = k.name;
  }
  std::string known;
  for (const Variant& v : Variants()) {
    if (want == v.kernels.name) {
      if (!v.runs())
        throw Error("", "cpu simd", "this processor cannot run '" + want + "'");
      return v.kernels;
    }
    known += (known.empty() ? "" : ", ") + std::string(v.kernels.name);
  }
  throw Error("", "cpu simd", "expected one of " + known + ", got '" + name + "'");
}

std::string LineKernels::Describe() const {
  const auto lines = [](int w) { return std::to_string(w) + (w == 1 ? " line" : " lines"); };
  if (solve_width == width) return std::string(name) + " (" + lines(width) + " per vector)";
  return std::string(name) + " (blocks of " + lines(width) + ", solved " +
         std::to_string(solve_width) + " at a time)";
}

}  // namespace frfit::cpu
