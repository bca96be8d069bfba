// frfit map: the identified model's modes and tool-tip stiffness over a grid of postures, with
// their 1σ from the fit's covariance (predict/posture_map.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/io/map_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/model/model_yaml.h"
#include "frfit/predict/cut_config.h"
#include "frfit/predict/posture_map.h"
#include "frfit/results/fit_result.h"

namespace frfit::cli {
namespace {

nlohmann::ordered_json PointJson(const std::vector<GridAxis>& axes, size_t index, const MapPoint& p,
                                 bool with_cut) {
  nlohmann::ordered_json q, modes = nlohmann::ordered_json::array();
  const std::vector<double> values = GridValues(axes, index);
  for (size_t a = 0; a < axes.size(); ++a) q[axes[a].coordinate] = values[a];
  for (const MapMode& m : p.modes)
    modes.push_back({{"frequency_hz", m.frequency_hz},
                     {"frequency_hz_std", JsonNumber(m.frequency_sigma_hz)},
                     {"damping_ratio", m.damping_ratio},
                     {"damping_ratio_std", JsonNumber(m.damping_ratio_sigma)},
                     {"dominant_dofs", m.dominant_dofs}});
  const ToolTipStiffness& s = p.stiffness;
  nlohmann::ordered_json axis_std = nlohmann::ordered_json::array();
  for (double v : s.axis_sigma_n_per_m) axis_std.push_back(JsonNumber(v));
  nlohmann::ordered_json point = {{"q", q},
                                  {"modes", modes},
                                  {"stiffness",
                                   {{"axis_n_per_m", s.axis_n_per_m},
                                    {"axis_n_per_m_std", axis_std},
                                    {"axis_at_hz", s.axis_at_hz},
                                    {"least_n_per_m", s.least_n_per_m},
                                    {"least_at_hz", s.least_at_hz},
                                    {"least_direction", s.least_direction}}}};
  // +inf (no lobe in the speed range) has no JSON number: null, as elsewhere.
  if (with_cut)
    point["stability"] = {{"critical_depth_m", JsonNumber(p.stability.critical_depth_m)},
                          {"critical_spindle_speed_rpm", JsonNumber(p.stability.critical_spindle_speed_rpm)},
                          {"absolute_critical_depth_m", JsonNumber(p.stability.absolute_critical_depth_m)}};
  return point;
}

// The text summary: the grid, and where the tool tip is least and most stiff.
void PrintSummary(const std::vector<GridAxis>& axes,
                  const std::vector<MapPoint>& points, double seconds) {
  size_t weakest = 0, stiffest = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].stiffness.least_n_per_m < points[weakest].stiffness.least_n_per_m) weakest = i;
    if (points[i].stiffness.least_n_per_m > points[stiffest].stiffness.least_n_per_m) stiffest = i;
  }
  auto where = [&](size_t i) {
    std::string text;
    const std::vector<double> values = GridValues(axes, i);
    for (size_t a = 0; a < axes.size(); ++a) {
      char value[32];  // 6 digits: -40.1, not the -40.099999999999994 that -160 + 109 × 1.1 is
      std::snprintf(value, sizeof value, "%.6g", values[a]);
      text += (text.empty() ? "" : ", ") + axes[a].coordinate + "=" + value;
    }
    return text;
  };
  std::printf("%zu postures in %.2f s\n", points.size(), seconds);
  size_t shallowest = 0;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].stability.critical_depth_m < points[shallowest].stability.critical_depth_m) shallowest = i;
  if (std::isfinite(points[shallowest].stability.critical_depth_m))
    std::printf("  the cut chatters first at %s: critical depth %.4g mm at %.0f rpm\n", where(shallowest).c_str(),
                1e3 * points[shallowest].stability.critical_depth_m,
                points[shallowest].stability.critical_spindle_speed_rpm);
  for (const auto& [label, i] : {std::pair<const char*, size_t>{"least stiff", weakest},
                                 std::pair<const char*, size_t>{"most stiff ", stiffest}}) {
    const ToolTipStiffness& s = points[i].stiffness;
    std::printf("  %s at %s: %.4g N/m at %.2f Hz along (%.2f, %.2f, %.2f)\n", label, where(i).c_str(),
                s.least_n_per_m, s.least_at_hz, s.least_direction[0], s.least_direction[1],
                s.least_direction[2]);
  }
}

// The postures a fit result was fitted at that the model names (a set's group is named after
// its posture, or posture:response:excitation with @posture), with the swept coordinates' values
// in file units: the report marks them on the map.
void AddMeasuredPostures(const ModelContext& ctx, const std::vector<GridAxis>& axes,
                         PostureMapFile* map) {
  const std::string& source = ctx.parameters_source;
  if (source.size() < 3 || source.compare(source.size() - 3, 3, ".h5") != 0) return;
  for (const PostureResult& set : ReadFitResult(source).postures) {
    const std::string& name = set.measured.posture;
    if (std::find(map->measured_postures.begin(), map->measured_postures.end(), name) !=
        map->measured_postures.end())
      continue;
    for (const PostureSpec& spec : ctx.model.postures) {
      if (spec.name != name) continue;
      std::vector<double> values;
      for (const GridAxis& a : axes)
        values.push_back(CoordinateToFileUnits(ctx.model, a.index, spec.q[a.index]));
      map->measured_postures.push_back(name);
      map->measured_grid.push_back(values);
    }
  }
}

// What the map's 1σ cannot be read as: scaled (the fit's noise model overestimates the noise),
// or resting on parameters at a bound.
std::vector<std::string> SigmaNotes(const Identifiability& id) {
  std::vector<std::string> notes;
  for (const std::string& note : {SigmaNote(id), AtBoundNote(id)})
    if (!note.empty()) notes.push_back(note);
  return notes;
}

}  // namespace

int RunMap(int argc, char** argv) {
  const Args args("map", argc, argv,
                  {"model", "posture", "q", "params", "grid", "max-hz", "out", "threads", "cut"},
                  {"json", "progress"});
  const std::string cmd = "frfit map";
  if (!args.Has("grid")) throw Error(cmd, "--grid", "missing (e.g. --grid 'z2=30:120:1,z3=-160:-40:2')");
  const ModelContext ctx = LoadModelContext(args);
  MapOptions options;
  options.max_hz = args.GetDouble("max-hz", 100.0);
  if (!(options.max_hz > 0.0)) throw Error(cmd, "--max-hz", "expected a frequency > 0 Hz");
  options.threads = args.GetThreads();
  if (options.threads == 0) options.threads = std::max(1u, std::thread::hardware_concurrency());
  // Ten million postures take hours and a few GB of results: more is a typo in a step.
  const std::vector<GridAxis> axes = ParseGrid(args.Get("grid"), ctx.model, "--grid", 10000000);
  CutConfig cut;
  if (args.Has("cut")) {
    cut = LoadCutConfig(args.Get("cut"));
    options.cut = &cut;
  }
  const std::string out = args.Get("out", "");
  if (!out.empty()) {
    std::vector<std::string> inputs = ctx.model.files;
    inputs.push_back(args.Get("params", ""));
    inputs.push_back(args.Get("cut", ""));
    RequireNotAnInput(cmd, "--out", out, inputs);
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::vector<double>> postures = GridPostures(ctx.model, ctx.q, axes);
  ProgressMeter meter(cmd, "postures", ProgressWanted(args));
  meter.Start(postures.size());
  options.progress = meter.Callback();
  const std::vector<MapPoint> points =
      ComputePostureMap(ctx.model, ctx.parameters, ctx.identifiability, postures, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!out.empty()) {
    PostureMapFile map{ctx.model.name, ctx.model.source, ctx.parameters_source, ctx.posture_name,
                       options.max_hz, axes, points, options.cut ? cut.source : "", {}, {}};
    AddMeasuredPostures(ctx, axes, &map);
    WritePostureMap(out, ctx.model, map);
  }
  if (args.Flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = ctx.model.name;
    j["base_posture"] = ctx.posture_name;
    j["parameters_source"] = ctx.parameters_source;
    j["max_hz"] = options.max_hz;
    j["sigma"] = ctx.identifiability.per_parameter.empty() ? "none (parameters without a covariance)"
                                                          : "linearised from the fit's covariance";
    if (!SigmaNotes(ctx.identifiability).empty()) j["sigma_notes"] = SigmaNotes(ctx.identifiability);
    j["points"] = nlohmann::ordered_json::array();
    if (options.cut) j["cut"] = cut.source;
    for (size_t i = 0; i < points.size(); ++i)
      j["points"].push_back(PointJson(axes, i, points[i], options.cut != nullptr));
    j["wall_seconds"] = seconds;
    if (!out.empty()) j["out"] = out;
    std::printf("%s\n", j.dump().c_str());
  } else {
    PrintSummary(axes, points, seconds);
    for (const std::string& note : SigmaNotes(ctx.identifiability))
      std::printf("  1 sigma: %s\n", note.c_str());
  }
  if (!out.empty()) std::fprintf(stderr, "wrote %s: %zu postures\n", out.c_str(), points.size());
  return 0;
}

}  // namespace frfit::cli
