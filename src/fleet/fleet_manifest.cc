#include "frfit/fleet/fleet_manifest.h"

#include <cctype>
#include <filesystem>
#include <set>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/files/yaml_reader.h"

#include "frfit/common/hashing.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

std::string Resolve(const std::string& directory, const std::string& path) {
  if (path.empty()) return path;
  const fs::path p(path);
  return p.is_absolute() ? p.lexically_normal().string() : (fs::path(directory) / p).lexically_normal().string();
}

std::uint64_t Seed(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  const std::string text = r.String(node, path);
  bool digits = !text.empty() && text.size() <= 20;
  for (char c : text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    try {
      return std::stoull(text);
    } catch (const std::exception&) {
    }
  }
  r.Fail(node, path, "expected an integer seed in [0, 2^64), got '" + text + "'");
}

}  // namespace

constexpr std::pair<WarmStartMethod, const char*> kWarmStartMethods[] = {
    {WarmStartMethod::kLevenbergMarquardt, "levenberg_marquardt"},
    {WarmStartMethod::kGeneticAlgorithm, "genetic_algorithm"}};

std::string ToString(WarmStartMethod method) { return EnumName(kWarmStartMethods, method); }
bool FromString(const std::string& text, WarmStartMethod* method) {
  return EnumFromName(kWarmStartMethods, text, method);
}

std::uint64_t FleetRobotSeed(std::uint64_t base_seed, const std::string& name) {
  Fingerprint h;
  h.Mix(name);
  // 63 bits, so that `frfit fit --seed` (a signed integer) can reproduce a robot's fit alone.
  return SplitMix64(base_seed ^ h.value()) >> 1;
}

bool IsValidRobotName(const std::string& name) {
  if (name.empty() || name.size() > 128 || name[0] == '.') return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

FleetManifest LoadFleetManifest(const std::string& path) {
  const YAML::Node root = YamlReader::LoadFile(path);
  const YamlReader r(path);
  FleetManifest m;
  m.path = path;
  m.directory = fs::absolute(path).parent_path().string();
  r.RequireMap(root, "", {"format", "model", "config", "seed", "robots", "warm_start", "drift"});
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != "frfit-fleet-1") r.Fail(root["format"], "format", "expected frfit-fleet-1, got '" + format + "'");
  if (r.Has(root, "model")) m.model = Resolve(m.directory, r.String(root["model"], "model"));
  if (r.Has(root, "config")) m.config = Resolve(m.directory, r.String(root["config"], "config"));
  if (r.Has(root, "seed")) m.seed = Seed(r, root["seed"], "seed");
  if (r.Has(root, "warm_start")) {
    const YAML::Node w = root["warm_start"];
    r.RequireMap(
        w, "warm_start",
        {"method", "starts", "init_spread", "generations", "fallback", "max_cost_over_previous",
         "short_path", "sigma_step"});
    if (r.Has(w, "method")) {
      const std::string method = r.String(w["method"], "warm_start.method");
      if (!FromString(method, &m.warm_start.method))
        r.Fail(w["method"], "warm_start.method",
               "expected levenberg_marquardt or genetic_algorithm, got '" + method + "'");
    }
    const bool ga = m.warm_start.method == WarmStartMethod::kGeneticAlgorithm;
    // A key of the other method would be silently ignored: refuse it, naming the method it needs.
    for (const char* key : {"starts", "fallback", "max_cost_over_previous", "generations",
                            "short_path", "sigma_step"}) {
      const bool ga_key = std::string(key) == "generations";
      if (r.Has(w, key) && ga_key != ga)
        r.Fail(w[key], std::string("warm_start.") + key,
               std::string("applies only to method: ") +
                   (ga_key ? "genetic_algorithm" : "levenberg_marquardt") +
                   " (this warm start's method is " + ToString(m.warm_start.method) + ")");
    }
    if (r.Has(w, "generations")) {
      m.warm_start.generations = r.Integer(w["generations"], "warm_start.generations");
      if (m.warm_start.generations < 0)
        r.Fail(w["generations"], "warm_start.generations", "expected an integer >= 0");
    }
    if (r.Has(w, "starts")) {
      m.warm_start.starts = r.Integer(w["starts"], "warm_start.starts");
      if (m.warm_start.starts < 1)
        r.Fail(w["starts"], "warm_start.starts", "expected an integer >= 1");
    }
    if (r.Has(w, "init_spread")) {
      m.warm_start.init_spread = r.Positive(w["init_spread"], "warm_start.init_spread");
      if (m.warm_start.init_spread > 1.0)
        r.Fail(w["init_spread"], "warm_start.init_spread", "expected a value in (0, 1]");
    }
    if (r.Has(w, "fallback"))
      m.warm_start.fallback = r.Boolean(w["fallback"], "warm_start.fallback");
    if (r.Has(w, "short_path"))
      m.warm_start.short_path = r.Boolean(w["short_path"], "warm_start.short_path");
    if (r.Has(w, "sigma_step")) {
      m.warm_start.sigma_step = r.Positive(w["sigma_step"], "warm_start.sigma_step");
      if (m.warm_start.sigma_step > 1.0)
        r.Fail(w["sigma_step"], "warm_start.sigma_step", "expected a value in (0, 1]");
    }
    if (r.Has(w, "max_cost_over_previous")) {
      m.warm_start.max_cost_over_previous =
          r.Positive(w["max_cost_over_previous"], "warm_start.max_cost_over_previous");
      if (m.warm_start.max_cost_over_previous < 1.0)
        r.Fail(w["max_cost_over_previous"], "warm_start.max_cost_over_previous",
               "expected a value >= 1");
    }
  }
  if (r.Has(root, "drift")) {
    const YAML::Node d = root["drift"];
    r.RequireMap(d, "drift", {"sigma", "parameter_percent", "frequency_percent"});
    if (r.Has(d, "sigma")) m.drift.sigma = r.Positive(d["sigma"], "drift.sigma");
    if (r.Has(d, "parameter_percent"))
      m.drift.parameter_percent = r.Positive(d["parameter_percent"], "drift.parameter_percent");
    if (r.Has(d, "frequency_percent"))
      m.drift.frequency_percent = r.Positive(d["frequency_percent"], "drift.frequency_percent");
  }
  const YAML::Node robots = r.Child(root, "robots", "");
  r.RequireSequence(robots, "robots");
  if (robots.size() == 0) r.Fail(robots, "robots", "expected at least one robot");
  std::set<std::string> names;
  for (size_t i = 0; i < robots.size(); ++i) {
    const YAML::Node node = robots[i];
    const std::string at = JoinPath("robots", i);
    r.RequireMap(node, at, {"name", "frf", "model", "config", "seed", "previous"});
    FleetRobot robot;
    robot.name = r.String(r.Child(node, "name", at), JoinPath(at, "name"));
    if (!IsValidRobotName(robot.name))
      r.Fail(node["name"], JoinPath(at, "name"),
             "expected a name of letters, digits, '_', '-' and '.' (it names output files), got '" + robot.name + "'");
    if (!names.insert(robot.name).second)
      r.Fail(node["name"], JoinPath(at, "name"), "robot '" + robot.name + "' is listed twice");
    const YAML::Node frf = r.Child(node, "frf", at);
    if (frf.IsScalar()) {
      robot.frf.push_back(Resolve(m.directory, r.String(frf, JoinPath(at, "frf"))));
    } else {
      r.RequireSequence(frf, JoinPath(at, "frf"));
      for (size_t k = 0; k < frf.size(); ++k)
        robot.frf.push_back(Resolve(m.directory, r.String(frf[k], JoinPath(JoinPath(at, "frf"), k))));
    }
    robot.model = r.Has(node, "model") ? Resolve(m.directory, r.String(node["model"], JoinPath(at, "model"))) : m.model;
    if (robot.model.empty())
      r.Fail(node, at, "robot '" + robot.name + "' has no model (give `model` here or at the top of the manifest)");
    robot.config = r.Has(node, "config") ? Resolve(m.directory, r.String(node["config"], JoinPath(at, "config"))) : m.config;
    if (r.Has(node, "seed")) {
      robot.seed = Seed(r, node["seed"], JoinPath(at, "seed"));
      robot.explicit_seed = true;
    } else {
      robot.seed = FleetRobotSeed(m.seed, robot.name);
    }
    if (r.Has(node, "previous"))
      robot.previous = Resolve(m.directory, r.String(node["previous"], JoinPath(at, "previous")));
    m.robots.push_back(std::move(robot));
  }
  return m;
}

}  // namespace frfit
