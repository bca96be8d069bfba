// frfit fit: identifies the elastic parameters of a model from measured FRFs (paper Fig. 2).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "fit_text.h"
#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/common/warning.h"
#include "frfit/cost/static_sets.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/files/atomic_file.h"
#include "frfit/files/output_path.h"
#include "frfit/model/model_yaml.h"

namespace frfit::cli {
namespace {

void CheckWritableDirectory(const std::string& path, const std::string& option) {
  const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error("frfit fit", option, "expected a path in an existing directory, got '" + path + "'");
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error("frfit fit", option, "directory '" + dir.string() + "' is not writable");
}

// Where the fit's files go: the result, and the checkpoint (by default beside the result) that
// --resume reads back. Their directories are checked before any work, that they are none of the
// inputs once the model names its files (RequireNoInputOverwritten).
struct FitPaths {
  std::string out, checkpoint;
};

FitPaths WritablePaths(const Args& args) {
  FitPaths paths{args.Get("out", ""), args.Get("checkpoint", "")};
  if (!paths.out.empty()) CheckWritableDirectory(paths.out, "--out");
  if (paths.checkpoint.empty() && !paths.out.empty()) paths.checkpoint = paths.out + ".checkpoint.json";
  if (!paths.checkpoint.empty()) CheckWritableDirectory(paths.checkpoint, "--checkpoint");
  return paths;
}

void RequireNoInputOverwritten(const Args& args, const Model& model, const FitPaths& paths) {
  std::vector<std::string> inputs = model.files;
  if (args.Has("frf"))
    for (const std::string& file : args.GetList("frf")) inputs.push_back(file);
  inputs.push_back(args.Get("static", ""));
  if (args.Has("modes"))
    for (const std::string& file : args.GetList("modes")) inputs.push_back(file);
  inputs.push_back(args.Get("mapping", ""));
  inputs.push_back(args.Get("config", ""));
  if (!paths.checkpoint.empty())
    RequireNotAnInput("frfit fit", "--checkpoint", paths.checkpoint, inputs);
  inputs.push_back(paths.checkpoint);  // --out must not be the checkpoint either
  inputs.push_back(args.Get("resume", ""));
  if (!paths.out.empty()) RequireNotAnInput("frfit fit", "--out", paths.out, inputs);
}

// What a checkpoint file must match to be resumed: the inputs' bytes, the options and the seed.
std::string InputsFingerprint(const Args& args, const Model& model, const FitOptions& options,
                              std::uint64_t seed) {
  Fingerprint inputs;
  for (const std::string& file : model.files) inputs.MixFile(file);
  if (args.Has("frf"))
    for (const std::string& file : args.GetList("frf")) inputs.MixFile(file);
  if (args.Has("static")) inputs.MixFile(args.Get("static"));  // (nothing mixed without: old checkpoints resume)
  if (args.Has("modes"))
    for (const std::string& file : args.GetList("modes")) inputs.MixFile(file);
  // (nothing mixed without: old checkpoints resume)
  if (args.Has("mapping")) inputs.MixFile(args.Get("mapping"));
  if (args.Has("posture")) inputs.Mix("posture=" + args.Get("posture"));
  inputs.Mix(FitOptionsToYaml(options));
  inputs.Mix("seed=" + std::to_string(seed));
  return std::to_string(inputs.value());
}

// The run's state in a checkpoint file that --resume names, checked to belong to this fit.
nlohmann::json ResumedState(const std::string& resume, const std::string& fingerprint) {
  const std::string text = ReadFileBytes(resume);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(resume, "", std::string("not a readable checkpoint (truncated?): ") + e.what());
  }
  if (j.value("format", "") != "frfit-checkpoint-1")
    throw Error(resume, "format", "expected frfit-checkpoint-1");
  if (j.value("fingerprint", "") != fingerprint)
    throw Error(resume, "fingerprint",
                "this checkpoint belongs to another fit (model, FRF files, configuration or seed differ)");
  return j.at("runs").at(0);
}

// Progress on stderr: on a terminal one line that updates in place, with an estimate of the GA
// phase's remaining time; elsewhere (a log file, a pipe) plain log lines, only with --progress.
std::function<void(const ProgressEvent&)> ProgressPrinter(const Args& args, const FitOptions& options,
                                                          long every) {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  if (args.Flag("json") || args.Flag("quiet") || !(args.Flag("progress") || terminal)) return {};
  const GaOptions& ga = options.genetic_algorithm;
  const double per_generation = ga.population_size - ga.EliteCountUsed();
  return [ga, per_generation, every, terminal](const ProgressEvent& e) {
    const bool in_ga = e.phase == FitPhase::kGeneticAlgorithm;
    if (!in_ga && e.step % every != 0) return;
    char step[48], eta[64] = "";
    if (in_ga)
      std::snprintf(step, sizeof step, "GA generation %d/%d", e.step, ga.generations);
    else
      std::snprintf(step, sizeof step, "%s iteration %d",
                    e.phase == FitPhase::kLevenbergMarquardt ? "LM" : "NM", e.step);
    if (in_ga && e.evaluations_per_second > 0)
      std::snprintf(eta, sizeof eta, ", GA done in ~%.1f s",
                    (ga.generations - e.step) * per_generation / e.evaluations_per_second);
    // A stage's first step may have no finite cost yet (a refinement before its first
    // evaluation): say so rather than print "inf".
    char best[48] = "best: no finite cost yet";
    if (std::isfinite(e.best_cost)) std::snprintf(best, sizeof best, "best %.6e", e.best_cost);
    std::fprintf(stderr, "%scycle %d %s  %s  evaluations %lld  %.0f/s%s%s", terminal ? "\r\033[K" : "",
                 e.cycle, step, best, static_cast<long long>(e.evaluations),
                 e.evaluations_per_second, eta, terminal ? "" : "\n");
  };
}

// How the fit runs, from the options: seed, backend and threads, progress, checkpoints; and where
// its files go (checked in the order the options were always checked).
FitRunSettings RunSettings(const Args& args, const FitOptions& options, FitPaths* paths) {
  FitRunSettings settings;
  const long seed = args.GetInt("seed", 1);
  if (seed < 0) throw Error("frfit fit", "--seed", "expected an integer >= 0");
  settings.seed = static_cast<std::uint64_t>(seed);
  const std::string backend = args.Get("backend", "auto");
  if (!FromString(backend, &settings.evaluator.backend))
    throw Error("frfit fit", "--backend", "expected cpu, cuda or auto, got '" + backend + "'");
  settings.evaluator.threads = args.GetThreads();
  std::string error;
  if (!settings.evaluator.IsValid(&error)) throw Error("frfit fit", "--threads", error);
  const long every = args.GetInt("progress-every", 50);
  if (every < 1) throw Error("frfit fit", "--progress-every", "expected an integer >= 1");
  settings.progress = ProgressPrinter(args, options, every);
  *paths = WritablePaths(args);
  // By wall time, as `frfit fleet` does: a count of evaluations that is seconds on the cpu backend
  // is a fraction of a second on a GPU, where rewriting the state (and its growing history) that
  // often would cost a noticeable share of the fit.
  settings.checkpoint_every_seconds = args.GetDouble("checkpoint-seconds", 60.0);
  if (!(settings.checkpoint_every_seconds >= 0.0) || std::isinf(settings.checkpoint_every_seconds))
    throw Error("frfit fit", "--checkpoint-seconds", "expected a finite number >= 0");
  settings.checkpoint_every_evaluations = options.fitter.checkpoint_every_evaluations;
  return settings;
}

void PrintFitText(const FitResult& result, const std::string& evaluator, const std::string& out_path) {
  std::printf("fit of model %s: cost %.6e after %lld evaluations (%d cycle%s, %s), %.2f s on %s\n",
              result.model_name.c_str(), result.cost, static_cast<long long>(result.evaluations),
              result.cycles, result.cycles == 1 ? "" : "s", result.termination.c_str(),
              result.wall_seconds, evaluator.c_str());
  std::printf("  %s: %s\n", result.termination.c_str(),
              TerminationMeaning(result.termination).c_str());
  PrintParameterTable(result);
  PrintConstraints(result.constraints);
  PrintRegularization(result.regularization);
  PrintRefinement(result);
  PrintIdentifiability(result.identifiability);
  PrintModelCheck(result.model_check);
  PrintStaticTests(result.static_tests);
  PrintModalData(result.modal_data);
  for (const PostureResult& p : result.postures) PrintModalComparison(p);
  for (const ModalComparisonPoints& c : result.modal_comparison_points)
    PrintModalComparisonPoints(c);
  if (!out_path.empty()) std::printf("\nwrote %s\n", out_path.c_str());
}

void PrintReductionText(const std::vector<SetReduction>& reductions) {
  std::printf("\nreduction (docs/reduction.md): largest relative FRF error in the band at the "
              "parameter samples\n");
  for (const SetReduction& r : reductions)
    std::printf("  %-24s %d -> %d coordinates, error %.3g\n", r.set.c_str(), r.full_n,
                r.reduced_n, r.max_relative_error);
}

}  // namespace

int RunFit(int argc, char** argv) {
  const Args args("fit", argc, argv,
                  {"model", "frf", "static", "modes", "mapping", "posture", "config", "seed", "backend",
                   "threads", "out", "checkpoint", "checkpoint-seconds", "resume", "progress-every"},
                  {"json", "progress", "quiet"});
  // Everything is checked before the first evaluation.
  const std::string config_path = args.Get("config", "");
  const FitOptions options = LoadFitOptions(config_path);
  const std::string config_source = config_path.empty() ? "default fit configuration" : config_path;
  FitPaths paths;
  FitRunSettings settings = RunSettings(args, options, &paths);
  auto model = std::make_shared<const Model>(LoadModel(args.Get("model")));
  ParameterMap map(*model, options.parameters, config_source);
  RequireNoInputOverwritten(args, *model, paths);
  // FRF sets, static tests and measured modes: FRF sets or modes at least.
  if (!args.Has("frf") && !args.Has("modes"))
    throw Error("frfit fit", "--frf", "missing (required unless --modes is given)");
  Problem problem = LoadProblem(model, args.Has("frf") ? args.GetList("frf") : std::vector<std::string>{},
                                options, config_source);
  // Static deflection tests beside the FRFs (docs/static-tests.md).
  if (args.Has("static")) AddStaticTests(LoadStaticTests(args.Get("static")), &problem);
  // Measured modes (frfit ema results) beside or instead of them (docs/fit-config.md, "Modal data").
  // A campaign's modes (frfit ema CAMPAIGN) need the node map and posture (--mapping, --posture).
  const CampaignModesSettings campaign{args.Get("mapping", ""), args.Get("posture", "")};
  if (!args.Has("modes") && !campaign.empty())
    throw Error("frfit fit", campaign.mapping.empty() ? "--posture" : "--mapping",
                "expected only with --modes CAMPAIGN_EMA.h5 (a campaign's modes)");
  if (args.Has("modes")) AddModes(args.GetList("modes"), options, campaign, &problem);
  const bool quiet = args.Flag("quiet") || args.Flag("json");
  std::string evaluator_description;
  settings.backend_chosen = [&](const Evaluator& evaluator, const BackendChoice& choice) {
    evaluator_description = evaluator.description();
    if (quiet) return;
    if (choice.timed)
      std::fprintf(stderr, "frfit fit: backend auto -> %s (%s)\n", ToString(evaluator.backend()).c_str(),
                   choice.reason.c_str());
    else
      std::fprintf(stderr, "frfit fit: backend %s (%s)\n", ToString(evaluator.backend()).c_str(),
                   evaluator_description.c_str());
  };
  const std::string fingerprint = InputsFingerprint(args, *model, options, settings.seed);
  nlohmann::json resume_state;
  if (args.Has("resume")) {
    resume_state = ResumedState(args.Get("resume"), fingerprint);
    settings.resume = &resume_state;
    settings.resumed = [&](std::int64_t evaluations) {
      if (!quiet) std::fprintf(stderr, "frfit fit: resuming from %s at %lld evaluations\n",
                               args.Get("resume").c_str(), static_cast<long long>(evaluations));
    };
  }
  if (!paths.checkpoint.empty())
    settings.checkpoint = [&](const nlohmann::json& state) {
      nlohmann::json j = {{"format", "frfit-checkpoint-1"}, {"fingerprint", fingerprint}, {"runs", {state}}};
      WriteTextFileAtomically(paths.checkpoint, j.dump());
    };

  // Fit reduces beam models past the kernels' size to a basis (docs/reduction.md).
  const FitResult result = Fit(problem, map, options, settings);
  if (settings.progress && ::isatty(STDERR_FILENO) != 0) std::fputs("\n", stderr);
  if (!paths.out.empty()) WriteFitResult(paths.out, result);
  if (!paths.checkpoint.empty()) std::remove(paths.checkpoint.c_str());
  WarnAboutResult(result, "frfit fit");  // with --json too: stderr stays one line each
  if (args.Flag("json")) {
    nlohmann::ordered_json j = FitResultToJson(result);
    if (!paths.out.empty()) j["out"] = paths.out;
    if (!result.reductions.empty()) j["reduction"] = ReductionsToJson(result.reductions);
    std::printf("%s\n", j.dump().c_str());
  } else {
    PrintFitText(result, evaluator_description, paths.out);
    if (!result.reductions.empty()) PrintReductionText(result.reductions);
  }
  return 0;
}

}  // namespace frfit::cli
