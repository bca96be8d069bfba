// ReductionError (posture/reduction.h): the full model's receptances at every sample and line
// against the reduced posture's. These solves are the cost of a reduced fit's set-up (a KUKA with
// two 20-element beams: 255 coordinates reduced to 27, 37 samples, 150 lines, three postures), so
// they exploit two structures of the models:
//   - the samples differ mostly in the joints' coefficients, which sit in the joints' diagonal
//     block only: the samples whose other blocks are equal share everything but Z_jj;
//   - the full model's beams' block Z_bb is sparse (each beam's element matrices are banded; a
//     beam couples to the beams it carries only through the few coordinates of its station), so
//     it is factored by a sparse LU whose ordering is analysed once per group of samples; the
//     reduced posture's (its modes and corrections, 18 of its 27 coordinates) is small and dense.
// Per line and group: Z_bb = LU, Y = Z_bb⁻¹ [Z_bj B_b], G = Z_jb Y and P = B_bᵀ Y (all small);
// per sample only the joints' Schur complement
//     S = Z_jj − Z_jb Z_bb⁻¹ Z_bj,  x_j = S⁻¹ (B_j − Z_jb Z_bb⁻¹ B_b),
//     H = B_jᵀ x_j + B_bᵀ (Z_bb⁻¹ B_b − Z_bb⁻¹ Z_bj x_j),
// joints × joints. This is the dense LU's solution up to rounding as long as neither difference
// cancels: where the terms of S or of H exceed kMaxCancellation times the result (a line on a
// lightly damped fixed-interface beam mode: Z_bb nearly singular) or the sparse LU fails, the
// sample takes the dense LU of the whole Z. FullSolve::kDense takes that dense LU everywhere: the
// exact check.
#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "frfit/posture/reduction.h"
#include "src/posture/reduction_samples.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;
using SparseZ = Eigen::SparseMatrix<Cplx, Eigen::ColMajor, int>;

template <typename Block>
Eigen::MatrixXcd Dynamic(const SampleMatrices& s, double omega, Block block) {
  return -omega * omega * block(s.m).template cast<Cplx>() +
         Cplx(0.0, omega) * block(s.c).template cast<Cplx>() + block(s.k);
}

Eigen::MatrixXcd Dynamic(const SampleMatrices& s, double omega) {
  return Dynamic(s, omega, [](const auto& a) { return a; });
}

// The Schur complement S = Z_jj − G and the receptance H = B_jᵀx_j + B_bᵀZ_bb⁻¹B_b − P x_j are
// differences; past this ratio of their terms to the result (more than six digits cancelled, the
// rest rounding: Z_bb nearly singular, a line on a lightly damped fixed-interface beam mode) the
// sample is solved densely instead.
constexpr double kMaxCancellation = 1e6;

// Z_bb of one group, factored per line: the full model's is sparse (each beam's element matrices
// are banded; a beam couples to the beams it carries only through the few coordinates of its
// station), the reduced posture's is dense (its modes and static corrections couple every pair).
class BeamBlock {
 public:
  virtual ~BeamBlock() = default;
  // Factors Z_bb at ω; false when the factorization fails.
  virtual bool Factor(double omega) = 0;
  virtual Eigen::MatrixXcd Solve(const Eigen::MatrixXcd& r) = 0;
};

// The sparse Z_bb: its pattern (every cell where M_bb, K_bb or C_bb is non-zero), analysed once,
// and per line its values −ω²m + iωc + k.
class SparseBeamBlock : public BeamBlock {
 public:
  SparseBeamBlock(const SampleMatrices& s, int joints) {
    const int nb = static_cast<int>(s.m.rows()) - joints;
    std::vector<Eigen::Triplet<Cplx>> cells;
    for (int col = 0; col < nb; ++col)
      for (int row = 0; row < nb; ++row) {
        const int i = joints + row, j = joints + col;
        if (s.m(i, j) != 0.0 || s.k(i, j) != 0.0 || s.c(i, j) != 0.0) cells.emplace_back(row, col);
      }
    z_.resize(nb, nb);
    z_.setFromTriplets(cells.begin(), cells.end());  // one cell each, in column order
    for (const auto& t : cells) {
      m_.push_back(s.m(joints + t.row(), joints + t.col()));
      c_.push_back(s.c(joints + t.row(), joints + t.col()));
      k_.push_back(s.k(joints + t.row(), joints + t.col()));
    }
    lu_.analyzePattern(z_);
  }
  bool Factor(double omega) override {
    Cplx* v = z_.valuePtr();
    for (size_t i = 0; i < m_.size(); ++i) v[i] = -omega * omega * m_[i] + Cplx(0.0, omega) * c_[i] + k_[i];
    lu_.factorize(z_);
    return lu_.info() == Eigen::Success;
  }
  Eigen::MatrixXcd Solve(const Eigen::MatrixXcd& r) override { return lu_.solve(r); }

 private:
  SparseZ z_;
  std::vector<double> m_, c_;
  std::vector<Cplx> k_;
  Eigen::SparseLU<SparseZ, Eigen::COLAMDOrdering<int>> lu_;
};

// The dense Z_bb by a partial-pivoting LU (a singular one leaves non-finite solutions, which
// SchurLine refuses).
class DenseBeamBlock : public BeamBlock {
 public:
  DenseBeamBlock(const SampleMatrices& s, int joints) : s_(s), joints_(joints) {}
  bool Factor(double omega) override {
    const Eigen::Index nb = s_.m.rows() - joints_;
    lu_.compute(Dynamic(s_, omega, [&](const auto& a) { return a.bottomRightCorner(nb, nb); }));
    return true;
  }
  Eigen::MatrixXcd Solve(const Eigen::MatrixXcd& r) override { return lu_.solve(r); }

 private:
  const SampleMatrices& s_;
  int joints_;
  Eigen::PartialPivLU<Eigen::MatrixXcd> lu_;
};

// The sensor-to-sensor receptance of Z by a dense LU of all its coordinates.
Eigen::Matrix3cd DenseReceptance(const Eigen::MatrixXcd& z, const Eigen::MatrixXcd& b) {
  return b.transpose() * Eigen::PartialPivLU<Eigen::MatrixXcd>(z).solve(b);
}

// One group's receptances at one line by the Schur complement; solved[s] tells which samples it
// solved (none where the beams' LU failed; see kMaxCancellation).
void SchurLine(const SampleMatrixSet& set, size_t g, const Eigen::MatrixXcd& b, double omega,
               BeamBlock* beams, std::vector<std::vector<Eigen::Matrix3cd>>* h, size_t line,
               std::vector<char>* solved) {
  std::fill(solved->begin(), solved->end(), 0);
  if (!beams->Factor(omega)) return;
  const int joints = set.joints, n = static_cast<int>(b.rows()), nb = n - joints;
  const SampleMatrices& s0 = set.full[g];
  const Eigen::MatrixXcd zbj =
      Dynamic(s0, omega, [&](const auto& a) { return a.bottomLeftCorner(nb, joints); });
  const Eigen::MatrixXcd zjb =
      Dynamic(s0, omega, [&](const auto& a) { return a.topRightCorner(joints, nb); });
  Eigen::MatrixXcd rhs(nb, joints + 3);
  rhs << zbj, b.bottomRows(nb);
  const Eigen::MatrixXcd y = beams->Solve(rhs);  // [Z_bb⁻¹ Z_bj, Z_bb⁻¹ B_b]
  if (!y.allFinite()) return;
  const Eigen::MatrixXcd gy = zjb * y;  // [G = Z_jb Z_bb⁻¹ Z_bj, Z_jb Z_bb⁻¹ B_b]
  const Eigen::MatrixXcd p = b.bottomRows(nb).transpose() * y;  // [P, Q = B_bᵀ Z_bb⁻¹ B_b]
  const Eigen::MatrixXcd bj = b.topRows(joints);
  const double g_norm = gy.leftCols(joints).norm(), q_norm = p.rightCols(3).norm();
  for (size_t s = g; s < set.group.size(); ++s) {
    if (set.group[s] != g) continue;
    const Eigen::MatrixXcd schur = Dynamic(set.joint_block[s], omega) - gy.leftCols(joints);
    const Eigen::MatrixXcd xj =
        Eigen::PartialPivLU<Eigen::MatrixXcd>(schur).solve(bj - gy.rightCols(3));
    const Eigen::Matrix3cd px = p.leftCols(joints) * xj;
    const Eigen::Matrix3cd hs = bj.transpose() * xj + p.rightCols(3) - px;
    const double h_norm = hs.norm();
    if (!(g_norm <= kMaxCancellation * schur.norm()) ||
        !(std::max(q_norm, px.norm()) <= kMaxCancellation * h_norm))
      continue;
    (*h)[s][line] = hs;
    (*solved)[s] = 1;
  }
}

// How Z_bb is factored: sparse (a full model's beams) or dense (a reduced posture's).
enum class BeamSolve { kSparse, kDense };

// Receptances H[s][line] of `posture`, sensor to sensor.
std::vector<std::vector<Eigen::Matrix3cd>> Receptances(
    const Posture& posture, int joints, const std::vector<JointCoefficients>& samples,
    const std::vector<double>& frequency_hz, FullSolve solve, BeamSolve beam_solve) {
  const SampleMatrixSet set = BuildSampleSet(posture, joints, samples);
  const Eigen::MatrixXcd b = posture.sensor_basis.cast<Cplx>();
  std::vector<std::vector<Eigen::Matrix3cd>> h(samples.size(),
                                                std::vector<Eigen::Matrix3cd>(frequency_hz.size()));
  const bool schur = solve == FullSolve::kSchur && joints > 0 && joints < posture.n;
  std::vector<std::optional<SampleMatrices>> dense(samples.size());  // built where first needed
  for (size_t g = 0; g < samples.size(); ++g) {
    if (set.group[g] != g) continue;
    std::unique_ptr<BeamBlock> beams;
    if (schur && beam_solve == BeamSolve::kSparse)
      beams = std::make_unique<SparseBeamBlock>(set.full[g], joints);
    if (schur && beam_solve == BeamSolve::kDense)
      beams = std::make_unique<DenseBeamBlock>(set.full[g], joints);
    std::vector<char> solved(samples.size(), 0);
    for (size_t l = 0; l < frequency_hz.size(); ++l) {
      const double omega = 2.0 * M_PI * frequency_hz[l];
      if (schur) SchurLine(set, g, b, omega, beams.get(), &h, l, &solved);
      for (size_t s = g; s < samples.size(); ++s) {
        if (set.group[s] != g || solved[s]) continue;
        if (!dense[s]) dense[s] = set.Full(s);
        h[s][l] = DenseReceptance(Dynamic(*dense[s], omega), b);
      }
    }
  }
  return h;
}

}  // namespace

double ReductionError(const Posture& full, const Reduction& reduction,
                      const std::vector<JointCoefficients>& samples,
                      const std::vector<double>& frequency_hz, FullSolve solve) {
  const int joints = reduction.joints;
  std::vector<JointCoefficients> reduced;
  for (const JointCoefficients& c : samples)
    reduced.push_back(ReducedCoefficients(c, joints, reduction.posture.n));
  const std::vector<std::vector<Eigen::Matrix3cd>> a =
      Receptances(full, joints, samples, frequency_hz, solve, BeamSolve::kSparse);
  const std::vector<std::vector<Eigen::Matrix3cd>> b =
      Receptances(reduction.posture, joints, reduced, frequency_hz, solve, BeamSolve::kDense);
  double worst = 0.0;
  for (size_t s = 0; s < samples.size(); ++s)
    for (size_t l = 0; l < frequency_hz.size(); ++l)
      worst = std::max(worst, (a[s][l] - b[s][l]).norm() / a[s][l].norm());
  return worst;
}

}  // namespace frfit
