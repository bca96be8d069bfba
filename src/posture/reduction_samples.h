// The coefficient samples' matrices that ReductionError (posture/reduction.h) solves at every line.
// A reduced fit's samples are the initial values and one step per parameter toward its bounds: most
// move one joint's own coefficient (a spring, a damping), which enters the joints' diagonal block
// only. Such a sample keeps just that block, joints × joints, beside the full matrices of the
// earlier sample it shares everything else with (its base): a KUKA with two 20-element beams has
// 37 samples per posture, each 2 MB of full matrices, of which 2 are built in full.
#pragma once

#include <Eigen/Core>
#include <complex>
#include <vector>

#include "frfit/posture/posture.h"

namespace frfit {

struct SampleMatrices {
  Eigen::MatrixXd m, c;
  Eigen::MatrixXcd k;
};

struct SampleMatrixSet {
  int joints = 0;
  std::vector<size_t> base;                 // the sample whose full matrices s shares, ≤ s
  std::vector<size_t> group;                // the first sample whose beam rows equal s's
  std::vector<SampleMatrices> full;         // where base[s] == s; empty matrices elsewhere
  std::vector<SampleMatrices> joint_block;  // every sample's top-left joints × joints block

  // Sample s's full matrices: its base's with its own joints' block.
  SampleMatrices Full(size_t s) const;
};

// The matrices of `samples` at `posture`, whose first `joints` coordinates are the joints'. They
// are those of MassMatrix, TangentDamping and TangentStiffness bit for bit (the joints' diagonal
// entries are recomputed in those functions' order of additions; the host code is not contracted
// to FMA, so each sum and product rounds alike — only a zero's sign could differ, which no sum or
// solve after sees).
SampleMatrixSet BuildSampleSet(const Posture& posture, int joints,
                               const std::vector<JointCoefficients>& samples);

}  // namespace frfit
