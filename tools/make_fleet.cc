// build/frfit-make-fleet: a synthetic fleet of one model for tests and demonstrations
// (docs/fleet.md). Deterministic for a seed.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <sstream>
#include <string>

#include "frfit/common/error.h"
#include "frfit/fleet/fleet_generator.h"
#include "frfit/files/atomic_file.h"

namespace {

constexpr const char* kUsage =
    "usage: frfit-make-fleet --model M.yaml --robots N --out DIR [--seed S] [--postures "
    "milling,p2]\n"
    "       [--q-postures 'name:z2=60,z3=-90;name2:...'] [--params P.yaml] [--perturb 0.2]\n"
    "       [--noise 0.01] [--band 0.2:30:0.2] [--format receptance|mobility|inertance] [--config "
    "FIT.yaml]\n"
    "       [--night N] [--drift 'robot_003:k_z2=1.05;robot_010:d_x1=0.9'] [--previous RUN_DIR]\n"
    "\n"
    "Writes DIR/robot_NNN/frf_<posture>.h5, DIR/truth.json, DIR/model.yaml, DIR/fleet.yaml (and "
    "DIR/fit.yaml\n"
    "with --config). Parameters scatter log-uniformly by a factor in [1/(1+perturb), 1+perturb] "
    "around the\n"
    "model's initial values (or --params), clipped to the bounds; every FRF value gets relative "
    "complex\n"
    "Gaussian noise of standard deviation --noise. --night N (>= 2) measures the same robots "
    "again: the same\n"
    "parameters, times the --drift factors, with noise drawn afresh for that night. --previous "
    "writes\n"
    "`previous: RUN_DIR/<robot>.h5` for every robot into DIR/fleet.yaml, relative to DIR (move "
    "DIR and\n"
    "the runs together and the manifest still finds them).\n";

double ParseDouble(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw frfit::Error("frfit-make-fleet", option, "expected a number, got '" + text + "'");
  return v;
}

long long ParseInt(const std::string& text, const std::string& option) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || errno == ERANGE)
    throw frfit::Error("frfit-make-fleet", option, "expected an integer >= 0, got '" + text + "'");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  frfit::InstallTemporaryFileCleanup();
  try {
    std::map<std::string, std::string> values;
    const char* known[] = {"model",  "robots",  "seed",  "postures", "q-postures",
                           "params", "perturb", "noise", "band",     "format",
                           "out",    "config",  "night", "drift",    "previous"};
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      bool ok = arg.rfind("--", 0) == 0 && i + 1 < argc;
      if (ok) {
        ok = false;
        for (const char* k : known) ok = ok || arg.substr(2) == k;
      }
      if (!ok) throw frfit::Error("frfit-make-fleet", arg, "unknown option or missing value (see --help)");
      values[arg.substr(2)] = argv[++i];
    }
    for (const char* required : {"model", "robots", "out"})
      if (!values.count(required)) throw frfit::Error("frfit-make-fleet", std::string("--") + required, "is required");
    frfit::FleetGeneratorOptions o;
    o.model = values["model"];
    o.out = values["out"];
    o.robots = static_cast<int>(ParseInt(values["robots"], "--robots"));
    if (values.count("seed")) o.seed = static_cast<std::uint64_t>(ParseInt(values["seed"], "--seed"));
    if (values.count("params")) o.params = values["params"];
    if (values.count("config")) o.config = values["config"];
    if (values.count("perturb")) o.perturb = ParseDouble(values["perturb"], "--perturb");
    if (values.count("noise")) o.noise = ParseDouble(values["noise"], "--noise");
    if (values.count("band")) o.band = values["band"];
    if (values.count("format") && !frfit::FromString(values["format"], &o.format))
      throw frfit::Error("frfit-make-fleet", "--format", "expected receptance, mobility or inertance");
    if (values.count("night")) o.night = static_cast<int>(ParseInt(values["night"], "--night"));
    if (values.count("drift")) o.drift = frfit::ParsePlantedDrift(values["drift"], "--drift");
    if (values.count("previous")) o.previous_run = values["previous"];
    if (values.count("q-postures")) o.q_postures = frfit::ParseQPostures(values["q-postures"], "--q-postures");
    std::stringstream in(values.count("postures") ? values["postures"] : std::string());
    std::string item;
    while (std::getline(in, item, ',')) if (!item.empty()) o.postures.push_back(item);
    if (o.postures.empty()) {  // default: the extra postures, else the model's own ones are checked by the generator
      for (const auto& [name, q] : o.q_postures) o.postures.push_back(name);
      if (o.postures.empty()) throw frfit::Error("frfit-make-fleet", "--postures", "expected at least one posture");
    }
    const auto robots = frfit::GenerateFleet(o);
    std::printf("wrote %zu robot(s) x %zu posture(s) to %s (fleet.yaml, truth.json, model.yaml)\n", robots.size(),
                o.postures.size(), o.out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
