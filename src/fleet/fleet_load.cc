// The stages of a fleet night between the run directory and the fitting loop (fleet_night.h):
// every owned robot's inputs read and made into a problem (a bad robot is skipped with its
// reason), then the check that no output would overwrite an input and the fingerprint that
// --resume compares.
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/model/model_yaml.h"
#include "frfit/fleet/fleet_shard.h"
#include "src/fleet/fleet_night.h"

namespace frfit {
namespace {

// The robot's FRF sets made into its problem. Reading takes the HDF5 lock one file at a time;
// the problem (the noise estimate of every set, the postures' linearisation: most of a robot's
// loading) runs beside the other threads. The first error is the one LoadProblem would give,
// which reads and adds the sets one by one: a set that cannot be read yields only to an earlier
// set's error.
Problem LoadRobotProblem(const FleetRobotFit& r, const std::vector<std::string>& files) {
  std::vector<FrfSet> sets;
  for (const std::string& file : files) {
    try {
      const std::lock_guard<std::mutex> lock(Hdf5Lock());
      sets.push_back(ReadFrfSet(file));
    } catch (const std::exception&) {
      FitOptions unweighted = r.options;  // the earlier sets' own errors, not the weights'
      unweighted.posture_weights.clear();
      const std::vector<std::string> read(files.begin(), files.begin() + sets.size());
      ProblemFromSets(r.model, sets, read, unweighted, r.config_source);
      throw;
    }
  }
  return ProblemFromSets(r.model, sets, files, r.options, r.config_source);
}

// What needs the robot's previous result and FRF files; run on every thread.
void LoadRobotData(const FleetManifest& manifest, const FleetRobot& robot, FleetRobotFit* r,
                   FleetRobotOutcome* out) {
  const Model& model = *r->model;
  if (!robot.previous.empty()) {
    {
      const std::lock_guard<std::mutex> lock(Hdf5Lock());
      r->previous = ReadPreviousNight(robot.previous, model);
    }
    r->options = WarmStartOptions(r->options, model, r->previous->parameters, manifest.warm_start,
                                  r->config_source);
    out->warm_start = true;
    out->warm_start_method = ToString(manifest.warm_start.method);
    out->previous_cost = r->previous->cost;
  }
  // A fleet drives its fits together, without the refits of `weight: auto`, and a warm start moves
  // the nominal (the initial values) to the previous night's result: neither fits a regularisation.
  if (r->options.parameters.regularization.enabled)
    throw Error(r->config_source, "regularization",
                "expected no regularization block in a fleet's fit configuration (frfit fit takes it)");
  r->map = std::make_unique<ParameterMap>(model, r->options.parameters, r->config_source);
  r->problem = LoadRobotProblem(*r, robot.frf);
  // A beam model is reduced as Fit reduces it for `frfit fit` with the robot's configuration: at
  // that configuration's parameter samples (the search box, which holds a warm start's point too).
  ParameterMap cold(model, r->cold_options.parameters, r->config_source);
  if (ReduceProblem(r->cold_options.reduction, r->config_source, &cold, &r->problem))
    r->map->UseReducedLayout(cold.reduced_joints(), cold.reduced_size());
  if (r->previous && manifest.warm_start.method == WarmStartMethod::kLevenbergMarquardt &&
      manifest.warm_start.short_path) {
    // The map's initial point is the previous result (clipped to the bounds).
    r->full_search_reason =
        ShortPathRefusal(r->problem, *r->map, r->map->InitialU(), *r->previous);
    r->short_path = r->full_search_reason.empty();
    if (r->short_path) {
      r->options = ShortPathOptions(r->options, manifest.warm_start, r->config_source);
      // The search on the cost the previous result is the minimum of: its night's last pass,
      // noise weights at the model at that point, no peak emphasis (ShortPathOptions); the
      // configured weights are kept for a cold refit (MakeColdMap).
      r->problem.cost = r->options.cost;
      for (const ProblemPosture& pp : r->problem.postures)
        r->configured_weights.push_back(pp.weights);
      r->problem = WithNoiseWeightsAt(r->problem, *r->map, r->map->InitialU());
    }
    out->warm_path = r->short_path ? "short" : "full";
    out->warm_path_reason = r->full_search_reason;
  }
}

}  // namespace

void LoadRobots(FleetNight* night) {
  const FleetManifest& manifest = night->manifest;
  const FleetRunOptions& options = *night->options;
  FleetReport& report = night->report;
  report.robots.resize(manifest.robots.size());
  // Models and configurations first, one after the other: each is loaded once and shared by
  // its robots.
  std::map<std::string, FitOptions> configs;
  std::vector<std::unique_ptr<FleetRobotFit>> candidates(manifest.robots.size());
  for (size_t i = 0; i < manifest.robots.size(); ++i) {
    const FleetRobot& robot = manifest.robots[i];
    FleetRobotOutcome& out = report.robots[i];
    if (!OwnsRobot(options.peers, i)) continue;  // another rank's
    out.name = robot.name;
    out.seed = robot.seed;
    out.previous = robot.previous;
    try {
      auto r = std::make_unique<FleetRobotFit>();
      r->index = i;
      auto m = night->models.find(robot.model);
      if (m == night->models.end())
        m = night->models
                .emplace(robot.model, std::make_shared<const Model>(LoadModel(robot.model)))
                .first;
      r->model = m->second;
      auto c = configs.find(robot.config);
      if (c == configs.end()) c = configs.emplace(robot.config, LoadFitOptions(robot.config)).first;
      r->config_source = robot.config.empty() ? "default fit configuration" : robot.config;
      r->options = r->cold_options = c->second;
      if (robot.frf.empty())
        throw Error(manifest.path, "robots." + robot.name + ".frf",
                    "expected at least one FRF file");
      candidates[i] = std::move(r);
    } catch (const std::exception& e) {
      out.status = "skipped";
      out.reason = e.what();
    }
  }
  // Then each robot's data, on every thread: a robot's problem depends on its files only.
  ForEachRobot(candidates.size(), night->threads, [&](size_t i) {
    if (!candidates[i]) return;
    try {
      LoadRobotData(manifest, manifest.robots[i], candidates[i].get(), &report.robots[i]);
    } catch (const std::exception& e) {
      candidates[i].reset();
      report.robots[i].status = "skipped";
      report.robots[i].reason = e.what();
    }
  });
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i]) night->ready.push_back(std::move(candidates[i]));
    else if (report.robots[i].status == "skipped")
      night->Log("frfit fleet: skipping robot " + manifest.robots[i].name + ": " +
                 report.robots[i].reason);
  }
}

std::string CheckInputs(const FleetNight& night) {
  const FleetManifest& manifest = night.manifest;
  // No output may be an input: a resumed run's directory, or a previous result named there.
  InputFileSet inputs;
  inputs.Add(manifest.path);
  for (const FleetRobot& robot : manifest.robots) {
    for (const std::string& file : {robot.model, robot.config, robot.previous}) inputs.Add(file);
    for (const std::string& file : robot.frf) inputs.Add(file);
  }
  for (const auto& [path, model] : night.models)
    for (const std::string& file : model->files) inputs.Add(file);
  std::vector<std::string> outputs = {night.checkpoint_path, night.history_path};
  for (const char* name : {"drift.json", "drift.txt", "index.html", "summary.csv", "summary.json"})
    outputs.push_back((night.run_dir / name).string());
  for (const auto& r : night.ready)
    for (const char* extension : {".h5", ".html"})
      outputs.push_back((night.run_dir / (manifest.robots[r->index].name + extension)).string());
  for (const std::string& output : outputs)
    if (const std::string* input = inputs.Find(output))
      throw Error(
          "frfit fleet", "--out",
          "expected a run directory that holds no input; " + output + " would overwrite " + *input);
  if (night.ready.empty()) return "";
  // Fingerprint of everything that decides the results, so --resume refuses another fleet's
  // checkpoint.
  Fingerprint fp;
  fp.MixFile(manifest.path);
  // Each configuration file's options as YAML, written once: they are every robot's cold options
  // (LoadRobots), and the options of a robot without a previous result (LoadRobotData changes
  // only a warm robot's).
  std::map<std::string, std::string> configured;
  auto configured_yaml = [&](const FleetRobot& robot, const FitOptions& as_configured) {
    auto it = configured.find(robot.config);
    if (it == configured.end())
      it = configured.emplace(robot.config, FitOptionsToYaml(as_configured)).first;
    return std::string_view(it->second);
  };
  for (const auto& r : night.ready) {
    const FleetRobot& robot = manifest.robots[r->index];
    fp.Mix(robot.name);
    fp.Mix(std::to_string(robot.seed));
    fp.MixFile(robot.model);
    if (robot.previous.empty()) fp.Mix(configured_yaml(robot, r->options));
    else fp.Mix(FitOptionsToYaml(r->options));
    for (const std::string& file : robot.frf) fp.MixFile(file);
    if (!robot.previous.empty()) {
      fp.MixFile(robot.previous);
      fp.Mix(configured_yaml(robot, r->cold_options));  // a fallback's
    }
  }
  return std::to_string(fp.value());
}

}  // namespace frfit
