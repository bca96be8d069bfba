// Residues of known poles by least squares in the frequency domain (LSFD), and the mode shape a
// residue matrix implies (at a driving point, or at a transfer set's response point). With the
// poles fixed the modal model is linear in its residues, so each FRF entry is one small linear
// least-squares problem (all entries share the basis, so one factorisation serves them all).
//
// Model of entry ij, in the set's format of derivative order d (0 receptance, 1 mobility, 2
// inertance):
//   H_ij(ω) = (iω)^d [ Σ_p ( R_p,ij/(iω − λ_p) + conj(R_p,ij)/(iω − conj λ_p) ) + U_ij + L_ij/(iω)²
//   ]
// with complex residues R and real upper and lower residuals U, L for the modes outside the band.
#pragma once

#include <Eigen/Core>
#include <array>
#include <complex>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit {

struct LsfdFit {
  // [pole][EntryIndex]: receptance residue R_p,ij (m/N/s); 0 where the entry is not present.
  std::vector<std::array<std::complex<double>, 9>> residues;
  std::array<double, 9> lower_residual{};
  std::array<std::array<double, 3>, 9> upper_residual{};  // U0, U1, U2
  FrfSet synthesized;  // the modal model at `lines`, in the set's format, its present entries
};

// Columns of ModalBasis after the poles' two each: L, U0, U1, U2.
constexpr int kResidualTerms = 4;

// The model's basis at `lines` (rows) in the set's format: columns 2p and 2p + 1 multiply
// Re R_p and Im R_p, the last kResidualTerms L, U0, U1, U2.
Eigen::MatrixXcd ModalBasis(const FrfSet& set, const std::vector<int>& lines,
                            const std::vector<std::complex<double>>& poles);

// ModalBasis with real and imaginary parts stacked: the real least-squares matrix of the real
// unknowns.
Eigen::MatrixXd Stacked(const Eigen::MatrixXcd& basis);

// One entry's weighted real least squares against a stacked basis (`weights`: [line][EntryIndex],
// empty for none): the unknowns x, the weighted residual, the weights as applied to the stacked
// rows, and an orthonormal basis q of the weighted columns (for projections).
struct EntryLeastSquares {
  Eigen::VectorXd x, residual, weights;
  Eigen::MatrixXd q;
};
EntryLeastSquares SolveEntry(const Eigen::MatrixXd& stacked_basis, const FrfSet& set,
                             const std::vector<int>& lines, int entry,
                             const std::vector<double>& weights);

// `lines`: line indices of `set` with f > 0. `poles`: λ_p with Im λ_p > 0. `weights` as for
// SolveEntry.
LsfdFit FitResidues(const FrfSet& set, const std::vector<int>& lines,
                    const std::vector<std::complex<double>>& poles,
                    const std::vector<double>& weights = {});

// The mode shape φ at the sensor (x, y, z) with R_ij ≈ φ_i φ_j over the present entries — the
// residue matrix of a reciprocal driving-point FRF matrix is symmetric and of rank one — scaled so
// that its largest component is 1. Components of axes that no present entry involves are NaN;
// with only direct entries the relative signs cannot be known and are left positive.
Eigen::Vector3cd ShapeFromResidues(const std::array<std::complex<double>, 9>& residues,
                                   const std::array<bool, 9>& present);

// The response point's mode shape φ_a (x, y, z in its frame) of a transfer set, whose residue
// matrix R = φ_a φ_bᵀ / a_r is of rank one but not symmetric (the response and the excitation point
// differ): the left factor u of the least-squares fit R_ij ≈ u_i v_j over the present entries —
// with all nine, the leading left singular vector — scaled so that its largest component is 1.
// Components the present entries cannot determine are NaN: an axis without a present entry, or
// one whose entries share no excitation axis with the others' (its scale against them is unknown).
Eigen::Vector3cd ResponseShapeFromResidues(const std::array<std::complex<double>, 9>& residues,
                                           const std::array<bool, 9>& present);

}  // namespace frfit
