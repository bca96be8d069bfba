// The per-instruction-set copies of the cpu backend's inner loops (cpu_line_kernels.h).
//
// One template (CostLines / NormalLines over a Real) is instantiated per variant inside a function
// that carries the variant's target attribute and `flatten`: everything it calls, down to the last
// complex multiply, is inlined into it and compiled for that target, while this file as a whole is
// compiled for the baseline x86-64, so one binary runs everywhere and picks at run time. The AVX2
// target does not include FMA, and the file is compiled with -ffp-contract=off besides, so no
// a·b + c is fused (tests/unit/evaluator/cpu_no_fma_test.cmake checks the machine code).
// -fno-math-errno (CMakeLists.txt) lets sqrt be one instruction per vector; it rounds the same.
#include "src/evaluator/cpu_line_kernels.h"

#include <algorithm>

#include "frfit/common/error.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"
#include "kernels/simd.h"

namespace frfit::cpu {
namespace {

template <typename Real>
kernels::LineTargetOf<Real> BlockTarget(const LineBlocks& lines, int block) {
  constexpr int w = kernels::WidthOf<Real>();
  const double* values = lines.values.data() + static_cast<size_t>(block) * kLineValues * w;
  return {kernels::Load<Real>(values), values + w, values + 10 * w};
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

template <typename Real>
inline void CostLines(const BlockRange& range, double* line_costs, unsigned* status) {
  constexpr int w = kernels::WidthOf<Real>();
  kernels::StatusOf<Real> slots{};
  for (int b = range.first_block; b < range.last_block; ++b) {
    const Real cost = kernels::LineCost(range.posture, range.coefficients,
                                        BlockTarget<Real>(*range.lines, b), range.fit_order,
                                        range.cost_kind, range.phase_mode, &slots);
    kernels::Store(line_costs + static_cast<size_t>(b) * w, cost);
  }
  *status |= FoldStatus(slots);
}

template <typename Real>
inline void NormalLines(const BlockRange& range, const double* sensitivity, int dim,
                        double* terms, long long stride, unsigned* status) {
  constexpr int w = kernels::WidthOf<Real>();
  kernels::StatusOf<Real> slots{};
  for (int b = range.first_block; b < range.last_block; ++b)
    kernels::LineNormalTerms(range.posture, range.coefficients, sensitivity, dim,
                             BlockTarget<Real>(*range.lines, b), range.fit_order,
                             range.cost_kind, range.phase_mode,
                             terms + static_cast<size_t>(b) * w, stride, &slots);
  *status |= FoldStatus(slots);
}

#define FRFIT_LINE_KERNELS(suffix, attributes, Real)                                            \
  attributes void CostLines##suffix(const BlockRange& range, double* line_costs,               \
                                    unsigned* status) {                                        \
    CostLines<Real>(range, line_costs, status);                                                \
  }                                                                                            \
  attributes void NormalLines##suffix(const BlockRange& range, const double* sensitivity,      \
                                      int dim, double* terms, long long stride,                \
                                      unsigned* status) {                                      \
    NormalLines<Real>(range, sensitivity, dim, terms, stride, status);                         \
  }

FRFIT_LINE_KERNELS(Scalar, __attribute__((flatten)), double)
FRFIT_LINE_KERNELS(Sse2, __attribute__((flatten)), kernels::SimdReal<2>)
#if defined(__x86_64__)
FRFIT_LINE_KERNELS(Avx2, __attribute__((target("avx2"), flatten)), kernels::SimdReal<4>)
FRFIT_LINE_KERNELS(Avx2x8, __attribute__((target("avx2"), flatten)), kernels::SimdPair<4>)
FRFIT_LINE_KERNELS(Avx512, __attribute__((target("avx512f,avx512dq"), flatten)),
                   kernels::SimdReal<8>)
#endif
#undef FRFIT_LINE_KERNELS

struct Variant {
  LineKernels kernels;
  bool (*runs)();
};

const std::vector<Variant>& Variants() {
  static const std::vector<Variant> variants = {
      {{"scalar", 1, CostLinesScalar, NormalLinesScalar}, [] { return true; }},
      // SSE2 is part of x86-64; elsewhere the compiler lowers 2-slot vectors to what there is.
      {{"sse2", 2, CostLinesSse2, NormalLinesSse2}, [] { return true; }},
#if defined(__x86_64__)
      {{"avx2", 4, CostLinesAvx2, NormalLinesAvx2},
       [] { return __builtin_cpu_supports("avx2") != 0; }},
      {{"avx2x8", 8, CostLinesAvx2x8, NormalLinesAvx2x8},
       [] { return __builtin_cpu_supports("avx2") != 0; }},
      {{"avx512", 8, CostLinesAvx512, NormalLinesAvx512},
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

namespace {

// The largest n for which two registers per vector (avx2x8) beat one (avx2).
constexpr int kMaxDofsForPairs = 9;

bool Runs(const std::string& name) {
  for (const LineKernels& k : SupportedLineKernels())
    if (name == k.name) return true;
  return false;
}

}  // namespace

LineKernels ChooseLineKernels(const std::string& name, int n) {
  std::string want = name;
  if (want.empty()) want = !Runs("avx2") ? "sse2" : n <= kMaxDofsForPairs ? "avx2x8" : "avx2";
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

std::string DescribeLineKernels(const std::string& name) {
  if (name.empty() && Runs("avx2"))
    return "avx2 (8 lines per vector up to " + std::to_string(kMaxDofsForPairs) +
           " DOFs, 4 above)";
  const LineKernels k = ChooseLineKernels(name, 1);
  return std::string(k.name) + " (" + std::to_string(k.width) +
         (k.width == 1 ? " line" : " lines") + " per vector)";
}

}  // namespace frfit::cpu
