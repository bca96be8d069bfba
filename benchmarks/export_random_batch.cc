// Writes one of gpu_evaluator_bench's random batches (benchmarks/random_batch.h) to HDF5 with the
// cpu backend's cost of every (problem, individual), so that an outside implementation — the
// PyTorch baseline, benchmarks/torch_baseline.py — can time its batched solve on the very systems
// the benchmark times and check that it computes the same costs.
//
//   build/benchmarks/export_random_batch --n 9 --problems 1024 --individuals 128 --postures 2 \
//       --out /tmp/batch_n9.h5 [--threads 0]
//
// Layout (row-major, P problems, I individuals, Q postures, L lines, S = 3n + 1):
//   /mass, /gravity [P][Q][n][n]   /basis [P][Q][n][3]   /omega_rad_s [P][Q][L]
//   /weight [P][Q][L][9]   /target [P][Q][L][9][2]   /posture_weight [P][Q]   /fit_order [P][Q]
//   /coefficients [P][I][Q][S]   /cpu_cost [P][I]   /cpu_status [P][I]   /cost_kind, /phase_mode [1]
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/files/hdf5_file.h"
#include "kernels/line_cost.h"

namespace frfit {
namespace {

constexpr const char* kUsage =
    "usage: export_random_batch --n N --problems P --individuals I --postures Q --out FILE.h5 "
    "[--threads T]\n";

int IntOption(const std::map<std::string, std::string>& options, const std::string& name,
              int fallback, int lowest) {
  const auto it = options.find(name);
  if (it == options.end()) {
    if (fallback < lowest) throw Error("", "--" + name, "is required");
    return fallback;
  }
  char* end = nullptr;
  const long value = std::strtol(it->second.c_str(), &end, 10);
  if (*end != '\0' || value < lowest || value > 1 << 20)
    throw Error("", "--" + name, "expected an integer >= " + std::to_string(lowest) + ", got '" +
                                     it->second + "'");
  return static_cast<int>(value);
}

int Run(int argc, char** argv) {
  std::map<std::string, std::string> options;
  for (int a = 1; a < argc; ++a) {
    const std::string key = argv[a];
    if (key.rfind("--", 0) != 0 || a + 1 >= argc) throw Error(std::string(kUsage));
    options[key.substr(2)] = argv[++a];
  }
  for (const auto& [key, value] : options)
    if (key != "n" && key != "problems" && key != "individuals" && key != "postures" &&
        key != "out" && key != "threads")
      throw Error("", "--" + key, "unknown option\n" + std::string(kUsage));
  if (!options.count("out")) throw Error("", "--out", "is required");
  const int n = IntOption(options, "n", -1, 1);
  if (n > kernels::kMaxDofs) throw Error("", "--n", "expected at most " + std::to_string(kernels::kMaxDofs));
  const int problems = IntOption(options, "problems", -1, 1);
  const int individuals = IntOption(options, "individuals", -1, 1);
  const int postures = IntOption(options, "postures", -1, 1);
  const int threads = IntOption(options, "threads", 0, 0);

  bench::Batch batch = bench::MakeBatch(n, problems, individuals, postures);
  const auto P = static_cast<hsize_t>(problems), I = static_cast<hsize_t>(individuals),
             Q = static_cast<hsize_t>(postures), L = static_cast<hsize_t>(bench::kLines),
             N = static_cast<hsize_t>(n);
  std::vector<double> mass, gravity, basis, omega, weight, target, posture_weight;
  std::vector<std::int64_t> fit_order;
  for (const PackedProblem& problem : batch.problems)
    for (const PackedPosture& p : problem.postures) {
      mass.insert(mass.end(), p.mass.begin(), p.mass.end());
      gravity.insert(gravity.end(), p.gravity.begin(), p.gravity.end());
      basis.insert(basis.end(), p.basis.begin(), p.basis.end());
      omega.insert(omega.end(), p.omega_rad_s.begin(), p.omega_rad_s.end());
      weight.insert(weight.end(), p.weight.begin(), p.weight.end());
      target.insert(target.end(), p.target.begin(), p.target.end());
      posture_weight.push_back(p.posture_weight);
      fit_order.push_back(p.fit_order);
    }
  const std::int64_t cost_kind = batch.problems[0].cost_kind;
  const std::int64_t phase_mode = batch.problems[0].phase_mode;

  std::unique_ptr<Evaluator> evaluator = CreateCpuEvaluator(threads);
  evaluator->SetProblems(batch.problems);
  std::vector<double> costs(P * I);
  std::vector<EvalStatus> status(P * I);
  evaluator->Evaluate(batch.individuals, batch.coefficients, costs, status);
  std::vector<std::int64_t> status_codes;
  for (EvalStatus s : status) status_codes.push_back(static_cast<std::int64_t>(s));

  Hdf5File file(options["out"], Hdf5File::Mode::kCreate);
  file.SetAttribute("/", "frfit_file", "random evaluator batch (benchmarks/export_random_batch.cc)");
  file.WriteDoubles("mass", {P, Q, N, N}, mass.data());
  file.WriteDoubles("gravity", {P, Q, N, N}, gravity.data());
  file.WriteDoubles("basis", {P, Q, N, 3}, basis.data());
  file.WriteDoubles("omega_rad_s", {P, Q, L}, omega.data());
  file.WriteDoubles("weight", {P, Q, L, 9}, weight.data());
  file.WriteDoubles("target", {P, Q, L, 9, 2}, target.data());
  file.WriteDoubles("posture_weight", {P, Q}, posture_weight.data());
  file.WriteInts("fit_order", {P, Q}, fit_order.data());
  file.WriteDoubles("coefficients", {P, I, Q, 3 * N + 1}, batch.coefficients.data());
  file.WriteDoubles("cpu_cost", {P, I}, costs.data());
  file.WriteInts("cpu_status", {P, I}, status_codes.data());
  file.WriteInts("cost_kind", {1}, &cost_kind);
  file.WriteInts("phase_mode", {1}, &phase_mode);
  file.Save();
  std::cout << "wrote " << options["out"] << ": " << problems << " problems x " << individuals
            << " individuals x " << postures << " postures x " << bench::kLines << " lines, n = "
            << n << " (" << evaluator->description() << ")\n";
  return 0;
}

}  // namespace
}  // namespace frfit

int main(int argc, char** argv) {
  try {
    return frfit::Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "export_random_batch: " << e.what() << "\n";
    return 1;
  }
}
