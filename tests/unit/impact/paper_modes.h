// The paper's 3-joint example (posture milling, Table 1 parameters) as pole pairs for the impact
// simulation (impact_simulation.h), shared by the impact chain test, the model check's false-alarm
// test and benchmarks/impact_false_alarms.cc.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <numbers>
#include <string>
#include <vector>

#include "frfit/frf/synthesize.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model_yaml.h"
#include "impact_simulation.h"

namespace frfit::test {

inline const std::string kPaper3Dof = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

// The model's sensor receptance as pole pairs: poles from the library's modal analysis, residues
// by linear least squares on its synthesised receptance. A 3-DOF second-order system is exactly
// three pole pairs without a direct term, so the fit must be exact to rounding (the caller checks
// *worst_misfit, relative to each entry's peak).
inline std::vector<SimMode> PaperModes(double* worst_misfit) {
  const Model model = LoadModel(kPaper3Dof + "model.yaml");
  const Posture posture = Linearize(model, "milling");
  const auto params = LoadParameters(kPaper3Dof + "params_table1.yaml", model);
  const JointCoefficients c = Coefficients(model, params);
  const std::vector<Mode> modes = ComputeModes(posture, c);
  const std::vector<double> f = MakeBand(0.5, 40.0, 0.25, "band");
  const FrfSet h = Synthesize(posture, c, f, FrfFormat::kReceptance);
  const int m = static_cast<int>(modes.size()), l = static_cast<int>(f.size());
  Eigen::MatrixXd a(2 * l, 2 * m);
  for (int k = 0; k < l; ++k) {
    const std::complex<double> s(0, 2 * std::numbers::pi * f[k]);
    for (int r = 0; r < m; ++r) {
      // A = α + iβ: A/(s − λ) + conj(A)/(s − conj λ) is linear in α and β.
      const auto p = 1.0 / (s - modes[r].eigenvalue), q = 1.0 / (s - std::conj(modes[r].eigenvalue));
      const auto ca = p + q, cb = std::complex<double>(0, 1) * (p - q);
      a(2 * k, 2 * r) = ca.real(), a(2 * k + 1, 2 * r) = ca.imag();
      a(2 * k, 2 * r + 1) = cb.real(), a(2 * k + 1, 2 * r + 1) = cb.imag();
    }
  }
  std::vector<SimMode> out(m);
  for (int r = 0; r < m; ++r) out[r].lambda = modes[r].eigenvalue;
  *worst_misfit = 0;
  for (int e = 0; e < 9; ++e) {
    Eigen::VectorXd b(2 * l);
    double scale = 0;
    for (int k = 0; k < l; ++k) {
      b(2 * k) = h.H[k * 9 + e].real(), b(2 * k + 1) = h.H[k * 9 + e].imag();
      scale = std::max(scale, std::abs(h.H[k * 9 + e]));
    }
    const Eigen::VectorXd x = a.colPivHouseholderQr().solve(b);
    *worst_misfit = std::max(*worst_misfit, (a * x - b).cwiseAbs().maxCoeff() / scale);
    for (int r = 0; r < m; ++r) out[r].residue[e] = {x(2 * r), x(2 * r + 1)};
  }
  return out;
}

// One simulated hammer test of the example: `hits` good hits along each axis, accelerations,
// sampled at 512 Hz for 8 s (a 30 ms raised-cosine pulse: its aliases bias the force spectrum by
// 1e-4), noise 1 % of each direction's response peak and 0.5 % of the force pulse. Each entry is
// a hammer axis' recordings.
inline std::array<std::vector<TimeRecording>, 3> SimulatePaperHammerTest(
    const std::vector<SimMode>& modes, int hits, Rng* rng) {
  std::array<std::vector<TimeRecording>, 3> out;
  for (int axis = 0; axis < 3; ++axis)
    for (int h = 0; h < hits; ++h) {
      HitSpec s;
      s.hammer_axis = axis;
      s.fs = 512;
      s.record_s = 8;
      s.pulse_s = 0.03;
      s.response_noise = 0.01;
      s.force_noise = 0.005;
      s.amplitude_n = 200 + 20 * h;
      s.quantity = ChannelQuantity::kAcceleration;
      out[axis].push_back(SimulateHit(modes, s, rng, h));
    }
  return out;
}

}  // namespace frfit::test
