// An L-shaped frame of two steel beams with two lumped masses, and its in-plane modes at the
// stations along both links from a textbook planar frame assembly written here — not frfit's — for the tests and
// the benchmark of a beam model updated from modes (tests/unit/beam/beam_modes_fit_test.cc,
// benchmarks/beam_modes_calibration.cc).
//
// The model: link `upper` (0.8 m along x from a clamped base) and link `fore` (0.6 m, turned +90°
// about z at upper's tip), steel bars 40 × 25 mm bending in-plane about the 25 mm side, N
// Euler–Bernoulli elements each with a station at every node (a1..aN, b1..bN); rigid bodies
// `elbow` (at aN) and `hand` (at bN) of fitted mass. Its parameters: E_upper, E_fore, m_elbow,
// m_hand. N = 10 gives papers/002's setting, 20 points (120 coordinates); the suite's test takes
// N = 5 (10 points, 60 coordinates) to stay within seconds.
#pragma once

#include <Eigen/Eigenvalues>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/cost/modal_sets.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/model_yaml.h"
#include "planar_frame_element.h"

namespace frfit::test::l_frame {

using Cplx = std::complex<double>;

// Steel, a 40 × 25 mm bar bending in-plane about its 25 mm side (Iz); `per_link` elements per
// link, a station at every node.
constexpr double kRho = 7850, kA = 1.0e-3, kIz = 1.3333333333333333e-7;
constexpr double kLa = 0.8, kLb = 0.6;
// The lumped masses' nominal (the model's initial) values and in-plane inertias at them.
constexpr double kElbow0 = 3.0, kHand0 = 1.5, kElbowJ0 = 4.0e-3, kHandJ0 = 1.0e-3;

struct Truth {
  double e_upper, e_fore, m_elbow, m_hand;
};
// Not the model's nominal (2.1e11 Pa, 3 kg, 1.5 kg): 8 % and 6 % off in E, 13 % and 12 % in mass.
constexpr Truth kTruth = {1.93e11, 2.23e11, 3.4, 1.32};

inline std::string Stations(const std::string& prefix, double length, int per_link) {
  std::string s = "      stations:\n";
  for (int k = 1; k <= per_link; ++k)
    s += "        - {name: " + prefix + std::to_string(k) +
         ", x: " + FormatDouble(k == per_link ? length : length * k / per_link) + "}\n";
  return s;
}

// With rayleigh, viscous Rayleigh damping (C = αM + βK, fixed α = 6 /s and β = 1.5e-5 s: ζ of
// 1–3 % over the first four in-plane modes), so that its FRFs stay finite and are sums of
// conjugate pole pairs as an EMA assumes (the campaign test); without, the undamped model of the
// modal tests.
inline std::string LFrameModel(int per_link, bool rayleigh = false) {
  const std::string damping =
      rayleigh ? "damping_model: rayleigh\n"
                 "rayleigh_alpha: {initial: 6.0, min: 1.0e-3, max: 100}\n"
                 "rayleigh_beta: {initial: 1.5e-5, min: 1.0e-8, max: 1.0e-3}\n"
               : "";
  auto beam = [&](const std::string& name, const std::string& frame, double length,
                  const std::string& prefix) {
    return "  - name: " + name + "\n    frame: " + frame + "\n    beam:\n      length: " +
           FormatDouble(length) +
           "\n      material: {E: {initial: 2.1e11, min: 1.0e11, max: 4.0e11}, nu: 0.3, density: " +
           FormatDouble(kRho) + "}\n      section: {shape: properties, A: " + FormatDouble(kA) +
           ", Iy: 5.2083e-8, Iz: " + FormatDouble(kIz) +
           ", J: 1.2e-7}\n      theory: euler_bernoulli\n      elements: " +
           std::to_string(per_link) + "\n" + Stations(prefix, length, per_link);
  };
  auto mass = [](const std::string& name, const std::string& frame, double m0, double j0) {
    return "  - {name: " + name + ", frame: " + frame + ", mass: {initial: " + FormatDouble(m0) +
           ", min: 0.5, max: 10}, com: [0, 0, 0], inertia: {xx: " + FormatDouble(j0) +
           ", yy: " + FormatDouble(j0) + ", zz: " + FormatDouble(j0) +
           ", xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n";
  };
  return "format: frfit-model-1\nname: l_frame\ngravity: [0, 0, 0]\n" + damping +
         "frames:\n  - {name: base, parent: ground}\n"
         "  - {name: fore_root, parent: a" + std::to_string(per_link) +
         ", transforms: [{rotz: 90}]}\n"
         "bodies:\n" +
         beam("upper", "base", kLa, "a") + beam("fore", "fore_root", kLb, "b") +
         mass("elbow", "a" + std::to_string(per_link), kElbow0, kElbowJ0) +
         mass("hand", "b" + std::to_string(per_link), kHand0, kHandJ0) +
         "sensor: b" + std::to_string(per_link) + "\npostures: {rest: }\n";
}

inline std::vector<std::string> PointNames(int per_link) {
  std::vector<std::string> names;
  for (const char* prefix : {"a", "b"})
    for (int k = 1; k <= per_link; ++k) names.push_back(prefix + std::to_string(k));
  return names;
}

// The same frame as a textbook planar assembly in global (u, v, θ) per node: node 0 the clamped
// base, nodes 1..per_link along the upper link (+x), the next per_link along the forearm (+y).
inline void DenseLFrame(const Truth& t, int per_link, Eigen::MatrixXd* M, Eigen::MatrixXd* K) {
  const int nodes = 1 + 2 * per_link, size = 3 * nodes;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(size, size), k = m;
  auto element = [&](int a, int b, double l, double angle, double e) {
    test::AddPlanarFrameElement(a, b, l, angle, {e, kA, kIz, kRho}, &m, &k);
  };
  for (int e = 0; e < per_link; ++e) element(e, e + 1, kLa / per_link, 0.0, t.e_upper);
  for (int e = 0; e < per_link; ++e)
    element(e == 0 ? per_link : per_link + e, per_link + e + 1, kLb / per_link, M_PI / 2,
            t.e_fore);
  // A lumped mass moves its node's u and v; its inertia (scaled with its mass) its θ.
  auto lumped = [&](int node, double mass, double j) {
    m(3 * node, 3 * node) += mass, m(3 * node + 1, 3 * node + 1) += mass;
    m(3 * node + 2, 3 * node + 2) += j;
  };
  lumped(per_link, t.m_elbow, kElbowJ0 * t.m_elbow / kElbow0);
  lumped(2 * per_link, t.m_hand, kHandJ0 * t.m_hand / kHand0);
  *M = m.bottomRightCorner(size - 3, size - 3);
  *K = k.bottomRightCorner(size - 3, size - 3);
}

// The dense frame's first `count` modes at its 2·per_link stations: frequency and x, y, z in
// each station's axes (the forearm's turned +90° about z: its x is global y, its y global −x; no
// in-plane mode moves along z), stacked in PointNames' order at unit length.
inline ModalSet DenseModes(const Model& model, const Truth& t, int count, int per_link) {
  Eigen::MatrixXd M, K;
  DenseLFrame(t, per_link, &M, &K);
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(K, M);
  ModalSet set;
  set.source = "dense L-frame";
  set.posture = Linearize(model, "rest");
  set.response_frames = PointNames(per_link);
  set.basis = StackedPointBasis(model, set.posture, set.response_frames, set.source);
  for (int mode = 0; mode < count; ++mode) {
    const Eigen::VectorXd x = solver.eigenvectors().col(mode);
    Eigen::VectorXcd shape = Eigen::VectorXcd::Zero(3 * 2 * per_link);
    for (int p = 0; p < 2 * per_link; ++p) {
      const double u = x(3 * p), v = x(3 * p + 1);  // node p + 1 (node 0 is clamped)
      const bool fore = p >= per_link;
      shape(3 * p) = fore ? v : u;
      shape(3 * p + 1) = fore ? -u : v;
    }
    MeasuredMode m;
    m.frequency_hz = std::sqrt(solver.eigenvalues()(mode)) / (2.0 * M_PI);
    m.frequency_sigma_hz = 0.005 * m.frequency_hz;
    m.shape = shape / shape.norm();
    set.modes.push_back(m);
  }
  return set;
}

inline ParameterOptions Free() {
  ParameterOptions options;
  options.free = {"E_upper", "E_fore", "m_elbow", "m_hand"};
  return options;
}

inline std::vector<double> TruthVector(const Model& model) {
  std::vector<double> p = model.InitialParameters();
  p[model.FindParameter("E_upper")] = kTruth.e_upper;
  p[model.FindParameter("E_fore")] = kTruth.e_fore;
  p[model.FindParameter("m_elbow")] = kTruth.m_elbow;
  p[model.FindParameter("m_hand")] = kTruth.m_hand;
  return p;
}

inline FitResult FitModes(const Model& model, const ModalData& modes) {
  Problem problem;
  problem.model = std::make_shared<const Model>(model);
  problem.cost.weights.mode = WeightMode::kNoise;
  problem.modes = modes;
  FitOptions options;
  options.parameters = Free();
  // Least squares from the best of four points around the nominal: one start, one cycle (the
  // cost is smooth and its minimum unique here; each evaluation is an eigenproblem of 2n).
  options.genetic_algorithm.population_size = 4;
  options.genetic_algorithm.generations = 0;
  options.levenberg_marquardt.starts = 1;
  options.levenberg_marquardt.agreeing_starts = 1;
  options.fitter.max_cycles = 1;
  const ParameterMap map(*problem.model, options.parameters, "l_frame");
  FitRunSettings settings;
  settings.evaluator.backend = BackendType::kCpu;
  settings.evaluator.threads = 1;
  return Fit(problem, map, options, settings);
}

}  // namespace frfit::test::l_frame
