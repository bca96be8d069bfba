// Model-error data with a mode the paper's 3-joint model lacks: an absorber-like local mode (a mass
// on a spring along x at the tool) near one of the robot's modes, synthesised at one or three
// postures with or without impact-test noise, and the bundled model fitted to it in process. For
// the model check's tests and benchmarks/absorbed_mode_naming.cc.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/results/fit_result.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"

namespace frfit::test {

inline const std::string kPaperModelDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

inline std::string ReadModelText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string ReplaceOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The 3-joint model text with `mass` kg on a spring along x at the tool (DOF ax).
inline std::string PaperModelWithAbsorber(double mass) {
  std::string text = ReadModelText(kPaperModelDir + "model.yaml");
  text = ReplaceOnce(text, "dofs:\n",
                     "dofs:\n  - {name: ax, type: translational, stiffness: {initial: 4.0e5, min: 1.0e3, "
                     "max: 1.0e9}, damping: {initial: 100, min: 1, max: 1.0e6}}\n");
  text = ReplaceOnce(text, "{rotx: -90}]}\n",
                     "{rotx: -90}]}\n  - {name: absorber, parent: sensor, transforms: [{transx: ax}]}\n");
  return ReplaceOnce(text, "bodies:\n",
                     "bodies:\n  - {name: absorber_mass, frame: absorber, mass: " + std::to_string(mass) +
                         ", inertia: {xx: 0.05, yy: 0.05, zz: 0.05, xy: 0, xz: 0, yz: 0, "
                         "off_diagonal: tensor_entries}}\n");
}

// Milling and two more postures (joint angles in rad).
inline std::vector<std::pair<std::string, std::vector<double>>> PaperPostures(int count) {
  const double d = M_PI / 180;
  std::vector<std::pair<std::string, std::vector<double>>> all = {
      {"milling", {0, 70 * d, -100 * d}}, {"reach", {30 * d, 40 * d, -60 * d}}, {"low", {-20 * d, 95 * d, -130 * d}}};
  all.resize(count);
  return all;
}

struct AbsorberCase {
  double mass = 10.0, frequency_hz = 22.0, damping_ratio = 0.02;
  double noise = 0.0;  // relative, with a floor at 0.1 % of each entry's peak
  int postures = 1;
  std::uint64_t seed = 1;
};

// The study's case number c (seed first_seed + c): noise-free and 3 % noise in turn, one and
// three postures in turn by pairs, 3-20 kg (log-uniform), the absorber's own frequency within
// ±15 % of the robot's first mode (every third case) or its third (10.2 and 22.6 Hz at milling).
inline AbsorberCase DrawAbsorberCase(int c, int first_seed) {
  std::mt19937_64 rng(first_seed + c);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  AbsorberCase a;
  a.seed = first_seed + c;
  a.noise = c % 2 == 0 ? 0.0 : 0.03;
  a.postures = (c / 2) % 2 == 0 ? 1 : 3;
  a.mass = 3.0 * std::pow(20.0 / 3.0, u(rng));
  a.frequency_hz = (c % 3 == 0 ? 10.2 : 22.6) * (0.85 + 0.3 * u(rng));
  return a;
}

struct AbsorberData {
  std::vector<Posture> postures;  // of the fitted (bundled) model
  std::vector<FrfSet> sets;       // inertance 2-30 Hz at 0.25 Hz, one per posture
  std::vector<double> extra_hz;   // per posture: the absorber's mode of the truth
};

inline AbsorberData SimulateAbsorber(const AbsorberCase& c) {
  const Model truth = ParseModelText(PaperModelWithAbsorber(c.mass), "truth");
  const Model paper = LoadModel(kPaperModelDir + "model.yaml");
  const std::vector<double> table1 = LoadParameters(kPaperModelDir + "params_table1.yaml", paper);
  std::vector<double> p(truth.num_parameters(), 0.0);
  for (int i = 0; i < paper.num_parameters(); ++i) p[truth.FindParameter(paper.parameters[i].name)] = table1[i];
  const double k = c.mass * std::pow(2 * M_PI * c.frequency_hz, 2);
  p[truth.FindParameter("k_ax")] = k;
  p[truth.FindParameter("d_ax")] = 2 * c.damping_ratio * std::sqrt(k * c.mass);
  AbsorberData out;
  int index = 0;
  for (const auto& [name, q] : PaperPostures(c.postures)) {
    std::vector<double> q_truth(truth.num_coordinates(), 0.0);  // the absorber's ax at rest
    for (size_t j = 0; j < q.size(); ++j) q_truth[truth.FindCoordinate(paper.dofs[j].name)] = q[j];
    const Posture at = Linearize(truth, q_truth, name);
    const JointCoefficients coefficients = Coefficients(truth, p, at.q);
    FrfSet set = Synthesize(at, coefficients, MakeBand(2.0, 30.0, 0.25, "band"), FrfFormat::kInertance);
    if (c.noise > 0.0) AddMeasurementNoise({c.noise, 0.001}, c.seed * 7 + index, true, &set);
    // The absorber's mode: of the truth's modes the one with the largest share of its kinetic
    // energy in the absorber's DOF (near a robot mode the two share it; the share decides).
    const Eigen::MatrixXd mass = MassMatrix(at, coefficients);
    const int ax = truth.FindCoordinate("ax");
    double extra = 0.0, largest = -1.0;
    for (const Mode& m : ComputeModes(at, coefficients)) {
      const Eigen::VectorXcd momentum = mass * m.shape;
      const double share = (std::conj(m.shape(ax)) * momentum(ax)).real() / m.shape.dot(momentum).real();
      if (share > largest) largest = share, extra = m.frequency_hz;
    }
    out.extra_hz.push_back(extra);
    out.postures.push_back(Linearize(paper, q, name));
    set.posture = name;
    out.sets.push_back(std::move(set));
    ++index;
  }
  return out;
}

// The bundled model fitted to `data` with the bundled configuration (noise weights), seed 1.
inline FitResult FitPaperModelTo(const AbsorberData& data) {
  const FitOptions options = LoadFitOptions(kPaperModelDir + "fit.yaml");
  const auto model = std::make_shared<const Model>(LoadModel(kPaperModelDir + "model.yaml"));
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (size_t q = 0; q < data.sets.size(); ++q)
    problem.postures.push_back(
        PreparePosture(data.postures[q], data.sets[q], options.cost, data.sets[q].posture + ".h5", 1.0));
  const ParameterMap map(*model, options.parameters, "test");
  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({Pack(problem)});
  FitRun run(map, options, 1);
  DriveFits({MakeFitJob(&run, map, problem)}, evaluator.get(), {});
  return AssembleFitResult(problem, map, run, options);
}

}  // namespace frfit::test
