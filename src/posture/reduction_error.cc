// ReductionError (posture/reduction.h): the full model's receptances at every sample and line
// against the reduced posture's. The full solve is the cost of a reduced fit's set-up: a dense LU
// of all n coordinates per sample and line (a KUKA with two 20-element beams: 255 coordinates,
// 37 samples, 150 lines). The samples differ mostly in the joints' coefficients, which sit in the
// joints' diagonal block only, so the beams' block is factored once per line for every sample that
// shares it and each sample solves its joints' Schur complement:
//     Z = [Z_jj Z_jb; Z_bj Z_bb],  S = Z_jj − Z_jb Z_bb⁻¹ Z_bj,
//     x_j = S⁻¹ (B_j − Z_jb Z_bb⁻¹ B_b),  x_b = Z_bb⁻¹ (B_b − Z_bj x_j),
// the same solution as the dense LU's up to rounding — which, on a stiff beam on soft joints, is
// itself some 1e-9 of H: below that the error estimate is rounding, by either solve. Where Z_bb is badly conditioned (a line on a
// lightly damped fixed-interface beam mode) the line falls back to the dense LU of Z.
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "frfit/frf/synthesize.h"
#include "frfit/posture/reduction.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;

struct SampleMatrices {
  Eigen::MatrixXcd m, k, c;
};

// Whether two samples' matrices agree outside the joints' diagonal block, bit for bit.
bool SameBeamRows(const SampleMatrices& a, const SampleMatrices& b, int joints) {
  const Eigen::Index nb = a.m.rows() - joints;
  auto same = [&](const Eigen::MatrixXcd& x, const Eigen::MatrixXcd& y) {
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

Eigen::MatrixXcd Dynamic(const SampleMatrices& s, double omega) {
  return -omega * omega * s.m + Cplx(0.0, omega) * s.c + s.k;
}

// Below this reciprocal condition of Z_bb the Schur complement is not trusted.
constexpr double kMinBeamBlockRcond = 1e-10;

// Receptances H[s][line] of the full posture, sensor to sensor.
std::vector<std::vector<Eigen::Matrix3cd>> FullReceptances(
    const Posture& full, int joints, const std::vector<JointCoefficients>& samples,
    const std::vector<double>& frequency_hz) {
  const int n = full.n, nb = n - joints;
  std::vector<SampleMatrices> mats;
  for (const JointCoefficients& c : samples)
    mats.push_back({MassMatrix(full, c).cast<Cplx>(), TangentStiffness(full, c),
                    TangentDamping(full, c).cast<Cplx>()});
  const std::vector<size_t> group = GroupSamples(mats, joints);
  const Eigen::MatrixXcd B = full.sensor_basis.cast<Cplx>();
  std::vector<std::vector<Eigen::Matrix3cd>> h(samples.size(),
                                                std::vector<Eigen::Matrix3cd>(frequency_hz.size()));
  Eigen::PartialPivLU<Eigen::MatrixXcd> beam_lu(nb), full_lu(n);
  Eigen::MatrixXcd y(nb, joints);
  for (size_t l = 0; l < frequency_hz.size(); ++l) {
    const double omega = 2.0 * M_PI * frequency_hz[l];
    for (size_t g = 0; g < samples.size(); ++g) {
      if (group[g] != g) continue;
      const Eigen::MatrixXcd zg = Dynamic(mats[g], omega);
      beam_lu.compute(zg.bottomRightCorner(nb, nb));
      const bool schur = joints > 0 && beam_lu.rcond() > kMinBeamBlockRcond;
      if (schur) y = beam_lu.solve(zg.bottomLeftCorner(nb, joints));  // Z_bb⁻¹ Z_bj
      for (size_t s = g; s < samples.size(); ++s) {
        if (group[s] != g) continue;
        const Eigen::MatrixXcd z = s == g ? zg : Dynamic(mats[s], omega);
        Eigen::MatrixXcd x(n, 3);
        if (schur) {
          const Eigen::MatrixXcd zjb = z.topRightCorner(joints, nb);
          const Eigen::PartialPivLU<Eigen::MatrixXcd> s_lu(z.topLeftCorner(joints, joints) - zjb * y);
          auto solve = [&](const Eigen::MatrixXcd& r) {
            const Eigen::MatrixXcd yb = beam_lu.solve(r.bottomRows(nb));
            Eigen::MatrixXcd out(n, r.cols());
            out.topRows(joints) = s_lu.solve(r.topRows(joints) - zjb * yb);
            out.bottomRows(nb) = yb - y * out.topRows(joints);
            return out;
          };
          x = solve(B);
        } else {
          full_lu.compute(z);
          x = full_lu.solve(B);
        }
        h[s][l] = B.transpose() * x;
      }
    }
  }
  return h;
}

}  // namespace

double ReductionError(const Posture& full, const Reduction& reduction,
                      const std::vector<JointCoefficients>& samples,
                      const std::vector<double>& frequency_hz) {
  const std::vector<std::vector<Eigen::Matrix3cd>> a =
      FullReceptances(full, reduction.joints, samples, frequency_hz);
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
