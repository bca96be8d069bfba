#include "frfit/fleet/fleet_generator.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/frf/synthesize.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/yaml_reader.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/common/rng.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

std::string RobotName(int index, int count) {
  const int width = std::max(3, static_cast<int>(std::to_string(count - 1).size()));
  std::string digits = std::to_string(index);
  return "robot_" + std::string(width - digits.size(), '0') + digits;
}

// The model file with the extra postures added (yaml-cpp's emitter; comments are not kept).
std::string ModelWithPostures(const std::string& path, const Model& model,
                              const std::vector<std::pair<std::string, std::string>>& extra) {
  YAML::Node root = YamlReader::LoadFile(path);
  for (const auto& [name, assignments] : extra) {
    if (model.FindPosture(name) >= 0)
      throw Error("--q-postures", name, "model '" + model.name + "' already has a posture of this name");
    ParseCoordinateAssignments(assignments, model, std::vector<double>(model.num_coordinates(), 0.0),
                               "--q-postures " + name);
    YAML::Node q(YAML::NodeType::Map);
    std::stringstream in(assignments);
    std::string item;
    while (std::getline(in, item, ',')) {
      const auto eq = item.find('=');
      q[item.substr(0, eq)] = item.substr(eq + 1);
    }
    root["postures"][name] = q;
  }
  YAML::Emitter out;
  out << root;
  if (!out.good()) throw Error(path, "", std::string("cannot write the model copy: ") + out.GetLastError());
  return std::string("# Written by frfit-make-fleet: ") + path + " with the postures of --q-postures added.\n" +
         out.c_str() + "\n";
}

// "name:text;name2:text2" as (name, text) pairs; empty items are skipped. An item without a name
// or without text after its ':' is an Error naming `what` and showing `expected`.
std::vector<std::pair<std::string, std::string>> SplitNamedItems(const std::string& text,
                                                                 const std::string& what,
                                                                 const std::string& expected) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      throw Error(what, item, expected);
    out.emplace_back(item.substr(0, colon), item.substr(colon + 1));
  }
  return out;
}

// `target` as a path relative to `directory`, both taken as absolute and normalised without
// touching the file system: the manifest reader resolves relative paths the same way, so a
// fleet and its runs can be moved together. Absolute where no relative path exists.
std::string PathFrom(const std::string& directory, const fs::path& target) {
  fs::path from = fs::absolute(directory).lexically_normal();
  if (from.filename().empty()) from = from.parent_path();  // "dir/" normalises to "dir/"
  const fs::path to = fs::absolute(target).lexically_normal();
  const fs::path relative = to.lexically_relative(from);
  return relative.empty() ? to.string() : relative.string();
}

// `text` as a single-quoted YAML scalar: a path may hold " #" (the rest would be a comment), ": "
// or start with a character YAML reads otherwise ('&', '*', '[', ...).
std::string YamlQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string FleetDescribeParameters(const std::vector<std::string>& names, const std::vector<double>& values) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i ? ";" : "") + names[i] + "=" + FormatDouble(values[i]);
  return text;
}

std::vector<std::pair<std::string, std::string>> ParseQPostures(const std::string& text, const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out =
      SplitNamedItems(text, what, "expected name:coordinate=value,... (e.g. reach:z2=60,z3=-90)");
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[j].first == out[i].first) throw Error(what, out[i].first, "posture given twice");
  if (out.empty()) throw Error(what, "", "expected at least one posture");
  return out;
}

std::vector<FleetPlantedDrift> ParsePlantedDrift(const std::string& text, const std::string& what) {
  std::vector<FleetPlantedDrift> out;
  for (const auto& [robot, factors_text] : SplitNamedItems(
           text, what, "expected robot:parameter=factor,... (e.g. robot_003:k_z2=1.05)")) {
    std::stringstream factors(factors_text);
    std::string assignment;
    while (std::getline(factors, assignment, ',')) {
      const auto eq = assignment.find('=');
      char* end = nullptr;
      const double factor =
          eq == std::string::npos ? 0.0 : std::strtod(assignment.c_str() + eq + 1, &end);
      if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size() || *end != '\0' ||
          !(factor > 0.0) || !std::isfinite(factor))
        throw Error(what, assignment, "expected parameter=factor with a finite factor > 0");
      out.push_back({robot, assignment.substr(0, eq), factor});
    }
  }
  if (out.empty()) throw Error(what, "", "expected at least one robot:parameter=factor");
  return out;
}

std::vector<std::string> GenerateFleet(const FleetGeneratorOptions& o) {
  if (o.robots < 1) throw Error("frfit-make-fleet", "--robots", "expected an integer >= 1");
  if (!(o.perturb >= 0.0) || !std::isfinite(o.perturb))
    throw Error("frfit-make-fleet", "--perturb", "expected a finite value >= 0");
  if (!(o.noise >= 0.0) || !std::isfinite(o.noise))
    throw Error("frfit-make-fleet", "--noise", "expected a finite value >= 0");
  if (o.postures.empty()) throw Error("frfit-make-fleet", "--postures", "expected at least one posture");
  if (o.night < 1) throw Error("frfit-make-fleet", "--night", "expected an integer >= 1");
  const std::vector<double> band = ParseBand(o.band, "--band");
  const Model source_model = LoadModel(o.model);
  for (const FleetPlantedDrift& d : o.drift) {
    if (source_model.FindParameter(d.parameter) < 0)
      throw Error("frfit-make-fleet", "--drift",
                  "model '" + source_model.name + "' has no parameter '" + d.parameter + "'");
    bool known = false;
    for (int i = 0; i < o.robots; ++i) known = known || RobotName(i, o.robots) == d.robot;
    if (!known)
      throw Error("frfit-make-fleet", "--drift", "the fleet has no robot '" + d.robot + "'");
  }
  fs::create_directories(o.out);
  const std::string model_path = (fs::path(o.out) / "model.yaml").string();
  WriteTextFileAtomically(model_path, o.q_postures.empty() ? ReadFileBytes(o.model)
                                                           : ModelWithPostures(o.model, source_model, o.q_postures));
  const Model model = LoadModel(model_path);
  for (const std::string& p : o.postures)
    if (model.FindPosture(p) < 0) {
      std::string known;
      for (const PostureSpec& s : model.postures) known += (known.empty() ? "" : ", ") + s.name;
      throw Error("frfit-make-fleet", "--postures",
                  "model '" + model.name + "' has no posture '" + p + "' (it has: " + known +
                      "; define more with --q-postures)");
    }
  const std::vector<double> base =
      o.params.empty() ? model.InitialParameters() : LoadParameters(o.params, model);
  if (!o.config.empty()) WriteTextFileAtomically((fs::path(o.out) / "fit.yaml").string(), ReadFileBytes(o.config));

  std::vector<std::string> names;
  for (const ParameterSpec& p : model.parameters) names.push_back(p.name);
  std::vector<Posture> postures;
  for (const std::string& p : o.postures) postures.push_back(Linearize(model, p));

  nlohmann::ordered_json truth;
  truth["format"] = "frfit-fleet-truth-1";
  truth["model"] = model.name;
  truth["seed"] = o.seed;
  truth["perturb"] = o.perturb;
  truth["noise"] = o.noise;
  truth["night"] = o.night;
  truth["drift"] = nlohmann::ordered_json::array();
  for (const FleetPlantedDrift& d : o.drift)
    truth["drift"].push_back(
        {{"robot", d.robot}, {"parameter", d.parameter}, {"factor", d.factor}});
  truth["base"] = o.params.empty() ? "initial values of the model" : o.params;
  truth["robots"] = nlohmann::ordered_json::array();
  std::string manifest = "# Written by frfit-make-fleet (seed " + std::to_string(o.seed) +
                         (o.night > 1 ? ", night " + std::to_string(o.night) : std::string()) +
                         ").\n"
                         "format: frfit-fleet-1\nmodel: model.yaml\n";
  if (!o.config.empty()) manifest += "config: fit.yaml\n";
  manifest += "seed: " + std::to_string(o.seed) + "\nrobots:\n";
  const double log_span = std::log1p(o.perturb);
  std::vector<std::string> robots;
  for (int i = 0; i < o.robots; ++i) {
    const std::string name = RobotName(i, o.robots);
    robots.push_back(name);
    Rng rng(SplitMix64(o.seed ^ SplitMix64(0xF1EE7DA7AULL + static_cast<std::uint64_t>(i))));
    std::vector<double> values(base.size());
    for (size_t k = 0; k < base.size(); ++k) {
      const double factor = std::exp((2.0 * rng.Uniform() - 1.0) * log_span);
      const Bounds& b = model.parameters[k].bounds;
      values[k] = std::min(std::max(base[k] * factor, b.min), b.max);
    }
    for (const FleetPlantedDrift& d : o.drift) {
      if (d.robot != name) continue;
      const int k = model.FindParameter(d.parameter);
      const Bounds& b = model.parameters[k].bounds;
      values[k] = std::min(std::max(values[k] * d.factor, b.min), b.max);
    }
    // Night 1's noise continues the parameters' stream (the fleets generated before nights
    // existed); a later night's has a stream of its own.
    if (o.night > 1)
      rng = Rng(SplitMix64(o.seed ^
                           SplitMix64(0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(o.night) +
                                      static_cast<std::uint64_t>(i))));
    const std::string described = FleetDescribeParameters(names, values);
    fs::create_directories(fs::path(o.out) / name);
    nlohmann::ordered_json robot;
    robot["name"] = name;
    nlohmann::ordered_json params;
    for (size_t k = 0; k < names.size(); ++k) params[names[k]] = values[k];
    robot["parameters"] = params;
    manifest += "  - name: " + name + "\n    frf: [";
    for (size_t p = 0; p < postures.size(); ++p) {
      // At the posture's coordinates, so models with posture-dependent stiffness work too.
      const JointCoefficients coefficients = Coefficients(model, values, postures[p].q);
      FrfSet set = Synthesize(postures[p], coefficients, band, o.format);
      const double scale = o.noise / std::sqrt(2.0);
      for (std::complex<double>& h : set.H) {
        const double re = rng.Normal(), im = rng.Normal();
        h += std::abs(h) * scale * std::complex<double>(re, im);
      }
      set.provenance = {{"generator", std::string("frfit-make-fleet ") + FRFIT_VERSION},
                        {"model", model.name},
                        {"model_file", model_path},
                        {"parameters", described},
                        {"noise_relative", FormatDouble(o.noise)},
                        {"perturb_relative", FormatDouble(o.perturb)},
                        {"fleet_seed", std::to_string(o.seed)},
                        {"robot", name}};
      if (o.night > 1) set.provenance.emplace_back("night", std::to_string(o.night));
      const std::string file = name + "/frf_" + o.postures[p] + ".h5";
      WriteFrfSet((fs::path(o.out) / file).string(), set);
      manifest += (p ? ", " : "") + file;
      nlohmann::ordered_json modes = nlohmann::ordered_json::array();
      for (const Mode& m : ComputeModes(postures[p], coefficients))
        if (m.frequency_hz <= band.back())
          modes.push_back({{"frequency_hz", m.frequency_hz}, {"damping_ratio", m.damping_ratio}});
      robot["postures"][o.postures[p]] = {{"frf", file}, {"modes", modes}};
    }
    manifest += "]\n";
    if (!o.previous_run.empty())
      manifest +=
          "    previous: " +
          YamlQuoted(PathFrom(o.out, fs::path(o.previous_run) / (name + ".h5"))) + "\n";
    truth["robots"].push_back(robot);
  }
  WriteTextFileAtomically((fs::path(o.out) / "truth.json").string(), truth.dump(2) + "\n");
  WriteTextFileAtomically((fs::path(o.out) / "fleet.yaml").string(), manifest);
  return robots;
}

}  // namespace frfit
