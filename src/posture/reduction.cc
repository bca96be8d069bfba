#include "frfit/posture/reduction.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/frf/synthesize.h"

namespace frfit {
namespace {

// The undamped blocks of one sample: K (real part, springs and parts included) and M.
struct Blocks {
  Eigen::MatrixXd k_bb, k_bj, m_bb, m_bj;
};

Blocks BlocksAt(const Posture& full, int joints, const JointCoefficients& c) {
  const Eigen::MatrixXd k = TangentStiffness(full, c).real();
  const Eigen::MatrixXd m = MassMatrix(full, c);
  const int b = full.n - joints;
  return {k.bottomRightCorner(b, b), k.bottomLeftCorner(b, joints), m.bottomRightCorner(b, b),
          m.bottomLeftCorner(b, joints)};
}

// Whether BlocksAt gives b's blocks the bits of a's without building them: the same masses and
// parts, and the same springs on the beams' own coordinates (the joints' springs and every
// damping sit outside the blocks, and each entry is computed from these alone).
bool SameBlockInputs(const JointCoefficients& a, const JointCoefficients& b, int joints) {
  return a.masses == b.masses && a.parts == b.parts &&
         std::equal(a.stiffness.begin() + joints, a.stiffness.end(), b.stiffness.begin() + joints,
                    b.stiffness.end());
}

bool SameBlocks(const Blocks& a, const Blocks& b) {
  return a.k_bb == b.k_bb && a.k_bj == b.k_bj && a.m_bb == b.m_bb && a.m_bj == b.m_bj;
}

// Ψ built column by column, M-orthonormal (modified Gram–Schmidt, twice).
class OrthonormalSet {
 public:
  OrthonormalSet(const Eigen::MatrixXd& m, double tolerance) : m_(m), tolerance_(tolerance) {}
  // Adds v's new direction; false when less than the tolerance of it is new.
  bool Add(Eigen::VectorXd v) {
    const double before = std::sqrt(std::max(v.dot(m_ * v), 0.0));
    if (!(before > 0.0) || columns_.size() >= static_cast<size_t>(m_.rows())) return false;
    for (int pass = 0; pass < 2; ++pass)
      for (const Eigen::VectorXd& q : columns_) v -= q.dot(m_ * v) * q;
    const double after = std::sqrt(std::max(v.dot(m_ * v), 0.0));
    if (!(after > tolerance_ * before)) return false;
    columns_.push_back(v / after);
    return true;
  }
  int size() const { return static_cast<int>(columns_.size()); }
  Eigen::MatrixXd Matrix() const {
    Eigen::MatrixXd out(m_.rows(), size());
    for (int i = 0; i < size(); ++i) out.col(i) = columns_[i];
    return out;
  }

 private:
  const Eigen::MatrixXd& m_;
  double tolerance_;
  std::vector<Eigen::VectorXd> columns_;
};

Eigen::MatrixXd Project(const Eigen::MatrixXd& v, const Eigen::MatrixXd& a) {
  return v.transpose() * a * v;
}

// The reduced posture: every matrix projected on V, the points' bases by Vᵀ.
Posture ProjectPosture(const Posture& full, const Eigen::MatrixXd& v) {
  Posture out = full;
  out.n = static_cast<int>(v.cols());
  out.mass = Project(v, full.mass);
  out.gravity_stiffness = Project(v, full.gravity_stiffness);
  for (MassPart& part : out.mass_parts) {
    part.mass = Project(v, part.mass);
    part.gravity = Project(v, part.gravity);
  }
  for (AffinePart& part : out.affine_parts) part.matrix = Project(v, part.matrix);
  out.sensor_jacobian = full.sensor_jacobian * v;
  out.sensor_basis = v.transpose() * full.sensor_basis;
  return out;
}

void Require(bool ok, const std::string& what, const std::string& field, const std::string& text) {
  if (!ok) throw Error(what, field, text);
}

}  // namespace

bool ReductionOptions::IsValid(std::string* error) const {
  if (!(modes_up_to_hz > 0.0) || !std::isfinite(modes_up_to_hz))
    return Invalid(error, "modes_up_to_hz: expected a finite frequency > 0 Hz, got " +
                              FormatDouble(modes_up_to_hz));
  if (krylov_orders < 0 || krylov_orders > 8)
    return Invalid(error, "krylov_orders: expected 0 to 8, got " + std::to_string(krylov_orders));
  if (size < 0)
    return Invalid(error, "size: expected an integer >= 0 (0: as found), got " + std::to_string(size));
  if (!(drop_tolerance > 0.0 && drop_tolerance < 1.0))
    return Invalid(error, "drop_tolerance: expected a fraction in (0, 1), got " +
                              FormatDouble(drop_tolerance));
  return true;
}

Reduction Reduce(const Posture& full, int joints, const std::vector<JointCoefficients>& samples,
                 const std::vector<Eigen::MatrixXd>& loads, const ReductionOptions& options,
                 const std::string& what) {
  if (std::string error; !options.IsValid(&error)) throw Error(what, "", "reduction." + error);
  Require(joints >= 0 && joints < full.n, what, "reduction",
          "expected fewer kept coordinates than " + std::to_string(full.n) + ", got " +
              std::to_string(joints));
  Require(!samples.empty(), what, "reduction", "expected at least one parameter sample");
  const int b = full.n - joints;
  const Blocks first = BlocksAt(full, joints, samples.front());
  const Eigen::LDLT<Eigen::MatrixXd> first_k(first.k_bb);
  Require(first_k.info() == Eigen::Success && first_k.isPositive(), what, "reduction",
          "the beams' stiffness with the joints fixed is not positive definite");
  const Eigen::MatrixXd phi = -first_k.solve(first.k_bj);
  OrthonormalSet psi(first.m_bb, options.drop_tolerance);
  const double cut = std::pow(2.0 * M_PI * options.modes_up_to_hz, 2);
  std::vector<Eigen::VectorXd> further;  // the first sample's modes above the cut-off
  std::vector<Eigen::VectorXd> corrections;
  int modes = 0;
  std::vector<Blocks> seen;
  for (size_t s = 0; s < samples.size(); ++s) {
    // (Skipped before building a 255-coordinate sample's matrices where they cannot differ.)
    if (std::any_of(samples.begin(), samples.begin() + s,
                    [&](const JointCoefficients& r) { return SameBlockInputs(r, samples[s], joints); }))
      continue;
    const Blocks at = s == 0 ? first : BlocksAt(full, joints, samples[s]);
    // A sample that moves only the joints' springs has an earlier sample's beam blocks: its
    // candidates would all be dropped as dependent, so it is skipped.
    if (std::any_of(seen.begin(), seen.end(), [&](const Blocks& x) { return SameBlocks(x, at); }))
      continue;
    seen.push_back(at);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(at.k_bb, at.m_bb);
    Require(eig.info() == Eigen::Success, what, "reduction",
            "the beams' fixed-interface modes did not converge");
    for (int i = 0; i < b; ++i) {
      if (eig.eigenvalues()(i) <= cut) modes += psi.Add(eig.eigenvectors().col(i));
      else if (s == 0) further.push_back(eig.eigenvectors().col(i));
    }
    const Eigen::LDLT<Eigen::MatrixXd> k_bb(at.k_bb);
    const Eigen::MatrixXd phi_s = -k_bb.solve(at.k_bj);
    if (s > 0)
      for (int j = 0; j < joints; ++j) corrections.push_back(phi_s.col(j) - phi.col(j));
    // Loads on the beams: the points' forces and the constraint modes' inertia.
    std::vector<Eigen::VectorXd> load;
    for (const Eigen::MatrixXd& l : loads)
      for (int j = 0; j < 3; ++j) load.push_back(l.col(j).tail(b));
    for (int j = 0; j < 3; ++j) load.push_back(full.sensor_basis.col(j).tail(b));
    for (int j = 0; j < joints; ++j) load.push_back(at.m_bj.col(j) + at.m_bb * phi_s.col(j));
    for (Eigen::VectorXd f : load)
      for (int order = 0; order < options.krylov_orders; ++order) {
        f = k_bb.solve(order == 0 ? f : Eigen::VectorXd(at.m_bb * f));
        corrections.push_back(f);
      }
  }
  int added = 0;
  for (const Eigen::VectorXd& v : corrections) added += psi.Add(v);
  for (const Eigen::VectorXd& v : further) {
    if (joints + psi.size() >= options.size) break;
    modes += psi.Add(v);
  }
  Reduction out;
  out.joints = joints;
  out.modes = modes;
  out.corrections = added;
  out.basis = Eigen::MatrixXd::Zero(full.n, joints + psi.size());
  out.basis.topLeftCorner(joints, joints).setIdentity();
  out.basis.bottomLeftCorner(b, joints) = phi;
  out.basis.bottomRightCorner(b, psi.size()) = psi.Matrix();
  out.posture = ProjectPosture(full, out.basis);
  return out;
}

Eigen::MatrixXd ReducedPointBasis(const Reduction& reduction, const Eigen::MatrixXd& basis) {
  return reduction.basis.transpose() * basis;
}

JointCoefficients ReducedCoefficients(const JointCoefficients& c, int joints, int r) {
  JointCoefficients out = c;
  auto cut = [joints, r](const std::vector<double>& v) {
    std::vector<double> w(static_cast<size_t>(r), 0.0);
    std::copy(v.begin(), v.begin() + joints, w.begin());
    return w;
  };
  out.stiffness = cut(c.stiffness);
  out.viscous = cut(c.viscous);
  out.hysteretic = cut(c.hysteretic);
  return out;
}

}  // namespace frfit
