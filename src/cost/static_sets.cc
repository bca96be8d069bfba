#include "frfit/cost/static_sets.h"

#include "frfit/common/error.h"
#include "frfit/cost/model_frf.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

ProblemPosture StaticSet(const Model& model, const StaticTest& test, const std::string& source) {
  if (model.FindPosture(test.posture) < 0)
    throw Error(source, "posture", "model '" + model.name + "' has no posture '" + test.posture +
                                       "' (it has " + model.PostureNames() + ")");
  ProblemPosture pp;
  pp.posture = Linearize(model, test.posture);
  pp.source = source;
  pp.is_static = true;
  pp.static_force_n = test.force_n;
  FrfSet& m = pp.measured;
  m.posture = test.posture;
  m.response_frame = test.displacement_frame;
  m.excitation_frame = test.force_frame;
  m.format = FrfFormat::kReceptance;
  m.frequency_hz = {0.0};
  m.H.assign(9, 0.0);
  m.noise_variance.assign(9, 0.0);
  m.noise_source = "variance";
  pp.weights.assign(9, 0.0);
  for (int i = 0; i < 3; ++i) {
    const int e = EntryIndex(i, 0);
    m.present[e] = true;
    m.H[e] = test.displacement_m(i);
    m.noise_variance[e] = test.std_m(i) * test.std_m(i);
    pp.weights[e] = 1.0 / m.noise_variance[e];
  }
  m.provenance = {{"static_test", source}};
  const MeasurementPoints points =
      PointsAt(model, pp.posture, test.displacement_frame, test.force_frame, source);
  pp.points = points;
  // The force's direction and size in the excitation basis: column 0 (the one fitted) is B_b·F;
  // the unweighted columns repeat it.
  const Eigen::VectorXd loaded = points.excitation_basis * test.force_n;
  pp.points.excitation_basis.resize(loaded.size(), 3);
  for (int j = 0; j < 3; ++j) pp.points.excitation_basis.col(j) = loaded;
  return pp;
}

}  // namespace

void AddStaticTests(const StaticTests& tests, Problem* problem) {
  const Model& model = *problem->model;
  if (model.damping_model == DampingModel::kStructural)
    throw Error(tests.source, "tests",
                "static deflection tests need a model whose damping vanishes at 0 Hz (viscous or "
                "rayleigh); model '" + model.name + "' has structural damping, whose i·η·k would "
                "enter the static compliance");
  for (size_t i = 0; i < tests.tests.size(); ++i)
    problem->postures.push_back(
        StaticSet(model, tests.tests[i],
                  tests.source + " tests[" + std::to_string(i) + "] (line " +
                      std::to_string(tests.tests[i].line) + ")"));
}

Eigen::Vector3d PredictedDeflection(const Model& model, const ProblemPosture& pp,
                                    const std::vector<double>& parameters) {
  const FrfSet fitted = ModelFrfAt(model, pp, parameters, {0.0}, FrfFormat::kReceptance);
  Eigen::Vector3d out;
  for (int i = 0; i < 3; ++i) out(i) = fitted.H[EntryIndex(i, 0)].real();
  return out;
}

Problem FrfSetsOnly(const Problem& problem) {
  Problem out = problem;
  out.postures.clear();
  for (const ProblemPosture& pp : problem.postures)
    if (!pp.is_static) out.postures.push_back(pp);
  return out;
}

}  // namespace frfit
