#include "frfit/fit/fit_options.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/fit/constraints.h"
#include "frfit/frf/frf_set.h"
#include "frfit/files/yaml_reader.h"

namespace frfit {
namespace {

std::array<bool, 9> ParseEntries(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  r.RequireSequence(node, path);
  std::array<bool, 9> entries{};
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string name = r.String(node[i], JoinPath(path, i));
    const int e = ParseEntryName(name);
    if (e < 0) r.Fail(node[i], JoinPath(path, i), "expected an entry name xx, xy, ... zz, got '" + name + "'");
    entries[e] = true;
  }
  return entries;
}

void ParseWeights(const YamlReader& r, const YAML::Node& node, const std::string& path,
                  WeightOptions* w) {
  r.RequireMap(node, path,
               {"mode", "peak_gain", "base_gain", "peak_halfwidth_lines", "min_prominence_db",
                "peak_floor_db", "peaks_per_entry", "peak_frequencies_hz", "bands", "ema_peaks",
                "search_peak_gain"});
  if (r.Has(node, "mode")) {
    const std::string mode = r.String(node["mode"], JoinPath(path, "mode"));
    if (!FromString(mode, &w->mode))
      r.Fail(node["mode"], JoinPath(path, "mode"),
             "expected noise, peaks, uniform or bands, got '" + mode + "'");
  }
  if (r.Has(node, "peak_gain")) w->peak_gain = r.Number(node["peak_gain"], JoinPath(path, "peak_gain"));
  if (r.Has(node, "base_gain")) w->base_gain = r.Number(node["base_gain"], JoinPath(path, "base_gain"));
  if (r.Has(node, "peak_halfwidth_lines"))
    w->peak_halfwidth_lines = r.Integer(node["peak_halfwidth_lines"], JoinPath(path, "peak_halfwidth_lines"));
  if (r.Has(node, "min_prominence_db"))
    w->min_prominence_db = r.Number(node["min_prominence_db"], JoinPath(path, "min_prominence_db"));
  if (r.Has(node, "peak_floor_db"))
    w->peak_floor_db = r.Number(node["peak_floor_db"], JoinPath(path, "peak_floor_db"));
  if (r.Has(node, "peaks_per_entry"))
    w->peaks_per_entry = r.Boolean(node["peaks_per_entry"], JoinPath(path, "peaks_per_entry"));
  if (r.Has(node, "peak_frequencies_hz"))
    w->peak_frequencies_hz = r.Numbers(node["peak_frequencies_hz"], JoinPath(path, "peak_frequencies_hz"));
  if (r.Has(node, "ema_peaks")) w->ema_peaks = r.Boolean(node["ema_peaks"], JoinPath(path, "ema_peaks"));
  if (r.Has(node, "search_peak_gain"))
    w->search_peak_gain = r.Number(node["search_peak_gain"], JoinPath(path, "search_peak_gain"));
  if (r.Has(node, "bands")) {
    const YAML::Node bands = node["bands"];
    const std::string bpath = JoinPath(path, "bands");
    r.RequireSequence(bands, bpath);
    for (size_t b = 0; b < bands.size(); ++b) {
      const std::string p = JoinPath(bpath, b);
      r.RequireMap(bands[b], p, {"from_hz", "to_hz", "gain", "entries"});
      WeightBand band;
      band.from_hz = r.Number(r.Child(bands[b], "from_hz", p), JoinPath(p, "from_hz"));
      band.to_hz = r.Number(r.Child(bands[b], "to_hz", p), JoinPath(p, "to_hz"));
      band.gain = r.Number(r.Child(bands[b], "gain", p), JoinPath(p, "gain"));
      if (r.Has(bands[b], "entries")) band.entries = ParseEntries(r, bands[b]["entries"], JoinPath(p, "entries"));
      w->bands.push_back(band);
    }
  }
}

void ParseCost(const YamlReader& r, const YAML::Node& node, CostOptions* c) {
  const std::string path = "cost";
  r.RequireMap(node, path, {"type", "phase", "fit_format", "band_hz", "entries", "symmetrize",
                            "drop_bad_lines", "weights", "noise", "loss"});
  if (r.Has(node, "type")) {
    const std::string t = r.String(node["type"], "cost.type");
    if (!FromString(t, &c->type))
      r.Fail(node["type"], "cost.type", "expected log_complex, log_magnitude or normalized_complex, got '" + t + "'");
  }
  if (r.Has(node, "phase")) {
    const std::string t = r.String(node["phase"], "cost.phase");
    if (!FromString(t, &c->phase))
      r.Fail(node["phase"], "cost.phase", "expected wrapped or principal_logs, got '" + t + "'");
  }
  if (r.Has(node, "fit_format")) {
    const std::string t = r.String(node["fit_format"], "cost.fit_format");
    if (!FromString(t, &c->fit_format))
      r.Fail(node["fit_format"], "cost.fit_format", "expected receptance, mobility or inertance, got '" + t + "'");
  }
  if (r.Has(node, "band_hz")) {
    const std::vector<double> band = r.Numbers(node["band_hz"], "cost.band_hz");
    if (band.size() != 2) r.Fail(node["band_hz"], "cost.band_hz", "expected [min_hz, max_hz]");
    c->band_min_hz = band[0];
    c->band_max_hz = band[1];
  }
  if (r.Has(node, "entries")) c->entries = ParseEntries(r, node["entries"], "cost.entries");
  if (r.Has(node, "symmetrize")) {
    const std::string t = r.String(node["symmetrize"], "cost.symmetrize");
    if (!FromString(t, &c->symmetrization))
      r.Fail(node["symmetrize"], "cost.symmetrize",
             "expected none, mirror_upper, mirror_lower or average, got '" + t + "'");
  }
  if (r.Has(node, "drop_bad_lines")) c->drop_bad_lines = r.Boolean(node["drop_bad_lines"], "cost.drop_bad_lines");
  if (r.Has(node, "weights")) ParseWeights(r, node["weights"], "cost.weights", &c->weights);
  if (r.Has(node, "loss")) {
    r.RequireMap(node["loss"], "cost.loss", {"type", "scale"});
    if (r.Has(node["loss"], "type")) {
      const std::string t = r.String(node["loss"]["type"], "cost.loss.type");
      if (!FromString(t, &c->loss.type))
        r.Fail(node["loss"]["type"], "cost.loss.type", "expected none, huber or cauchy, got '" + t + "'");
    }
    if (r.Has(node["loss"], "scale")) c->loss.scale = r.Number(node["loss"]["scale"], "cost.loss.scale");
  }
  if (r.Has(node, "noise")) {
    r.RequireMap(node["noise"], "cost.noise", {"source", "reweight_passes"});
    if (r.Has(node["noise"], "reweight_passes"))
      c->noise.reweight_passes =
          r.Integer(node["noise"]["reweight_passes"], "cost.noise.reweight_passes");
    if (r.Has(node["noise"], "source")) {
      const std::string t = r.String(node["noise"]["source"], "cost.noise.source");
      if (!FromString(t, &c->noise.source))
        r.Fail(node["noise"]["source"], "cost.noise.source",
               "expected auto, file or estimate, got '" + t + "'");
    }
  }
}

void ParseParameters(const YamlReader& r, const YAML::Node& node, ParameterOptions* p) {
  const std::string path = "parameters";
  r.RequireMap(node, path, {"free", "fixed", "bounds", "initial"});
  if (r.Has(node, "free")) {
    r.RequireSequence(node["free"], "parameters.free");
    for (size_t i = 0; i < node["free"].size(); ++i)
      p->free.push_back(r.String(node["free"][i], JoinPath("parameters.free", i)));
  }
  if (r.Has(node, "fixed")) {
    if (!node["fixed"].IsMap()) r.Fail(node["fixed"], "parameters.fixed", "expected {name: value, ...}");
    for (const auto& item : node["fixed"]) {
      const std::string name = item.first.as<std::string>();
      p->fixed[name] = r.Positive(item.second, JoinPath("parameters.fixed", name));
    }
  }
  if (r.Has(node, "bounds")) {
    if (!node["bounds"].IsMap()) r.Fail(node["bounds"], "parameters.bounds", "expected {name: {min, max, initial}}");
    for (const auto& item : node["bounds"]) {
      const std::string name = item.first.as<std::string>();
      const std::string bpath = JoinPath("parameters.bounds", name);
      r.RequireMap(item.second, bpath, {"min", "max", "initial"});
      Bounds b{std::nan(""), std::nan(""), std::nan("")};
      if (r.Has(item.second, "min")) b.min = r.Number(item.second["min"], JoinPath(bpath, "min"));
      if (r.Has(item.second, "max")) b.max = r.Number(item.second["max"], JoinPath(bpath, "max"));
      if (r.Has(item.second, "initial")) b.initial = r.Number(item.second["initial"], JoinPath(bpath, "initial"));
      p->bounds[name] = b;  // NaN: keep the model's value
    }
  }
  if (r.Has(node, "initial")) {
    const std::string t = r.String(node["initial"], "parameters.initial");
    if (!FromString(t, &p->initial))
      r.Fail(node["initial"], "parameters.initial", "expected model or random, got '" + t + "'");
  }
}

// `prior: {name: {mean, std} | {mean, std_relative}, ...}`: whether the names are free parameters
// is checked by the ParameterMap, which knows the model.
// `constraints: [text, ...]`: each parsed here so that a typo fails before any work; whether the
// names are parameters, and free, is checked by the ParameterMap.
void ParseConstraints(const YamlReader& r, const YAML::Node& node, ParameterOptions* p) {
  r.RequireSequence(node, "constraints");
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string path = JoinPath("constraints", i);
    const std::string text = r.String(node[i], path);
    LinearConstraint parsed;
    std::string error;
    if (!ParseLinearConstraint(text, &parsed, &error)) r.Fail(node[i], path, error);
    p->constraints.push_back(text);
  }
}

void ParsePriors(const YamlReader& r, const YAML::Node& node, ParameterOptions* p) {
  if (!node.IsMap()) r.Fail(node, "prior", "expected {name: {mean, std} or {mean, std_relative}}");
  for (const auto& item : node) {
    const std::string name = item.first.as<std::string>();
    const std::string path = JoinPath("prior", name);
    r.RequireMap(item.second, path, {"mean", "std", "std_relative"});
    Prior prior{r.Number(r.Child(item.second, "mean", path), JoinPath(path, "mean")),
                std::nan(""), std::nan("")};
    const bool absolute = r.Has(item.second, "std"), relative = r.Has(item.second, "std_relative");
    if (absolute == relative)
      r.Fail(item.second, path, "expected exactly one of std and std_relative");
    if (absolute) prior.std = r.Positive(item.second["std"], JoinPath(path, "std"));
    if (relative)
      prior.std_relative = r.Positive(item.second["std_relative"], JoinPath(path, "std_relative"));
    if (!(prior.Std() > 0.0) || !std::isfinite(prior.Std()))
      r.Fail(item.second, path, "expected a finite std > 0 (std_relative of a mean 0 is 0)");
    p->priors[name] = prior;
  }
}

// `regularization: {toward: nominal|prior, weight: auto|number, choose_by: evidence|gcv}`.
void ParseRegularization(const YamlReader& r, const YAML::Node& node, ParameterOptions* p) {
  const std::string path = "regularization";
  r.RequireMap(node, path, {"toward", "weight", "choose_by"});
  RegularizationOptions& g = p->regularization;
  g.enabled = true;
  if (r.Has(node, "toward")) {
    const std::string t = r.String(node["toward"], JoinPath(path, "toward"));
    if (t == "nominal") g.toward = RegularizationTarget::kNominal;
    else if (t == "prior") g.toward = RegularizationTarget::kPrior;
    else r.Fail(node["toward"], JoinPath(path, "toward"), "expected nominal or prior, got '" + t + "'");
  }
  const YAML::Node weight = r.Child(node, "weight", path);
  const bool automatic = weight.IsScalar() && weight.Scalar() == "auto";
  // Without choose_by a given weight keeps the rule its curve was reported with before (gcv).
  g.choose_by = automatic ? WeightRule::kEvidence : WeightRule::kGcv;
  if (r.Has(node, "choose_by")) {
    const std::string rule = r.String(node["choose_by"], JoinPath(path, "choose_by"));
    if (!FromString(rule, &g.choose_by))
      r.Fail(node["choose_by"], JoinPath(path, "choose_by"),
             "expected evidence or gcv, got '" + rule + "'");
  }
  if (automatic) {
    g.automatic = true;
    return;
  }
  double value = 0.0;
  if (!weight.IsScalar() || !YAML::convert<double>::decode(weight, value) ||
      !std::isfinite(value) || !(value > 0.0))
    r.Fail(weight, JoinPath(path, "weight"),
           "expected auto or a finite number > 0, got '" +
               (weight.IsScalar() ? weight.Scalar() : std::string("a ") + (weight.IsMap() ? "mapping" : "sequence")) + "'");
  g.weight = value;
}

void ParseGa(const YamlReader& r, const YAML::Node& node, GaOptions* g) {
  const std::string path = "genetic_algorithm";
  r.RequireMap(node, path, {"population_size", "generations", "elite_count", "crossover_fraction",
                            "tournament_size", "mutation_scale", "mutation_shrink",
                            "fitness_tolerance", "stall_generations", "stall_tolerance",
                            "init_mode", "init_spread"});
  auto num = [&](const char* key, double* out) {
    if (r.Has(node, key)) *out = r.Number(node[key], JoinPath(path, key));
  };
  auto integer = [&](const char* key, int* out) {
    if (r.Has(node, key)) *out = r.Integer(node[key], JoinPath(path, key));
  };
  integer("population_size", &g->population_size);
  integer("generations", &g->generations);
  integer("elite_count", &g->elite_count);
  num("crossover_fraction", &g->crossover_fraction);
  integer("tournament_size", &g->tournament_size);
  num("mutation_scale", &g->mutation_scale);
  num("mutation_shrink", &g->mutation_shrink);
  num("fitness_tolerance", &g->fitness_tolerance);
  integer("stall_generations", &g->stall_generations);
  num("stall_tolerance", &g->stall_tolerance);
  num("init_spread", &g->init_spread);
  if (r.Has(node, "init_mode")) {
    const std::string t = r.String(node["init_mode"], JoinPath(path, "init_mode"));
    if (t == "around_guess") g->init_mode = GaInitMode::kAroundGuess;
    else if (t == "whole_bounds") g->init_mode = GaInitMode::kWholeBounds;
    else r.Fail(node["init_mode"], JoinPath(path, "init_mode"), "expected around_guess or whole_bounds, got '" + t + "'");
  }
}

void ParseNm(const YamlReader& r, const YAML::Node& node, NelderMeadOptions* o) {
  const std::string path = "nelder_mead";
  r.RequireMap(node, path, {"max_iterations", "max_evaluations", "tol_x", "tol_fun"});
  if (r.Has(node, "max_iterations")) o->max_iterations = r.Integer(node["max_iterations"], "nelder_mead.max_iterations");
  if (r.Has(node, "max_evaluations")) o->max_evaluations = r.Integer(node["max_evaluations"], "nelder_mead.max_evaluations");
  if (r.Has(node, "tol_x")) o->tol_x = r.Number(node["tol_x"], "nelder_mead.tol_x");
  if (r.Has(node, "tol_fun")) o->tol_fun = r.Number(node["tol_fun"], "nelder_mead.tol_fun");
}

void ParseLm(const YamlReader& r, const YAML::Node& node, LevenbergMarquardtOptions* o) {
  const std::string path = "levenberg_marquardt";
  r.RequireMap(node, path,
               {"max_iterations", "initial_damping", "tol_gradient", "tol_step", "tol_cost",
                "starts", "start_separation", "drop_factor", "drop_after", "agreement_tolerance",
                "agreeing_starts"});
  auto num = [&](const char* key, double* out) {
    if (r.Has(node, key)) *out = r.Number(node[key], JoinPath(path, key));
  };
  auto integer = [&](const char* key, int* out) {
    if (r.Has(node, key)) *out = r.Integer(node[key], JoinPath(path, key));
  };
  integer("max_iterations", &o->max_iterations);
  num("initial_damping", &o->initial_damping);
  num("tol_gradient", &o->tol_gradient);
  num("tol_step", &o->tol_step);
  num("tol_cost", &o->tol_cost);
  integer("starts", &o->starts);
  num("start_separation", &o->start_separation);
  num("drop_factor", &o->drop_factor);
  integer("drop_after", &o->drop_after);
  num("agreement_tolerance", &o->agreement_tolerance);
  integer("agreeing_starts", &o->agreeing_starts);
}

void ParseFitter(const YamlReader& r, const YAML::Node& node, FitterOptions* f) {
  const std::string path = "fitter";
  r.RequireMap(node, path,
               {"refinement", "max_cycles", "fitness_tolerance", "min_cycle_improvement",
                "stall_cycles", "restart", "checkpoint_every_evaluations"});
  if (r.Has(node, "refinement")) {
    const std::string t = r.String(node["refinement"], "fitter.refinement");
    if (!FromString(t, &f->refinement))
      r.Fail(node["refinement"], "fitter.refinement",
             "expected levenberg_marquardt or nelder_mead, got '" + t + "'");
  }
  if (r.Has(node, "stall_cycles")) f->stall_cycles = r.Integer(node["stall_cycles"], "fitter.stall_cycles");
  if (r.Has(node, "restart")) {
    const std::string t = r.String(node["restart"], "fitter.restart");
    if (!FromString(t, &f->restart))
      r.Fail(node["restart"], "fitter.restart", "expected seeded or independent, got '" + t + "'");
  }
  if (r.Has(node, "max_cycles")) f->max_cycles = r.Integer(node["max_cycles"], "fitter.max_cycles");
  if (r.Has(node, "fitness_tolerance")) f->fitness_tolerance = r.Number(node["fitness_tolerance"], "fitter.fitness_tolerance");
  if (r.Has(node, "min_cycle_improvement"))
    f->min_cycle_improvement = r.Number(node["min_cycle_improvement"], "fitter.min_cycle_improvement");
  if (r.Has(node, "checkpoint_every_evaluations"))
    f->checkpoint_every_evaluations = r.Integer(node["checkpoint_every_evaluations"], "fitter.checkpoint_every_evaluations");
}

void ParseReduction(const YamlReader& r, const YAML::Node& node, ReductionSettings* s) {
  r.RequireMap(node, "reduction", {"mode", "modes_up_to_hz", "krylov_orders", "assess_on"});
  if (r.Has(node, "mode")) {
    const std::string m = r.String(node["mode"], "reduction.mode");
    if (m == "auto") s->mode = ReductionMode::kAuto;
    else if (m == "always") s->mode = ReductionMode::kAlways;
    else if (m == "never") s->mode = ReductionMode::kNever;
    else r.Fail(node["mode"], "reduction.mode", "expected auto, always or never, got '" + m + "'");
  }
  if (r.Has(node, "modes_up_to_hz"))
    s->modes_up_to_hz = r.Positive(node["modes_up_to_hz"], "reduction.modes_up_to_hz");
  if (r.Has(node, "krylov_orders")) {
    s->krylov_orders = r.Integer(node["krylov_orders"], "reduction.krylov_orders");
    if (s->krylov_orders < 0 || s->krylov_orders > 8)
      r.Fail(node["krylov_orders"], "reduction.krylov_orders",
             "expected 0 to 8, got " + std::to_string(s->krylov_orders));
  }
  if (r.Has(node, "assess_on")) {
    const std::string a = r.String(node["assess_on"], "reduction.assess_on");
    if (a == "reduced") s->assess_on_full = false;
    else if (a == "full") s->assess_on_full = true;
    else r.Fail(node["assess_on"], "reduction.assess_on", "expected reduced or full, got '" + a + "'");
  }
}

FitOptions ParseFitOptions(const YAML::Node& root, const std::string& source) {
  YamlReader r(source);
  FitOptions options;
  if (root.IsNull()) return options;
  r.RequireMap(root, "",
               {"format", "description", "cost", "parameters", "genetic_algorithm", "nelder_mead",
                "levenberg_marquardt", "fitter", "postures", "prior", "reduction", "modes",
                "constraints", "regularization"});
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != "frfit-fit-1") r.Fail(root["format"], "format", "expected frfit-fit-1, got '" + format + "'");
  if (r.Has(root, "cost")) ParseCost(r, root["cost"], &options.cost);
  if (r.Has(root, "parameters")) ParseParameters(r, root["parameters"], &options.parameters);
  if (r.Has(root, "prior")) ParsePriors(r, root["prior"], &options.parameters);
  if (r.Has(root, "constraints")) ParseConstraints(r, root["constraints"], &options.parameters);
  if (r.Has(root, "regularization"))
    ParseRegularization(r, root["regularization"], &options.parameters);
  if (r.Has(root, "genetic_algorithm")) ParseGa(r, root["genetic_algorithm"], &options.genetic_algorithm);
  if (r.Has(root, "nelder_mead")) ParseNm(r, root["nelder_mead"], &options.nelder_mead);
  if (r.Has(root, "levenberg_marquardt"))
    ParseLm(r, root["levenberg_marquardt"], &options.levenberg_marquardt);
  if (r.Has(root, "fitter")) ParseFitter(r, root["fitter"], &options.fitter);
  if (r.Has(root, "reduction")) ParseReduction(r, root["reduction"], &options.reduction);
  if (r.Has(root, "modes")) {
    const YAML::Node modes = root["modes"];
    r.RequireMap(modes, "modes", {"shape_std", "damping"});
    if (r.Has(modes, "shape_std"))
      options.modes.shape_std = r.Positive(modes["shape_std"], "modes.shape_std");
    if (r.Has(modes, "damping")) options.modes.damping = r.Boolean(modes["damping"], "modes.damping");
  }
  if (r.Has(root, "postures")) {
    const YAML::Node postures = root["postures"];
    if (!postures.IsMap()) r.Fail(postures, "postures", "expected {posture_name: {weight: w}}");
    for (const auto& item : postures) {
      const std::string name = item.first.as<std::string>();
      const std::string p = JoinPath("postures", name);
      r.RequireMap(item.second, p, {"weight"});
      options.posture_weights[name] = r.Positive(r.Child(item.second, "weight", p), JoinPath(p, "weight"));
    }
  }
  std::string error;
  if (!options.IsValid(&error)) throw Error(source, "", error);
  return options;
}

// yaml-cpp prints doubles with 17 significant digits ("0.20000000000000001"); the settings are
// shown to people (reports) as they were written: each number the shortest text that reads back
// as the same double ("0.2").
std::string ShortestNumbers(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const bool starts = (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-') &&
                        (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                     text[i - 1] == '_' || text[i - 1] == '.'));
    if (starts) {
      char* end = nullptr;
      const double value = std::strtod(text.c_str() + i, &end);
      const size_t n = static_cast<size_t>(end - (text.c_str() + i));
      const char next = i + n < text.size() ? text[i + n] : '\n';
      if (n > 0 &&
          !(std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '.')) {
        out += FormatDouble(value);
        i += n;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

constexpr std::pair<InitialGuess, const char*> kInitialGuesses[] = {
    {InitialGuess::kModel, "model"}, {InitialGuess::kRandom, "random"}};
constexpr std::pair<Refinement, const char*> kRefinements[] = {
    {Refinement::kLevenbergMarquardt, "levenberg_marquardt"},
    {Refinement::kNelderMead, "nelder_mead"}};
constexpr std::pair<WeightRule, const char*> kWeightRules[] = {
    {WeightRule::kEvidence, "evidence"}, {WeightRule::kGcv, "gcv"}};
constexpr std::pair<RestartMode, const char*> kRestartModes[] = {
    {RestartMode::kSeeded, "seeded"}, {RestartMode::kIndependent, "independent"}};

std::string ToString(InitialGuess guess) { return EnumName(kInitialGuesses, guess); }
bool FromString(const std::string& text, InitialGuess* guess) {
  return EnumFromName(kInitialGuesses, text, guess);
}
std::string ToString(Refinement refinement) { return EnumName(kRefinements, refinement); }
bool FromString(const std::string& text, Refinement* refinement) {
  return EnumFromName(kRefinements, text, refinement);
}

std::string ToString(RegularizationTarget target) {
  return target == RegularizationTarget::kPrior ? "prior" : "nominal";
}

std::string ToString(WeightRule rule) { return EnumName(kWeightRules, rule); }
bool FromString(const std::string& text, WeightRule* rule) {
  return EnumFromName(kWeightRules, text, rule);
}

std::string ToString(RestartMode mode) { return EnumName(kRestartModes, mode); }
bool FromString(const std::string& text, RestartMode* mode) {
  return EnumFromName(kRestartModes, text, mode);
}

bool FitterOptions::IsValid(std::string* error) const {
  auto fail = [&](const std::string& m) { return (error ? *error = m : m), false; };
  if (max_cycles < 1) return fail("fitter.max_cycles: expected >= 1, got " + std::to_string(max_cycles));
  if (!(fitness_tolerance >= 0.0)) return fail("fitter.fitness_tolerance: expected >= 0");
  if (!(min_cycle_improvement >= 0.0)) return fail("fitter.min_cycle_improvement: expected >= 0");
  if (stall_cycles < 1) return fail("fitter.stall_cycles: expected >= 1, got " + std::to_string(stall_cycles));
  if (checkpoint_every_evaluations < 0) return fail("fitter.checkpoint_every_evaluations: expected >= 0");
  return true;
}

bool FitOptions::IsValid(std::string* error) const {
  std::string inner;
  if (!cost.IsValid(&inner)) return (error ? *error = inner : inner), false;
  if (!genetic_algorithm.IsValid(&inner))
    return (error ? *error = "genetic_algorithm." + inner : inner), false;
  if (!nelder_mead.IsValid(&inner)) return (error ? *error = "nelder_mead." + inner : inner), false;
  if (!levenberg_marquardt.IsValid(&inner))
    return (error ? *error = "levenberg_marquardt." + inner : inner), false;
  if (!fitter.IsValid(&inner)) return (error ? *error = inner : inner), false;
  if (!modes.IsValid(&inner)) return (error ? *error = inner : inner), false;
  // A prior's ½z² is on the scale of the negative log-likelihood only when the weights are the
  // noise's (fit/prior.h, docs/decisions.md): with emphasis weights it would be an arbitrary weight.
  if (!parameters.priors.empty() && cost.weights.mode != WeightMode::kNoise)
    return (error ? *error = "prior: expected cost.weights.mode noise (a prior is weighed "
                             "against the noise; other weights are emphasis, not variances)"
                  : inner),
           false;
  const RegularizationOptions& g = parameters.regularization;
  if (g.enabled && cost.weights.mode != WeightMode::kNoise)
    return (error ? *error = "regularization: expected cost.weights.mode noise (its weight is "
                             "weighed against the noise; other weights are emphasis)"
                  : inner),
           false;
  if (g.enabled && g.choose_by != WeightRule::kEvidence && g.choose_by != WeightRule::kGcv)
    return (error ? *error = "regularization.choose_by: expected evidence or gcv" : inner), false;
  if (g.enabled && g.toward == RegularizationTarget::kPrior && parameters.priors.empty())
    return (error ? *error = "regularization.toward: expected nominal (toward prior needs a "
                             "prior: block)"
                  : inner),
           false;
  if (g.enabled && g.toward == RegularizationTarget::kNominal && !parameters.priors.empty())
    return (error ? *error = "regularization.toward: expected prior (a prior: block is given; "
                             "toward nominal would add a second prior)"
                  : inner),
           false;
  return true;
}

FitOptions LoadFitOptions(const std::string& path) {
  if (path.empty()) return FitOptions{};
  return ParseFitOptions(YamlReader::LoadFile(path), path);
}

FitOptions ParseFitOptionsText(const std::string& yaml_text, const std::string& source) {
  return ParseFitOptions(YamlReader::LoadText(yaml_text, source), source);
}

std::string FitOptionsToYaml(const FitOptions& o) {
  YAML::Emitter out;
  auto entries = [](const std::array<bool, 9>& e) {
    std::vector<std::string> names;
    for (int i = 0; i < 9; ++i)
      if (e[i]) names.push_back(EntryName(i));
    return names;
  };
  out << YAML::BeginMap << YAML::Key << "format" << YAML::Value << "frfit-fit-1";
  out << YAML::Key << "cost" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value << ToString(o.cost.type);
  out << YAML::Key << "phase" << YAML::Value << ToString(o.cost.phase);
  out << YAML::Key << "fit_format" << YAML::Value << ToString(o.cost.fit_format);
  out << YAML::Key << "band_hz" << YAML::Value << YAML::Flow << YAML::BeginSeq << o.cost.band_min_hz
      << (std::isinf(o.cost.band_max_hz) ? 1e300 : o.cost.band_max_hz) << YAML::EndSeq;
  out << YAML::Key << "entries" << YAML::Value << YAML::Flow << entries(o.cost.entries);
  out << YAML::Key << "symmetrize" << YAML::Value << ToString(o.cost.symmetrization);
  out << YAML::Key << "drop_bad_lines" << YAML::Value << o.cost.drop_bad_lines;
  const WeightOptions& w = o.cost.weights;
  out << YAML::Key << "weights" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "mode" << YAML::Value << ToString(w.mode);
  out << YAML::Key << "peak_gain" << YAML::Value << w.peak_gain;
  out << YAML::Key << "base_gain" << YAML::Value << w.base_gain;
  out << YAML::Key << "peak_halfwidth_lines" << YAML::Value << w.peak_halfwidth_lines;
  out << YAML::Key << "min_prominence_db" << YAML::Value << w.min_prominence_db;
  out << YAML::Key << "peak_floor_db" << YAML::Value << w.peak_floor_db;
  out << YAML::Key << "peaks_per_entry" << YAML::Value << w.peaks_per_entry;
  if (!w.peak_frequencies_hz.empty())
    out << YAML::Key << "peak_frequencies_hz" << YAML::Value << YAML::Flow << w.peak_frequencies_hz;
  if (w.ema_peaks) out << YAML::Key << "ema_peaks" << YAML::Value << true;
  out << YAML::Key << "search_peak_gain" << YAML::Value << w.search_peak_gain;
  if (!w.bands.empty()) {
    out << YAML::Key << "bands" << YAML::Value << YAML::BeginSeq;
    for (const WeightBand& b : w.bands)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "from_hz" << YAML::Value << b.from_hz
          << YAML::Key << "to_hz" << YAML::Value << b.to_hz << YAML::Key << "gain" << YAML::Value
          << b.gain << YAML::Key << "entries" << YAML::Value << entries(b.entries) << YAML::EndMap;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  out << YAML::Key << "noise" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "source" << YAML::Value << ToString(o.cost.noise.source) << YAML::Key
      << "reweight_passes" << YAML::Value << o.cost.noise.reweight_passes << YAML::EndMap;
  out << YAML::Key << "loss" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "type"
      << YAML::Value << ToString(o.cost.loss.type) << YAML::Key << "scale" << YAML::Value
      << o.cost.loss.scale << YAML::EndMap;
  out << YAML::EndMap;
  const ParameterOptions& p = o.parameters;
  out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "initial" << YAML::Value << ToString(p.initial);
  if (!p.free.empty()) out << YAML::Key << "free" << YAML::Value << YAML::Flow << p.free;
  if (!p.fixed.empty()) out << YAML::Key << "fixed" << YAML::Value << YAML::Flow << p.fixed;
  if (!p.bounds.empty()) {
    out << YAML::Key << "bounds" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, b] : p.bounds) {
      out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap;
      if (!std::isnan(b.min)) out << YAML::Key << "min" << YAML::Value << b.min;
      if (!std::isnan(b.max)) out << YAML::Key << "max" << YAML::Value << b.max;
      if (!std::isnan(b.initial)) out << YAML::Key << "initial" << YAML::Value << b.initial;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!p.constraints.empty()) {  // only when given, as the prior
    out << YAML::Key << "constraints" << YAML::Value << YAML::BeginSeq;
    for (const std::string& text : p.constraints) out << YAML::DoubleQuoted << text;
    out << YAML::EndSeq;
  }
  if (!p.priors.empty()) {  // only when given: configurations without one keep their text
    out << YAML::Key << "prior" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, prior] : p.priors) {
      out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "mean" << YAML::Value << prior.mean;
      if (std::isnan(prior.std))
        out << YAML::Key << "std_relative" << YAML::Value << prior.std_relative;
      else
        out << YAML::Key << "std" << YAML::Value << prior.std;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (p.regularization.enabled) {  // only when given, as the prior
    out << YAML::Key << "regularization" << YAML::Value << YAML::Flow << YAML::BeginMap
        << YAML::Key << "toward" << YAML::Value << ToString(p.regularization.toward)
        << YAML::Key << "weight" << YAML::Value;
    if (p.regularization.automatic) out << "auto";
    else out << p.regularization.weight;
    // A given weight's default rule (gcv) is left out: such configurations keep their text.
    if (p.regularization.automatic || p.regularization.choose_by != WeightRule::kGcv)
      out << YAML::Key << "choose_by" << YAML::Value << ToString(p.regularization.choose_by);
    out << YAML::EndMap;
  }
  // Only when not the defaults: configurations without a `modes:` block keep their text.
  const ModalCostOptions modal_defaults;
  if (o.modes.shape_std != modal_defaults.shape_std || o.modes.damping != modal_defaults.damping)
    out << YAML::Key << "modes" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "shape_std" << YAML::Value << o.modes.shape_std << YAML::Key << "damping"
        << YAML::Value << o.modes.damping << YAML::EndMap;
  const GaOptions& g = o.genetic_algorithm;
  out << YAML::Key << "genetic_algorithm" << YAML::Value << YAML::BeginMap
      << YAML::Key << "population_size" << YAML::Value << g.population_size
      << YAML::Key << "generations" << YAML::Value << g.generations
      << YAML::Key << "elite_count" << YAML::Value << g.elite_count
      << YAML::Key << "crossover_fraction" << YAML::Value << g.crossover_fraction
      << YAML::Key << "tournament_size" << YAML::Value << g.tournament_size
      << YAML::Key << "mutation_scale" << YAML::Value << g.mutation_scale
      << YAML::Key << "mutation_shrink" << YAML::Value << g.mutation_shrink
      << YAML::Key << "fitness_tolerance" << YAML::Value << g.fitness_tolerance
      << YAML::Key << "stall_generations" << YAML::Value << g.stall_generations
      << YAML::Key << "stall_tolerance" << YAML::Value << g.stall_tolerance
      << YAML::Key << "init_mode" << YAML::Value
      << (g.init_mode == GaInitMode::kAroundGuess ? "around_guess" : "whole_bounds")
      << YAML::Key << "init_spread" << YAML::Value << g.init_spread << YAML::EndMap;
  out << YAML::Key << "nelder_mead" << YAML::Value << YAML::BeginMap
      << YAML::Key << "max_iterations" << YAML::Value << o.nelder_mead.max_iterations
      << YAML::Key << "max_evaluations" << YAML::Value << o.nelder_mead.max_evaluations
      << YAML::Key << "tol_x" << YAML::Value << o.nelder_mead.tol_x
      << YAML::Key << "tol_fun" << YAML::Value << o.nelder_mead.tol_fun << YAML::EndMap;
  const LevenbergMarquardtOptions& lm = o.levenberg_marquardt;
  out << YAML::Key << "levenberg_marquardt" << YAML::Value << YAML::BeginMap << YAML::Key
      << "max_iterations" << YAML::Value << lm.max_iterations << YAML::Key << "initial_damping"
      << YAML::Value << lm.initial_damping << YAML::Key << "tol_gradient" << YAML::Value
      << lm.tol_gradient << YAML::Key << "tol_step" << YAML::Value << lm.tol_step << YAML::Key
      << "tol_cost" << YAML::Value << lm.tol_cost << YAML::Key << "starts" << YAML::Value
      << lm.starts << YAML::Key << "start_separation" << YAML::Value << lm.start_separation
      << YAML::Key << "drop_factor" << YAML::Value << lm.drop_factor << YAML::Key << "drop_after"
      << YAML::Value << lm.drop_after << YAML::Key << "agreement_tolerance" << YAML::Value
      << lm.agreement_tolerance << YAML::Key << "agreeing_starts" << YAML::Value
      << lm.agreeing_starts << YAML::EndMap;
  out << YAML::Key << "fitter" << YAML::Value << YAML::BeginMap << YAML::Key << "refinement"
      << YAML::Value << ToString(o.fitter.refinement) << YAML::Key << "max_cycles" << YAML::Value
      << o.fitter.max_cycles << YAML::Key << "fitness_tolerance" << YAML::Value
      << o.fitter.fitness_tolerance << YAML::Key << "min_cycle_improvement" << YAML::Value
      << o.fitter.min_cycle_improvement << YAML::Key << "stall_cycles" << YAML::Value
      << o.fitter.stall_cycles << YAML::Key << "restart" << YAML::Value
      << ToString(o.fitter.restart) << YAML::Key << "checkpoint_every_evaluations" << YAML::Value
      << o.fitter.checkpoint_every_evaluations << YAML::EndMap;
  if (!o.reduction.is_default()) {  // absent by default, so earlier settings keep their text
    const ReductionSettings& s = o.reduction;
    out << YAML::Key << "reduction" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "mode" << YAML::Value
        << (s.mode == ReductionMode::kAuto ? "auto" : s.mode == ReductionMode::kAlways ? "always" : "never")
        << YAML::Key << "modes_up_to_hz" << YAML::Value << s.modes_up_to_hz << YAML::Key
        << "krylov_orders" << YAML::Value << s.krylov_orders;
    if (s.assess_on_full) out << YAML::Key << "assess_on" << YAML::Value << "full";
    out << YAML::EndMap;
  }
  if (!o.posture_weights.empty()) {
    out << YAML::Key << "postures" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, weight] : o.posture_weights)
      out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "weight" << YAML::Value << weight << YAML::EndMap;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return ShortestNumbers(out.c_str());
}

}  // namespace frfit
