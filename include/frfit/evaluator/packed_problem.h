// PackedProblem: everything about one fitting problem that stays fixed during a fit, laid out as
// the per-line kernels read it (kernels/line_cost.h). An evaluator receives these once and keeps
// them (the cuda backend keeps them resident on the device); per call only coefficients move.
//
// Packing orders:
//   mass, gravity      [n][n]     basis   [n][3]     response_basis [n][3] or empty
//   mass_parts, gravity_parts     [masses][n][n]
//   part_matrices [parts][n][n]   part_layout [parts][2] = (kernels::PartTarget, coefficient)
//   omega_rad_s        [line]     weight  [line][entry]     target  [line][entry][2]
//   coefficients of a call   [problem][individual][posture][3n + 1 + masses + parts]
//                            (kernels::CoefficientStride)
//   costs, status of a call  [problem][individual]
#pragma once

#include <cstdint>
#include <vector>

namespace frfit {

struct PackedPosture {
  // M0 and K_gravity; with fitted masses their rest (those masses at 0), each mass's share per kg
  // in mass_parts and gravity_parts (kernels::PostureArrays).
  std::vector<double> mass;
  std::vector<double> gravity;
  std::vector<double> mass_parts;
  std::vector<double> gravity_parts;
  // Affine parts (posture/posture.h, AffinePart) in Posture::affine_parts order: each part's n×n
  // matrix and its (target, coefficient index) pair, the index counting from the part
  // coefficients' start (kernels::PostureArrays). Empty for lumped-joint models.
  std::vector<double> part_matrices;
  std::vector<double> part_layout;
  std::vector<double> basis;           // the excitation point's B_b (the sensor: the tool tip)
  // The response point's B_a when it is another point than the excitation's (a multi-point set);
  // empty when they are the same, and the kernels then take `basis` (kernels::PostureArrays).
  std::vector<double> response_basis;
  std::vector<double> omega_rad_s;
  std::vector<double> weight;
  std::vector<double> target;
  double posture_weight = 1.0;  // multiplies this posture's summed line costs
  int fit_order = 2;            // 0 receptance, 1 mobility, 2 inertance
  // A static deflection test (cost/static_sets.h): scored by the linear residual
  // (kernels::kCostNormalizedComplex) whatever the problem's cost kind; its residuals are real.
  bool is_static = false;

  int num_lines() const { return static_cast<int>(omega_rad_s.size()); }
  int num_parts() const { return static_cast<int>(part_layout.size() / 2); }
  // The kernels::CostKind this posture is scored with, the problem's being `problem_kind`.
  int CostKind(int problem_kind) const {
    return is_static ? 2 /* kernels::kCostNormalizedComplex, asserted in problem.cc */ : problem_kind;
  }
  const double* response_data() const {
    return response_basis.empty() ? basis.data() : response_basis.data();
  }
};

struct PackedProblem {
  int n = 0;                    // elastic DOFs (the same at every posture)
  int masses = 0;               // fitted body masses, the coefficients after α
  int parts = 0;                // affine part coefficients, the last coefficients
  int cost_kind = 0;            // kernels::CostKind
  int phase_mode = 0;           // kernels::PhaseMode
  int loss = 0;                 // kernels::LossKind, applied to each entry's weighted error
  double loss_scale = 0.0;      // its scale c (> 0 with a loss)
  // The weights are inverse noise variances (cost.weights.mode noise): twice the cost is then the
  // χ² of the residuals against the noise model. Not read by the kernels.
  bool noise_weighted = false;
  std::vector<PackedPosture> postures;

  int num_postures() const { return static_cast<int>(postures.size()); }
  int coefficient_stride() const { return 3 * n + 1 + masses + parts; }
  // FRF and static-test lines over every posture: 0 for a fit from modes alone, whose cost the
  // host computes (fit/modal_cost.h), so that no line kernel ever runs on it.
  long long num_lines() const {
    long long lines = 0;
    for (const PackedPosture& p : postures) lines += p.num_lines();
    return lines;
  }
};

// Outcome of one individual's evaluation. A non-OK individual's cost is +inf, so optimisers rank
// it last instead of being steered by a NaN.
enum class EvalStatus : std::uint8_t { kOk = 0, kSingular = 1, kNonFinite = 2 };

}  // namespace frfit
