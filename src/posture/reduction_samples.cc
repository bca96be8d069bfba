// BuildSampleSet (posture/reduction_samples.h).
#include "src/posture/reduction_samples.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;

// Whether the full matrices at b differ from those at a only on the joints' diagonal, where the
// joints' own coefficients (stiffness, viscous, hysteretic) enter: the same masses, α and parts,
// and the same own coefficients on every other coordinate.
bool SameOutsideJointDiagonal(const JointCoefficients& a, const JointCoefficients& b, int joints) {
  if (!(a.mass_proportional == b.mass_proportional && a.masses == b.masses && a.parts == b.parts))
    return false;
  for (size_t j = static_cast<size_t>(joints); j < a.stiffness.size(); ++j)
    if (a.stiffness[j] != b.stiffness[j] || a.hysteretic[j] != b.hysteretic[j] ||
        a.viscous[j] != b.viscous[j])
      return false;
  return true;
}

// Whether two samples' full matrices agree outside the joints' diagonal block, bit for bit.
bool SameBeamRows(const SampleMatrices& a, const SampleMatrices& b, int joints) {
  const Eigen::Index nb = a.m.rows() - joints;
  auto same = [&](const auto& x, const auto& y) {
    return x.bottomRows(nb) == y.bottomRows(nb) &&
           x.topRightCorner(joints, nb) == y.topRightCorner(joints, nb);
  };
  return same(a.m, b.m) && same(a.k, b.k) && same(a.c, b.c);
}

SampleMatrices JointBlock(const SampleMatrices& s, int joints) {
  return {s.m.topLeftCorner(joints, joints), s.c.topLeftCorner(joints, joints),
          s.k.topLeftCorner(joints, joints)};
}

// The joints' block at c from its base's (SameOutsideJointDiagonal): a copy whose diagonal entries
// are recomputed where c's own coefficients differ, in the order of TangentStiffness's and
// TangentDamping's additions. Building a 255-coordinate sample anew adds every affine part's dense
// 255×255 matrix.
SampleMatrices JointBlockFromBase(const Posture& posture, const SampleMatrices& base_block,
                                  const JointCoefficients& base_c,
                                  const Eigen::VectorXd& gravity_diagonal,
                                  const JointCoefficients& c) {
  SampleMatrices out = base_block;
  for (Eigen::Index j = 0; j < base_block.m.rows(); ++j) {
    if (c.stiffness[j] == base_c.stiffness[j] && c.hysteretic[j] == base_c.hysteretic[j] &&
        c.viscous[j] == base_c.viscous[j])
      continue;
    Cplx k = Cplx(gravity_diagonal(j), 0.0) + Cplx(c.stiffness[j], c.hysteretic[j]);
    for (const AffinePart& part : posture.affine_parts)
      if (part.target == AffinePart::Target::kStiffness)
        k += (Cplx(1.0, 0.0) * c.parts[part.coefficient]) * Cplx(part.matrix(j, j), 0.0);
    for (const AffinePart& part : posture.affine_parts)
      if (part.target == AffinePart::Target::kLossStiffness)
        k += (Cplx(0.0, 1.0) * c.parts[part.coefficient]) * Cplx(part.matrix(j, j), 0.0);
    double d = c.mass_proportional * base_block.m(j, j) + c.viscous[j];
    for (const AffinePart& part : posture.affine_parts)
      if (part.target == AffinePart::Target::kDamping)
        d += (1.0 * c.parts[part.coefficient]) * part.matrix(j, j);
    out.k(j, j) = k;
    out.c(j, j) = d;
  }
  return out;
}

}  // namespace

SampleMatrices SampleMatrixSet::Full(size_t s) const {
  SampleMatrices out = full[base[s]];
  out.m.topLeftCorner(joints, joints) = joint_block[s].m;
  out.c.topLeftCorner(joints, joints) = joint_block[s].c;
  out.k.topLeftCorner(joints, joints) = joint_block[s].k;
  return out;
}

SampleMatrixSet BuildSampleSet(const Posture& posture, int joints,
                               const std::vector<JointCoefficients>& samples) {
  SampleMatrixSet set;
  set.joints = joints;
  const size_t count = samples.size();
  set.base.resize(count);
  set.group.resize(count);
  set.full.resize(count);
  set.joint_block.resize(count);
  std::vector<Eigen::VectorXd> gravity_diagonal(count);
  for (size_t s = 0; s < count; ++s) {
    const JointCoefficients& c = samples[s];
    size_t& base = set.base[s];
    base = s;
    for (size_t r = 0; r < s && base == s; ++r)
      if (set.base[r] == r && SameOutsideJointDiagonal(samples[r], c, joints)) base = r;
    if (base != s) {
      // Its beam rows are its base's, bit for bit: so is its group.
      set.joint_block[s] = JointBlockFromBase(posture, set.joint_block[base], samples[base],
                                              gravity_diagonal[base], c);
      set.group[s] = set.group[base];
      continue;
    }
    set.full[s] = {MassMatrix(posture, c), TangentDamping(posture, c), TangentStiffness(posture, c)};
    set.joint_block[s] = JointBlock(set.full[s], joints);
    gravity_diagonal[s] = GravityStiffness(posture, c).diagonal().head(joints);
    set.group[s] = s;
    for (size_t g = 0; g < s && set.group[s] == s; ++g)
      if (set.group[g] == g && SameBeamRows(set.full[g], set.full[s], joints)) set.group[s] = g;
  }
  return set;
}

}  // namespace frfit
