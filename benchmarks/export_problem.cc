// Writes the problem `frfit fit` would solve — the same model, FRF files and fit configuration,
// prepared and packed by the same code — to HDF5, with the parameter map and frfit's own normal
// equations at the initial point, so that an outside least-squares implementation
// (benchmarks/lsq_vs_scipy.py: SciPy with an analytic Jacobian written in NumPy) fits the very
// residuals frfit fits and can check its cost, gradient and Gauss–Newton matrix against frfit's.
//
//   build/benchmarks/export_problem --model M.yaml --frf A.h5[,B.h5] [--config FIT.yaml]
//       --out P.h5
//
// Layout (row-major, Q postures, L_q lines of posture q, n DOFs, p free parameters):
//   /n, /cost_kind, /phase_mode [1]
//   /postures/<q>/mass, gravity [n][n]  basis [n][3]  omega_rad_s [L_q]  weight [L_q][9]
//                 target [L_q][9][2]  posture_weight, fit_order [1]
//   /parameters/names [p]  lower, upper [p]  log_scale [p] (1 log, 0 linear)
//                coefficient_row [p]: the packed coefficient (kernels::CoefficientStride
//                order) the parameter is, for models whose coefficients are the parameters
//                themselves (viscous damping, no stiffness laws); -1 otherwise
//                initial_u [p]
//   /frfit/normal_at_initial [NormalTermCount(p)]: cost, JᵀWr, JᵀWJ (upper triangle, row-major)
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/model_yaml.h"

namespace frfit {
namespace {

constexpr const char* kUsage =
    "usage: export_problem --model M.yaml --frf A.h5[,B.h5] [--config FIT.yaml] --out P.h5\n";

int Run(int argc, char** argv) {
  std::map<std::string, std::string> options;
  for (int a = 1; a < argc; ++a) {
    const std::string key = argv[a];
    if (key.rfind("--", 0) != 0 || a + 1 >= argc) throw Error(std::string(kUsage));
    options[key.substr(2)] = argv[++a];
  }
  for (const char* required : {"model", "frf", "out"})
    if (!options.count(required)) throw Error("", std::string("--") + required, "is required");
  for (const auto& [key, value] : options)
    if (key != "model" && key != "frf" && key != "config" && key != "out")
      throw Error("", "--" + key, "unknown option\n" + std::string(kUsage));

  const std::string config = options.count("config") ? options["config"] : "";
  const FitOptions fit = LoadFitOptions(config);
  auto model = std::make_shared<const Model>(LoadModel(options["model"]));
  std::vector<std::string> files;
  std::stringstream list(options["frf"]);
  for (std::string item; std::getline(list, item, ',');) files.push_back(item);
  const Problem problem = LoadProblem(model, files, fit, config.empty() ? "defaults" : config);
  const PackedProblem packed = Pack(problem);
  const ParameterMap map(*model, fit.parameters, config.empty() ? "defaults" : config);
  const int n = packed.n, p = map.dim();

  Hdf5File file(options["out"], Hdf5File::Mode::kCreate);
  file.SetAttribute("/", "frfit_file", "packed fit problem (benchmarks/export_problem.cc)");
  const std::int64_t header[3] = {n, packed.cost_kind, packed.phase_mode};
  file.WriteInts("/n", {1}, &header[0]);
  file.WriteInts("/cost_kind", {1}, &header[1]);
  file.WriteInts("/phase_mode", {1}, &header[2]);
  file.CreateGroup("/postures");
  for (int q = 0; q < packed.num_postures(); ++q) {
    const PackedPosture& pp = packed.postures[q];
    const std::string g = "/postures/" + std::to_string(q);
    const auto N = static_cast<hsize_t>(n), L = static_cast<hsize_t>(pp.num_lines());
    file.CreateGroup(g);
    file.WriteDoubles(g + "/mass", {N, N}, pp.mass.data());
    file.WriteDoubles(g + "/gravity", {N, N}, pp.gravity.data());
    file.WriteDoubles(g + "/basis", {N, 3}, pp.basis.data());
    file.WriteDoubles(g + "/omega_rad_s", {L}, pp.omega_rad_s.data());
    file.WriteDoubles(g + "/weight", {L, 9}, pp.weight.data());
    file.WriteDoubles(g + "/target", {L, 9, 2}, pp.target.data());
    file.WriteDoubles(g + "/posture_weight", {1}, &pp.posture_weight);
    const std::int64_t order = pp.fit_order;
    file.WriteInts(g + "/fit_order", {1}, &order);
  }

  std::vector<std::string> names;
  std::vector<double> lower, upper;
  std::vector<std::int64_t> log_scale, row;
  const bool plain =
      model->damping_model == DampingModel::kViscous && !model->has_posture_dependent_stiffness();
  for (int i = 0; i < p; ++i) {
    const ParameterBounds& b = map.space().bounds(i);
    const ParameterSpec& spec = model->parameters[map.free_indices()[i]];
    names.push_back(b.name);
    lower.push_back(b.lower);
    upper.push_back(b.upper);
    log_scale.push_back(b.scale == ParameterScale::kLog ? 1 : 0);
    row.push_back(!plain ? -1 : spec.kind == ParameterKind::kStiffness ? spec.dof : n + spec.dof);
  }
  const auto P = static_cast<hsize_t>(p);
  file.CreateGroup("/parameters");
  file.WriteStrings("/parameters/names", names);
  file.WriteDoubles("/parameters/lower", {P}, lower.data());
  file.WriteDoubles("/parameters/upper", {P}, upper.data());
  file.WriteInts("/parameters/log_scale", {P}, log_scale.data());
  file.WriteInts("/parameters/coefficient_row", {P}, row.data());
  const std::vector<double> u0 = map.InitialU();
  file.WriteDoubles("/parameters/initial_u", {P}, u0.data());

  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({packed});
  const std::vector<std::vector<double>> q = PostureCoordinates(problem);
  std::vector<double> coefficients, sensitivities;
  map.AppendCoefficients(u0, q, &coefficients);
  map.AppendSensitivities(u0, q, &sensitivities);
  const int one = 1;
  std::vector<double> normal(NormalTermCount(p));
  EvalStatus status;
  evaluator->EvaluateNormalEquations({{&one, 1}, {&p, 1}, coefficients, sensitivities}, normal,
                                     {&status, 1});
  file.CreateGroup("/frfit");
  file.WriteDoubles("/frfit/normal_at_initial", {normal.size()}, normal.data());
  file.Save();
  std::cout << "wrote " << options["out"] << ": " << packed.num_postures()
            << " posture(s), n = " << n << ", " << p << " free parameters\n";
  return 0;
}

}  // namespace
}  // namespace frfit

int main(int argc, char** argv) {
  try {
    return frfit::Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "export_problem: " << e.what() << "\n";
    return 1;
  }
}
