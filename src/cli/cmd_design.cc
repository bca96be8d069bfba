// frfit design: ranks candidate postures and measurement points by how much measuring them would
// add to a fit (fit/posture_design.h, docs/identifiability.md).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/deflection/static_tests.h"
#include "frfit/results/posture_design.h"
#include "frfit/fleet/fleet_generator.h"
#include "frfit/model/model_yaml.h"
#include "frfit/report/result_problem.h"

namespace frfit::cli {
namespace {

std::string Coordinates(const Model& model, const std::vector<double>& q) {
  std::string text;
  for (int k = 0; k < model.num_coordinates(); ++k) {
    const std::string name =
        k < model.num_dofs() ? model.dofs[k].name : model.rigid_coordinates[k - model.num_dofs()];
    const double value = CoordinateToFileUnits(model, k, q[k]);
    if (value == 0.0) continue;
    char number[32];
    std::snprintf(number, sizeof number, "%g", value);
    text += (text.empty() ? "" : ",") + name + "=" + number;
  }
  return text.empty() ? "all 0" : text;
}

// "R:E,R:E,...": pairs of response and excitation frames; an empty side is the sensor.
std::vector<std::pair<std::string, std::string>> ParsePointPairs(const std::string& text,
                                                                 const Model& model) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::stringstream list(text);
  for (std::string pair; std::getline(list, pair, ',');) {
    const size_t colon = pair.find(':');
    if (pair.empty() || colon == std::string::npos || pair.find(':', colon + 1) != std::string::npos)
      throw Error("frfit design", "--points",
                  "expected RESPONSE:EXCITATION frame pairs separated by commas (e.g. "
                  "joint3:sensor,sensor:tool_side), got '" + pair + "'");
    pairs.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
    for (const std::string& frame : {pairs.back().first, pairs.back().second})
      if (!frame.empty() && model.FindFrame(frame) < 0)
        throw Error("frfit design", "--points",
                    "model '" + model.name + "' has no frame '" + frame + "'");
  }
  return pairs;
}

// "P:F:D,...": static load cases, each a force of `force_n` N along x, y and z of frame F at
// posture P with the displacement measured in frame D, σ `std_m` per component (an empty frame
// is the sensor).
std::vector<DesignCandidate> ParseStaticLoads(const std::string& text, const Model& model,
                                              double force_n, double std_m) {
  std::vector<DesignCandidate> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    std::vector<std::string> parts;
    std::stringstream fields(item);
    for (std::string part; std::getline(fields, part, ':');) parts.push_back(part);
    if (!item.empty() && item.back() == ':') parts.push_back("");
    if (parts.size() != 3 || parts[0].empty())
      throw Error("frfit design", "--static-loads",
                  "expected POSTURE:FORCE_FRAME:DISPLACEMENT_FRAME load cases separated by commas "
                  "(e.g. milling:sensor:sensor; an empty frame is the sensor), got '" + item + "'");
    for (const std::string& frame : {parts[1], parts[2]})
      if (!frame.empty() && model.FindFrame(frame) < 0)
        throw Error("frfit design", "--static-loads",
                    "model '" + model.name + "' has no frame '" + frame + "'");
    DesignCandidate load{model.posture(parts[0]), "", "", {}};
    for (int axis = 0; axis < 3; ++axis) {
      StaticTest test;
      test.posture = parts[0];
      test.force_frame = parts[1];
      test.displacement_frame = parts[2];
      test.force_n = force_n * Eigen::Vector3d::Unit(axis);
      test.displacement_m.setZero();  // the fitted model's, set by the design
      test.std_m.setConstant(std_m);
      load.static_tests.push_back(test);
    }
    out.push_back(std::move(load));
  }
  return out;
}

// A candidate's name in the table: its set (posture:response:excitation) or its load case.
std::string CandidateName(const CandidateRanking& c) {
  if (c.static_tests.empty()) return SetName(c.posture.name, c.response_frame, c.excitation_frame);
  const StaticTest& t = c.static_tests.front();
  char force[32];
  std::snprintf(force, sizeof force, "%g", t.force_n.norm());
  return "static " + c.posture.name + ":" + (t.force_frame.empty() ? "sensor" : t.force_frame) +
         ":" + (t.displacement_frame.empty() ? "sensor" : t.displacement_frame) + " (" + force +
         " N)";
}

// The parameter with the largest 1σ (the one a new posture matters most for).
const ParameterIdentifiability& Weakest(const Identifiability& id) {
  size_t worst = 0;
  for (size_t j = 1; j < id.per_parameter.size(); ++j)
    if (id.per_parameter[j].std_relative > id.per_parameter[worst].std_relative) worst = j;
  return id.per_parameter[worst];
}

}  // namespace

// Every candidate the options name: postures (--candidates, --q-candidates, else the model's
// postures the fit does not use), pairs of points at every fitted posture (--points) and static
// load cases (--static-loads).
std::vector<DesignCandidate> GatherCandidates(const Args& args, const Model& model,
                                              const Problem& problem) {
  std::set<std::string> fitted;
  for (const ProblemPosture& pp : problem.postures) fitted.insert(pp.posture.name);
  std::vector<PostureSpec> candidates;
  if (args.Has("candidates")) {
    std::stringstream list(args.Get("candidates"));
    for (std::string name; std::getline(list, name, ',');) {
      if (name.empty())
        throw Error("frfit design", "--candidates", "expected posture names separated by commas");
      candidates.push_back({name, model.posture(name).q});
    }
  }
  // Coordinates a candidate does not name keep the base posture's, as with --q everywhere: the
  // model posture --posture names, else the fit's first posture.
  const std::vector<double> base =
      args.Has("posture") ? model.posture(args.Get("posture")).q : problem.postures.front().posture.q;
  if (args.Has("posture") && !args.Has("q-candidates"))
    throw Error("frfit design", "--posture", "only applies with --q-candidates (their base posture)");
  if (args.Has("q-candidates"))
    for (const auto& [name, assignments] :
         ParseQPostures(args.Get("q-candidates"), "--q-candidates"))
      candidates.push_back(
          {name, ParseCoordinateAssignments(assignments, model, base, "--q-candidates " + name)});
  // --points and --static-loads alone rank only themselves, not the model's other postures.
  const bool others_only = (args.Has("points") || args.Has("static-loads")) &&
                           !args.Has("candidates") && !args.Has("q-candidates");
  if (!args.Has("candidates") && !args.Has("q-candidates") && !others_only)
    for (const PostureSpec& spec : model.postures)
      if (!fitted.count(spec.name)) candidates.push_back(spec);
  std::vector<DesignCandidate> sets;
  for (const PostureSpec& spec : candidates) sets.push_back({spec, "", "", {}});
  // --points: each pair of points at every fitted posture.
  if (args.Has("points"))
    for (const auto& [response, excitation] : ParsePointPairs(args.Get("points"), model))
      for (const std::string& name : fitted)
        sets.push_back({model.posture(name), response, excitation, {}});
  if (args.Has("static-loads")) {
    const double force = args.GetDouble("static-force", 1000.0);
    const double std_m = args.GetDouble("static-std", 1e-6);
    if (!(force > 0.0) || !std::isfinite(force))
      throw Error("frfit design", "--static-force", "expected a positive force in N");
    if (!(std_m > 0.0) || !std::isfinite(std_m))
      throw Error("frfit design", "--static-std", "expected a positive standard deviation in m");
    for (DesignCandidate& load : ParseStaticLoads(args.Get("static-loads"), model, force, std_m))
      sets.push_back(std::move(load));
  }
  if (sets.empty())
    throw Error("frfit design", "--candidates",
                "no candidate posture: the model has none the fit does not already use (give "
                "--candidates, --q-candidates, --points or --static-loads)");
  return sets;
}

// The ranking as one JSON object on stdout.
void PrintDesignJson(const std::string& result_path, const Model& model, const ParameterMap& map,
                     const PostureDesign& design, const std::string& target_name) {
  nlohmann::ordered_json j;
  j["result"] = result_path;
  j["criterion"] = !target_name.empty()
                       ? "the predicted 1 sigma of " + target_name
                       : "D-optimal: gain in log det of JtWJ (relative parameters), nats";
  j["nats_to_halve_every_sigma"] = NatsToHalveEverySigma(map.dim());
  j["current"] = IdentifiabilityToJson(design.current);
  if (!SigmaNote(design.current).empty()) j["sigma_note"] = SigmaNote(design.current);
  nlohmann::json ranked = nlohmann::json::array();
  for (const CandidateRanking& c : design.candidates) {
    nlohmann::ordered_json std_relative;
    for (const ParameterIdentifiability& q : c.predicted.per_parameter)
      std_relative[q.name] = q.std_relative;
    nlohmann::ordered_json load = nullptr;
    if (!c.static_tests.empty()) {
      const StaticTest& t = c.static_tests.front();
      load = {{"force_frame", t.force_frame},
              {"displacement_frame", t.displacement_frame},
              {"force_n", t.force_n.norm()},
              {"axes", "x, y, z of the force frame, one test each"},
              {"std_m", t.std_m(0)}};
    }
    ranked.push_back({{"set", CandidateName(c)},
                      {"posture", c.posture.name},
                      {"response_frame", c.response_frame},
                      {"excitation_frame", c.excitation_frame},
                      {"static_load", load},
                      {"coordinates", Coordinates(model, c.posture.q)},
                      {"log_det_gain", c.log_det_gain},
                      {"condition_number", std::isfinite(c.predicted.condition_number)
                                               ? nlohmann::json(c.predicted.condition_number)
                                               : nlohmann::json(nullptr)},
                      {"std_relative", std_relative}});
  }
  j["candidates"] = ranked;
  std::printf("%s\n", j.dump().c_str());
}

int RunDesign(int argc, char** argv) {
  const Args args("design", argc, argv,
                  {"model", "result", "candidates", "q-candidates", "posture", "points", "target",
                   "static-loads", "static-force", "static-std"},
                  {"json", "progress"});
  auto model = std::make_shared<const Model>(LoadModel(args.Get("model")));
  const std::string result_path = args.Get("result");
  const FitResult data = ReadFitResult(result_path);
  if (data.model_name != model->name)
    throw Error(result_path, "@model",
                "the result is of model '" + data.model_name + "', --model is '" + model->name + "'");
  const FitOptions options =
      ParseFitOptionsText(data.settings_yaml, result_path + " (settings_yaml)");
  const ParameterMap map(*model, options.parameters, result_path + " (settings_yaml)");
  const Problem problem = ProblemFromResult(data, model, options);
  const std::vector<double> u = map.ToU(ParametersFromResult(data, *model, result_path));

  const std::vector<DesignCandidate> sets = GatherCandidates(args, *model, problem);
  ProgressMeter meter("frfit design", "candidates", ProgressWanted(args));
  meter.Start(sets.size());
  PostureDesign design = RankCandidates(problem, map, u, sets, meter.Callback());
  // --target: the candidates that pin one parameter best first (its predicted 1σ), instead of
  // the D-optimal gain over all of them.
  int target = -1;
  if (args.Has("target")) {
    const std::string name = args.Get("target");
    for (size_t j = 0; j < design.current.per_parameter.size(); ++j)
      if (design.current.per_parameter[j].name == name) target = static_cast<int>(j);
    if (target < 0)
      throw Error("frfit design", "--target",
                  "'" + name + "' is not a fitted parameter of this result");
    std::stable_sort(design.candidates.begin(), design.candidates.end(),
                     [target](const CandidateRanking& a, const CandidateRanking& b) {
                       return a.predicted.per_parameter[target].std_relative <
                              b.predicted.per_parameter[target].std_relative;
                     });
  }
  if (args.Flag("json")) {
    PrintDesignJson(result_path, *model, map, design, target >= 0 ? args.Get("target") : "");
    return 0;
  }
  // The parameter each row shows: the target, else the one with the largest 1σ.
  const auto shown = [target](const Identifiability& id) -> const ParameterIdentifiability& {
    return target >= 0 ? id.per_parameter[target] : Weakest(id);
  };
  const ParameterIdentifiability& weakest = shown(design.current);
  std::printf(
      "candidate postures, points and load cases for the fit in %s, ranked by %s\n"
      "(D-optimal: gain in log det JᵀWJ over relative parameters, in nats;\n"
      " a gain of %.1f nats = 2p·ln 2 for p = %d halves every 1σ on average)\n\n",
      result_path.c_str(),
      target >= 0 ? ("the 1σ of " + weakest.name + " with their data").c_str()
                  : "the information their FRFs or deflections would add",
      NatsToHalveEverySigma(map.dim()), map.dim());
  std::printf("  now: condition number %.3g, %s 1σ %s %.3g %%\n\n",
              design.current.condition_number, target >= 0 ? "target" : "largest",
              weakest.name.c_str(), 100 * weakest.std_relative);
  if (!SigmaNote(design.current).empty())
    std::printf("  (%s)\n\n", SigmaNote(design.current).c_str());
  std::printf(
      "  rank  set (posture[:response:excitation])       gain [nats]  condition  %s 1σ with it"
      "      coordinates\n",
      target >= 0 ? " target" : "largest");
  int rank = 0;
  for (const CandidateRanking& c : design.candidates) {
    const ParameterIdentifiability& w = shown(c.predicted);
    char largest[64];
    std::snprintf(largest, sizeof largest, "%s %.3g %%", w.name.c_str(), 100 * w.std_relative);
    const std::string set = CandidateName(c);
    std::printf("  %4d  %-42s %12.2f %10.3g  %-22s  %s\n", ++rank, set.c_str(),
                c.log_det_gain, c.predicted.condition_number, largest,
                Coordinates(*model, c.posture.q).c_str());
  }
  return 0;
}

}  // namespace frfit::cli
