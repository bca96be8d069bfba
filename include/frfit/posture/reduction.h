// Reduction of a posture with many elastic coordinates (beam bodies) to a small basis that stays
// exact enough in the fitted band (DESIGN.md §8), so that the batched evaluator's per-line solve
// does not grow with the finite-element size.
//
// The joints (the coordinates with springs, the first `joints` of Model::dofs) are kept as they
// are; only the beams' coordinates (no spring: zero diagonal coefficients) are reduced, in the
// manner of Craig–Bampton with the joints as the interface:
//     V = [ I    0 ]      Φ = −K_bb⁻¹ K_bj at the first sample (static constraint modes),
//         [ Φ    Ψ ]      Ψ = interior vectors, M_bb-orthonormal,
// so a joint's diagonal stiffness, damping and loss stay diagonal, on the same coordinate, in the
// reduced posture, whose coefficients are then the joints' followed by zeros
// (ReducedCoefficients). Ψ spans, at every sample of the parameters (the initial values and the
// bounds: a multi-point Ritz basis, so it holds over the search box):
//   - the fixed-interface undamped modes (K_bb, M_bb) up to modes_up_to_hz,
//   - the change of the constraint modes from the first sample,
//   - static corrections (residual flexibility) for the loads: K_bb⁻¹ L for each point basis's
//     beam rows and each constraint mode's inertia load (M_bj + M_bb Φ), and `krylov_orders` − 1
//     further Krylov steps K_bb⁻¹ M_bb (·), which take the truncation error from (ω/ω_cut)² to
//     (ω/ω_cut)^(2·orders),
// added in that order and kept when independent (modified Gram–Schmidt in the M_bb inner product,
// twice, a candidate dropped when less than drop_tolerance of it is new).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/posture.h"

namespace frfit {

struct ReductionOptions {
  double modes_up_to_hz = 0.0;   // interior modes below this; must be > 0
  int krylov_orders = 2;         // static correction orders (0: none)
  int size = 0;                  // at least this many coordinates (further modes), 0: as found
  double drop_tolerance = 1e-8;  // relative M_bb-norm below which a candidate is dependent

  // Names the offending field ("modes_up_to_hz", "krylov_orders", "size", "drop_tolerance"):
  // modes_up_to_hz finite and > 0, krylov_orders 0 to 8 (as the fit configuration's), size >= 0,
  // drop_tolerance in (0, 1). The default is not valid: modes_up_to_hz has no default.
  bool IsValid(std::string* error) const;
};

struct Reduction {
  Eigen::MatrixXd basis;  // V, n×r, first `joints` rows [I 0]
  int joints = 0;
  Posture posture;        // the reduced posture, n = r
  int modes = 0;          // interior modes in Ψ
  int corrections = 0;    // constraint-mode changes and static corrections in Ψ
};

// Reduces `full` keeping coordinates 0 .. joints − 1; `samples` are the coefficient sets the basis
// must hold at (the first is where the constraint modes are taken), `loads` the n×3 bases of the
// points whose responses and excitations are fitted (the sensor's is always added). Errors name
// `what` (e.g. the posture); invalid options are refused before any work ("reduction.<field>").
Reduction Reduce(const Posture& full, int joints, const std::vector<JointCoefficients>& samples,
                 const std::vector<Eigen::MatrixXd>& loads, const ReductionOptions& options,
                 const std::string& what);

// Vᵀ B: a point's basis (n×3) in the reduced coordinates.
Eigen::MatrixXd ReducedPointBasis(const Reduction& reduction, const Eigen::MatrixXd& basis);

// `c` of the full model in the reduced posture's layout: the joints' diagonal coefficients, then
// zeros to r; α, masses and part coefficients as they are.
JointCoefficients ReducedCoefficients(const JointCoefficients& c, int joints, int r);

// How ReductionError solves the full model and the reduced posture. kSchur: the beams' block by an
// LU once per line for every sample that shares it (sparse in the full model, dense in the reduced
// posture), each sample's joints' Schur complement (the dense LU's solution up to rounding; a line
// where forming the complement would cancel falls back to the dense LU); kDense: a dense LU of all
// coordinates per sample and line — the exact check of kSchur, at n³ per sample and line.
enum class FullSolve { kSchur, kDense };

// The largest relative receptance error ‖H_full − H_reduced‖_F / ‖H_full‖_F over the lines
// `frequency_hz` and the coefficient sets `samples`, at the sensor.
double ReductionError(const Posture& full, const Reduction& reduction,
                      const std::vector<JointCoefficients>& samples,
                      const std::vector<double>& frequency_hz,
                      FullSolve solve = FullSolve::kSchur);

}  // namespace frfit
