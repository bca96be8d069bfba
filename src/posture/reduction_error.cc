// ReductionError (posture/reduction.h): the full model's receptances at every sample and line
// against the reduced posture's. The full solve is the cost of a reduced fit's set-up (a KUKA with
// two 20-element beams: 255 coordinates, 37 samples, 150 lines, three postures), so it exploits
// two structures of the full model:
//   - the samples differ mostly in the joints' coefficients, which sit in the joints' diagonal
//     block only: the samples whose other blocks are equal share everything but Z_jj;
//   - the beams' block Z_bb is sparse (each beam's element matrices are banded; a beam couples to
//     the beams it carries only through the few coordinates of its station), so it is factored by
//     a sparse LU whose ordering is analysed once per group of samples.
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
#include <cstdlib>
#include <optional>

#include "frfit/frf/synthesize.h"
#include "frfit/posture/reduction.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;
using SparseZ = Eigen::SparseMatrix<Cplx, Eigen::ColMajor, int>;

struct SampleMatrices {
  Eigen::MatrixXd m, c;
  Eigen::MatrixXcd k;
};

// Whether two samples' matrices agree outside the joints' diagonal block, bit for bit.
bool SameBeamRows(const SampleMatrices& a, const SampleMatrices& b, int joints) {
  const Eigen::Index nb = a.m.rows() - joints;
  auto same = [&](const auto& x, const auto& y) {
    return x.bottomRows(nb) == y.bottomRows(nb) &&
           x.topRightCorner(joints, nb) == y.topRightCorner(joints, nb);
  };
  return same(a.m, b.m) && same(a.k, b.k) && same(a.c, b.c);
}

// group[s]: the first sample whose beam rows equal sample s's.
std::vector<size_t> GroupSamples(const std::vector<SampleMatrices>& s, int joints) {
  std::vector<size_t> group(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    group[i] = i;
    for (size_t g = 0; g < i; ++g)
      if (group[g] == g && SameBeamRows(s[g], s[i], joints)) {
        group[i] = g;
        break;
      }
  }
  return group;
}

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

// Z_bb of one group as a sparse matrix: its pattern (every cell where M_bb, K_bb or C_bb is
// non-zero), analysed once, and per line its values −ω²m + iωc + k.
class BeamBlock {
 public:
  BeamBlock(const SampleMatrices& s, int joints) {
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
  // Factors Z_bb at ω; false when the factorization fails.
  bool Factor(double omega) {
    Cplx* v = z_.valuePtr();
    for (size_t i = 0; i < m_.size(); ++i) v[i] = -omega * omega * m_[i] + Cplx(0.0, omega) * c_[i] + k_[i];
    lu_.factorize(z_);
    return lu_.info() == Eigen::Success;
  }
  Eigen::MatrixXcd Solve(const Eigen::MatrixXcd& r) { return lu_.solve(r); }

 private:
  SparseZ z_;
  std::vector<double> m_, c_;
  std::vector<Cplx> k_;
  Eigen::SparseLU<SparseZ, Eigen::COLAMDOrdering<int>> lu_;
};

// The sensor-to-sensor receptance of Z by a dense LU of all its coordinates.
Eigen::Matrix3cd DenseReceptance(const Eigen::MatrixXcd& z, const Eigen::MatrixXcd& b) {
  return b.transpose() * Eigen::PartialPivLU<Eigen::MatrixXcd>(z).solve(b);
}

// One group's receptances at one line by the Schur complement; solved[s] tells which samples it
// solved (none where the sparse LU failed; see kMaxCancellation).
void SchurLine(const std::vector<SampleMatrices>& mats, const std::vector<size_t>& group, size_t g,
               int joints, const Eigen::MatrixXcd& b, double omega, BeamBlock* beams,
               std::vector<std::vector<Eigen::Matrix3cd>>* h, size_t line,
               std::vector<char>* solved) {
  std::fill(solved->begin(), solved->end(), 0);
  if (!beams->Factor(omega)) return;
  const int n = static_cast<int>(b.rows()), nb = n - joints;
  const SampleMatrices& s0 = mats[g];
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
  for (size_t s = g; s < mats.size(); ++s) {
    if (group[s] != g) continue;
    const Eigen::MatrixXcd schur =
        Dynamic(mats[s], omega, [&](const auto& a) { return a.topLeftCorner(joints, joints); }) -
        gy.leftCols(joints);
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

// Whether the full matrices at b differ from those at a only on the diagonal, where the joints'
// own coefficients (stiffness, viscous, hysteretic) enter: the same masses, α and parts.
bool SameOffDiagonal(const JointCoefficients& a, const JointCoefficients& b) {
  return a.mass_proportional == b.mass_proportional && a.masses == b.masses && a.parts == b.parts;
}

// The matrices at c from those at a sample `base` that shares its masses, α and parts
// (SameOffDiagonal): a copy whose diagonal entries are recomputed where c's own coefficients
// differ, in the order of TangentStiffness and TangentDamping's additions, so the bits are those
// of building them anew (the host code is not contracted to FMA: each sum and product rounds
// alike; only a zero's sign could differ, which no sum or solve after sees). Building a
// 255-coordinate sample anew adds every affine part's dense 255×255 matrix.
SampleMatrices FromBase(const Posture& full, const SampleMatrices& base,
                        const JointCoefficients& base_c, const Eigen::VectorXd& gravity_diagonal,
                        const JointCoefficients& c) {
  SampleMatrices out = base;
  for (int j = 0; j < full.n; ++j) {
    if (c.stiffness[j] == base_c.stiffness[j] && c.hysteretic[j] == base_c.hysteretic[j] &&
        c.viscous[j] == base_c.viscous[j])
      continue;
    Cplx k = Cplx(gravity_diagonal(j), 0.0) + Cplx(c.stiffness[j], c.hysteretic[j]);
    for (const AffinePart& part : full.affine_parts)
      if (part.target == AffinePart::Target::kStiffness)
        k += (Cplx(1.0, 0.0) * c.parts[part.coefficient]) * Cplx(part.matrix(j, j), 0.0);
    for (const AffinePart& part : full.affine_parts)
      if (part.target == AffinePart::Target::kLossStiffness)
        k += (Cplx(0.0, 1.0) * c.parts[part.coefficient]) * Cplx(part.matrix(j, j), 0.0);
    double d = c.mass_proportional * base.m(j, j) + c.viscous[j];
    for (const AffinePart& part : full.affine_parts)
      if (part.target == AffinePart::Target::kDamping)
        d += (1.0 * c.parts[part.coefficient]) * part.matrix(j, j);
    out.k(j, j) = k;
    out.c(j, j) = d;
  }
  return out;
}

// Every sample's matrices, and group[s]: the first sample whose beam rows equal sample s's.
// A sample that moves only the joints' own coefficients from an earlier one is derived from it.
std::vector<SampleMatrices> SampleSet(const Posture& full, int joints,
                                      const std::vector<JointCoefficients>& samples,
                                      std::vector<size_t>* group) {
  std::vector<SampleMatrices> mats;
  std::vector<size_t> base(samples.size());
  std::vector<Eigen::VectorXd> gravity_diagonal(samples.size());
  for (size_t s = 0; s < samples.size(); ++s) {
    const JointCoefficients& c = samples[s];
    base[s] = s;
    for (size_t r = 0; r < s; ++r)
      if (base[r] == r && SameOffDiagonal(samples[r], c)) {
        base[s] = r;
        break;
      }
    if (base[s] == s) {
      mats.push_back({MassMatrix(full, c), TangentDamping(full, c), TangentStiffness(full, c)});
      gravity_diagonal[s] = GravityStiffness(full, c).diagonal();
      continue;
    }
    mats.push_back(FromBase(full, mats[base[s]], samples[base[s]], gravity_diagonal[base[s]], c));
  }
  *group = GroupSamples(mats, joints);
  return mats;
}

// Receptances H[s][line] of the full posture, sensor to sensor.
std::vector<std::vector<Eigen::Matrix3cd>> FullReceptances(
    const Posture& full, int joints, const std::vector<JointCoefficients>& samples,
    const std::vector<double>& frequency_hz, FullSolve solve) {
  std::vector<size_t> group;
  const std::vector<SampleMatrices> mats = SampleSet(full, joints, samples, &group);
#ifdef FRFIT_CHECK_SAMPLE_SET
  for (size_t s = 0; s < samples.size(); ++s) {
    const SampleMatrices anew{MassMatrix(full, samples[s]), TangentDamping(full, samples[s]),
                              TangentStiffness(full, samples[s])};
    if (!(anew.m == mats[s].m && anew.c == mats[s].c && anew.k == mats[s].k)) std::abort();
  }
  if (group != GroupSamples(mats, joints)) std::abort();
#endif
  const Eigen::MatrixXcd b = full.sensor_basis.cast<Cplx>();
  std::vector<std::vector<Eigen::Matrix3cd>> h(samples.size(),
                                                std::vector<Eigen::Matrix3cd>(frequency_hz.size()));
  const bool schur = solve == FullSolve::kSchur && joints > 0 && joints < full.n;
  for (size_t g = 0; g < samples.size(); ++g) {
    if (group[g] != g) continue;
    std::optional<BeamBlock> beams;
    if (schur) beams.emplace(mats[g], joints);
    std::vector<char> solved(samples.size(), 0);
    for (size_t l = 0; l < frequency_hz.size(); ++l) {
      const double omega = 2.0 * M_PI * frequency_hz[l];
      if (schur) SchurLine(mats, group, g, joints, b, omega, &*beams, &h, l, &solved);
      for (size_t s = g; s < samples.size(); ++s)
        if (group[s] == g && !solved[s]) h[s][l] = DenseReceptance(Dynamic(mats[s], omega), b);
    }
  }
  return h;
}

}  // namespace

double ReductionError(const Posture& full, const Reduction& reduction,
                      const std::vector<JointCoefficients>& samples,
                      const std::vector<double>& frequency_hz, FullSolve solve) {
  const std::vector<std::vector<Eigen::Matrix3cd>> a =
      FullReceptances(full, reduction.joints, samples, frequency_hz, solve);
  double worst = 0.0;
  for (size_t s = 0; s < samples.size(); ++s) {
    const JointCoefficients& c = samples[s];
    const FrfSet b = Synthesize(reduction.posture,
                                ReducedCoefficients(c, reduction.joints, reduction.posture.n),
                                frequency_hz, FrfFormat::kReceptance);
    for (size_t l = 0; l < frequency_hz.size(); ++l) {
      double difference = 0.0, norm = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          difference += std::norm(a[s][l](i, j) - b.at(static_cast<int>(l), i, j));
          norm += std::norm(a[s][l](i, j));
        }
      worst = std::max(worst, std::sqrt(difference / norm));
    }
  }
  return worst;
}

}  // namespace frfit
