// The cpu backend's inner loops: the per-line arithmetic of kernels/line_cost.h and
// kernels/line_normal.h run over blocks of lines, compiled once per instruction set, the lines of a
// block side by side in the slots of one SIMD vector (kernels/simd.h). Every instruction set gives
// the bits of the scalar one, which gives the cuda backend's (DESIGN.md §3, docs/cpu-backend.md).
//
// Only plain pointers and integers cross from here into code compiled for another instruction
// set, so the caller needs no vector type and no target attribute.
#pragma once

#include <string>
#include <vector>

#include "frfit/evaluator/packed_problem.h"
#include "kernels/line_cost.h"

namespace frfit::cpu {

// Doubles per line in a block: ω, the 9 weights and the 18 targets.
constexpr int kLineValues = 28;

// A posture's lines as the kernels read them: blocks of `width` lines, block b at
// values[b · kLineValues · width] holding ω [width], weight [9][width], target [9][2][width].
// The last block is filled up by repeating the posture's last line, whose results are not used.
struct LineBlocks {
  int width = 1;
  int lines = 0;
  int blocks = 0;
  std::vector<double> values;
};
LineBlocks MakeLineBlocks(const PackedPosture& posture, int width);

// Blocks [first_block, last_block) of one posture for one individual's coefficients (3n + 1).
struct BlockRange {
  kernels::PostureArrays posture;
  const double* coefficients;
  const LineBlocks* lines;
  int first_block;
  int last_block;
  int fit_order;
  int cost_kind;
  int phase_mode;
  int loss;
  double loss_scale;
};

// The line costs of a range, line l of the posture at line_costs[l]; the kernels::LineStatus bits
// of its lines are or-ed into *status. line_costs has room for every block's lines.
using CostLinesFn = void (*)(const BlockRange& range, double* line_costs, unsigned* status);

// The normal-equation terms of a range, term t of line l at terms[t · stride + l]
// (kernels::LineNormalTerms); stride >= blocks · width.
using NormalLinesFn = void (*)(const BlockRange& range, const double* sensitivity, int dim,
                               double* terms, long long stride, unsigned* status);

// One compiled variant of the loops: a block of `width` lines is solved `solve_width` lines per
// vector and scored all at once (width = 2·solve_width: a pair of vectors, see the .cc).
struct LineKernels {
  const char* name;  // "scalar", "sse2", "sse2x4", "avx2", "avx2x4", "avx512"
  int width;         // lines per block
  int solve_width;   // lines per vector in the elimination
  CostLinesFn cost;
  NormalLinesFn normal;
  std::string Describe() const;  // e.g. "avx2 (blocks of 8 lines, solved 4 at a time)"
};

// Every variant this processor runs. "scalar" (Real = double) is always there.
std::vector<LineKernels> SupportedLineKernels();

// The variant called `name`; "" is the cpu backend's default: avx2 where the processor has it,
// sse2x4 elsewhere. Throws Error for a name that does not exist or that this processor cannot run.
LineKernels FindLineKernels(const std::string& name);

}  // namespace frfit::cpu
