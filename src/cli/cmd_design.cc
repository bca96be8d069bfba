// frfit design: ranks candidate postures by how much measuring them would add to a fit
// (fit/posture_design.h, docs/identifiability.md).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_result.h"
#include "frfit/fit/identifiability_io.h"
#include "frfit/fit/posture_design.h"
#include "frfit/fleet/fleet_generator.h"
#include "frfit/model/model_yaml.h"
#include "frfit/report/report_data.h"

namespace frfit::cli {
namespace {

// The fit's problem as its result file keeps it: each posture's prepared FRFs and weights.
Problem ProblemFromResult(const ReportData& data, std::shared_ptr<const Model> model,
                          const FitOptions& options) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (const ReportPosture& rp : data.postures) {
    if (model->FindPosture(rp.posture) < 0)
      throw Error(data.result_file, "/postures/" + rp.name,
                  "posture '" + rp.posture + "' is not in model '" + model->name + "'");
    ProblemPosture pp;
    pp.posture = Linearize(*model, rp.posture);
    pp.source = rp.frf_file;
    pp.measured.posture = rp.posture;
    pp.measured.response_frame = rp.response_frame;
    pp.measured.excitation_frame = rp.excitation_frame;
    if (!FromString(rp.format, &pp.measured.format))
      throw Error(data.result_file, "/postures/" + rp.name + "@format",
                  "unknown format '" + rp.format + "'");
    pp.measured.frequency_hz = rp.frequency_hz;
    pp.measured.H = rp.measured;
    pp.measured.present = rp.present;
    pp.weights = rp.weights;
    const auto weight = options.posture_weights.find(rp.posture);
    pp.posture_weight = weight == options.posture_weights.end() ? 1.0 : weight->second;
    SetMeasurementPoints(*model, data.result_file + " /postures/" + rp.name, &pp);
    problem.postures.push_back(std::move(pp));
  }
  return problem;
}

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

// The parameter with the largest 1σ (the one a new posture matters most for).
const ParameterIdentifiability& Weakest(const Identifiability& id) {
  size_t worst = 0;
  for (size_t j = 1; j < id.per_parameter.size(); ++j)
    if (id.per_parameter[j].std_relative > id.per_parameter[worst].std_relative) worst = j;
  return id.per_parameter[worst];
}

}  // namespace

int RunDesign(int argc, char** argv) {
  const Args args("design", argc, argv, {"model", "result", "candidates", "q-candidates"},
                  {"json"});
  auto model = std::make_shared<const Model>(LoadModel(args.Get("model")));
  const std::string result_path = args.Get("result");
  const ReportData data = ReadReportData(result_path);
  if (data.model != model->name)
    throw Error(result_path, "@model",
                "the result is of model '" + data.model + "', --model is '" + model->name + "'");
  const FitOptions options =
      ParseFitOptionsText(data.settings_yaml, result_path + " (settings_yaml)");
  const ParameterMap map(*model, options.parameters, result_path + " (settings_yaml)");
  const Problem problem = ProblemFromResult(data, model, options);
  const std::vector<double> u = map.ToU(ParametersFromResult(result_path, *model));

  std::set<std::string> fitted;
  for (const ProblemPosture& pp : problem.postures) fitted.insert(pp.posture.name);
  std::vector<PostureSpec> candidates;
  if (args.Has("candidates")) {
    std::stringstream list(args.Get("candidates"));
    for (std::string name; std::getline(list, name, ',');) {
      if (name.empty())
        throw Error("frfit design", "--candidates", "expected posture names separated by commas");
      candidates.push_back({name, model->posture(name).q});
    }
  }
  if (args.Has("q-candidates"))
    for (const auto& [name, assignments] :
         ParseQPostures(args.Get("q-candidates"), "--q-candidates"))
      candidates.push_back(
          {name, ParseCoordinateAssignments(assignments, *model,
                                            std::vector<double>(model->num_coordinates(), 0.0),
                                            "--q-candidates " + name)});
  if (!args.Has("candidates") && !args.Has("q-candidates"))
    for (const PostureSpec& spec : model->postures)
      if (!fitted.count(spec.name)) candidates.push_back(spec);
  if (candidates.empty())
    throw Error("frfit design", "--candidates",
                "no candidate posture: the model has none the fit does not already use (give "
                "--candidates or "
                "--q-candidates)");

  const PostureDesign design = RankCandidatePostures(problem, map, u, candidates);
  if (args.Flag("json")) {
    nlohmann::ordered_json j;
    j["result"] = result_path;
    j["criterion"] = "D-optimal: gain in log det of JtWJ (relative parameters), nats";
    j["nats_to_halve_every_sigma"] = NatsToHalveEverySigma(map.dim());
    j["current"] = IdentifiabilityToJson(design.current);
    nlohmann::json ranked = nlohmann::json::array();
    for (const CandidateRanking& c : design.candidates) {
      nlohmann::ordered_json std_relative;
      for (const ParameterIdentifiability& q : c.predicted.per_parameter)
        std_relative[q.name] = q.std_relative;
      ranked.push_back({{"posture", c.posture.name},
                        {"coordinates", Coordinates(*model, c.posture.q)},
                        {"log_det_gain", c.log_det_gain},
                        {"condition_number", std::isfinite(c.predicted.condition_number)
                                                 ? nlohmann::json(c.predicted.condition_number)
                                                 : nlohmann::json(nullptr)},
                        {"std_relative", std_relative}});
    }
    j["candidates"] = ranked;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  const ParameterIdentifiability& weakest = Weakest(design.current);
  std::printf(
      "candidate postures for the fit in %s, ranked by the information their FRFs would add\n"
      "(D-optimal: gain in log det JᵀWJ over relative parameters, in nats;\n"
      " a gain of %.1f nats = 2p·ln 2 for p = %d halves every 1σ on average)\n\n",
      result_path.c_str(), NatsToHalveEverySigma(map.dim()), map.dim());
  std::printf("  now: condition number %.3g, largest 1σ %s %.3g %%\n\n",
              design.current.condition_number, weakest.name.c_str(), 100 * weakest.std_relative);
  std::printf(
      "  rank  posture           gain [nats]  condition  largest 1σ with it      coordinates\n");
  int rank = 0;
  for (const CandidateRanking& c : design.candidates) {
    const ParameterIdentifiability& w = Weakest(c.predicted);
    char largest[64];
    std::snprintf(largest, sizeof largest, "%s %.3g %%", w.name.c_str(), 100 * w.std_relative);
    std::printf("  %4d  %-16s %12.2f %10.3g  %-22s  %s\n", ++rank, c.posture.name.c_str(),
                c.log_det_gain, c.predicted.condition_number, largest,
                Coordinates(*model, c.posture.q).c_str());
  }
  return 0;
}

}  // namespace frfit::cli
