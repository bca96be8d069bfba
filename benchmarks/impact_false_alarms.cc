// The model check's false-alarm rate on impact tests of the right model (docs/noise.md, "When the
// noise is itself estimated"): simulated hammer tests of the paper's 3-joint example (5 good hits
// per direction, accelerations, tests/unit/impact/paper_modes.h) through `frfit frf` and
// `frfit fit`, counting the fits whose model check says `misfit`. It also pools the standardised
// residual z = (Ĥ − H_true)/σ̂ of every fitted line and entry against the true FRF and prints its
// tail beside the known-variance law (|z|² ~ Exp(1)) and the estimated-variance one
// (|z|² = (n − 2)/(n − 1)·F(2, 2n − 2), P(|z|² > t) = (1 + t/(n − 2))^−(n−1)).
//
// usage: impact_false_alarms FRFIT_CLI CASES [FIRST_SEED] [SCRATCH_DIR]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../tests/unit/impact/paper_modes.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/io/time_hdf5.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace frfit;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FRFIT_CLI CASES [FIRST_SEED] [SCRATCH_DIR]\n", argv[0]);
    return 2;
  }
  const std::string cli = argv[1];
  const int cases = std::atoi(argv[2]);
  const int first_seed = argc > 3 ? std::atoi(argv[3]) : 1000;
  const std::string dir = argc > 4 ? argv[4] : "/tmp/frfit_impact_false_alarms";
  std::filesystem::create_directories(dir);
  double misfit = 0;
  const auto modes = test::PaperModes(&misfit);
  const Model model = LoadModel(test::kPaper3Dof + "model.yaml");
  const Posture posture = Linearize(model, "milling");
  const JointCoefficients truth =
      Coefficients(model, LoadParameters(test::kPaper3Dof + "params_table1.yaml", model));
  const std::vector<double> thresholds{2, 5, 10, 20, 40, 80};
  std::vector<long> above(thresholds.size(), 0);
  long terms = 0;
  int alarms = 0, averages = 0;
  for (int c = 0; c < cases; ++c) {
    Rng rng(first_seed + c);
    const auto hits = test::SimulatePaperHammerTest(modes, 5, &rng);
    std::string command = cli + " frf";
    for (int axis = 0; axis < 3; ++axis) {
      const std::string path = dir + "/hits_" + "xyz"[axis] + ".h5";
      WriteTimeRecordings(path, hits[axis]);
      command += " " + path;
    }
    command += " --posture milling --band 0.2:30 --out " + dir + "/frf.h5 > /dev/null 2>&1";
    if (std::system(command.c_str()) != 0) return std::fprintf(stderr, "frf failed\n"), 1;
    const FrfSet set = ReadFrfSet(dir + "/frf.h5");
    averages = set.averages;
    const FrfSet exact = Synthesize(posture, truth, set.frequency_hz, set.format);
    for (size_t i = 0; i < set.H.size(); ++i) {
      if (!(set.noise_variance[i] > 0) || !std::isfinite(set.noise_variance[i])) continue;
      const double z2 = std::norm(set.H[i] - exact.H[i]) / set.noise_variance[i];
      ++terms;
      for (size_t t = 0; t < thresholds.size(); ++t) above[t] += z2 > thresholds[t];
    }
    const std::string fit = cli + " fit --model " + test::kPaper3Dof + "model.yaml --config " +
                            test::kPaper3Dof + "fit.yaml --frf " + dir + "/frf.h5 --seed 1 --json > " +
                            dir + "/fit.json 2> /dev/null";
    if (std::system(fit.c_str()) != 0) return std::fprintf(stderr, "fit failed\n"), 1;
    const auto j = nlohmann::json::parse(Slurp(dir + "/fit.json"));
    const auto& check = j["model_check"];
    const bool alarm = check["verdict"] == "misfit";
    alarms += alarm;
    std::printf("case %d (seed %d): %s, reduced chi2 %.3f%s\n", c, first_seed + c,
                check["verdict"].get<std::string>().c_str(), check["reduced_chi2"].get<double>(),
                alarm ? "" : "");
    for (const auto& r : check["reasons"]) std::printf("    %s\n", r.get<std::string>().c_str());
    std::fflush(stdout);
  }
  const int n = averages;
  std::printf("\n|z|^2 against the true FRF: %ld terms, %d averages\n", terms, n);
  std::printf("%8s %12s %12s %12s\n", "t", "measured", "Exp(1)", "F law");
  for (size_t t = 0; t < thresholds.size(); ++t)
    std::printf("%8.0f %12.3g %12.3g %12.3g\n", thresholds[t], double(above[t]) / terms,
                std::exp(-thresholds[t]), std::pow(1 + thresholds[t] / (n - 2), -(n - 1)));
  std::printf("\nfalse alarms: %d of %d fits (%.1f %%)\n", alarms, cases, 100.0 * alarms / cases);
  return 0;
}
