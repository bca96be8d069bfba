// The reduction error's sample matrices (src/posture/reduction_samples.h) against MassMatrix,
// TangentDamping and TangentStiffness built anew for every sample, bit for bit, on the beam chain
// of benchmarks/beam_chain.h (three joints, a 40-node beam, E, η·E and a tip mass as affine parts).
// The samples mix the two kinds: those that move only joints' own coefficients from an earlier
// one (kept as a joints' block beside that one's full matrices) and those that move anything else.
#include <gtest/gtest.h>

#include <vector>

#include "benchmarks/beam_chain.h"
#include "src/posture/reduction_samples.h"

namespace frfit {
namespace {

SampleMatrices Anew(const Posture& p, const JointCoefficients& c) {
  return {MassMatrix(p, c), TangentDamping(p, c), TangentStiffness(p, c)};
}

// Whether a and b agree outside the joints' diagonal block, written here from the definition.
bool SameBeamRows(const SampleMatrices& a, const SampleMatrices& b, int joints) {
  const Eigen::Index n = a.m.rows();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if ((i >= joints || j >= joints) &&
          (a.m(i, j) != b.m(i, j) || a.c(i, j) != b.c(i, j) || a.k(i, j) != b.k(i, j)))
        return false;
  return true;
}

TEST(ReductionSamples, EqualTheMatricesBuiltAnewAndGroupByTheirBeamRows) {
  const bench::BeamChain beam = bench::MakeBeamChain(40);
  const Posture& p = beam.posture;
  const int joints = beam.joints;
  std::vector<JointCoefficients> samples(8, beam.nominal);
  samples[1].stiffness[0] *= 0.37;                                   // a joint's spring
  samples[2].viscous[1] *= 2.9, samples[2].hysteretic[1] = 1.7e3;    // a joint's damping
  samples[3].parts[0] *= 1.9;                                        // E: new beam rows
  samples[4] = samples[3], samples[4].stiffness[2] *= 1.31;          // a spring, from sample 3
  samples[5].stiffness[joints + 4] = 5e4;                            // a beam coordinate's own
  samples[6].mass_proportional = 0.3;                                // α: M in every row of C
  samples[7].parts[2] *= 1.5, samples[7].viscous[0] *= 0.6;          // the tip mass and a damper

  const SampleMatrixSet set = BuildSampleSet(p, joints, samples);
  std::vector<SampleMatrices> anew;
  for (const JointCoefficients& c : samples) anew.push_back(Anew(p, c));
  int derived = 0;
  for (size_t s = 0; s < samples.size(); ++s) {
    const SampleMatrices full = set.Full(s);
    EXPECT_TRUE(full.m == anew[s].m) << "sample " << s;
    EXPECT_TRUE(full.c == anew[s].c) << "sample " << s;
    EXPECT_TRUE(full.k == anew[s].k) << "sample " << s;
    EXPECT_TRUE(set.joint_block[s].k == anew[s].k.topLeftCorner(joints, joints)) << s;
    size_t group = s;  // the first sample whose beam rows equal s's
    for (size_t r = 0; r < s && group == s; ++r)
      if (SameBeamRows(anew[r], anew[s], joints)) group = r;
    EXPECT_EQ(set.group[s], group) << "sample " << s;
    derived += set.base[s] != s;
  }
  // Samples 1, 2 and 4 move only joints' own coefficients: kept as joints' blocks.
  EXPECT_EQ(derived, 3);
  EXPECT_EQ(set.base[4], 3u);
}

}  // namespace
}  // namespace frfit
