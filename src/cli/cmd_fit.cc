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
#include "frfit/fit/fit_backend.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_result.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/io/atomic_file.h"
#include "frfit/io/output_path.h"
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

}  // namespace

int RunFit(int argc, char** argv) {
  const Args args("fit", argc, argv,
                  {"model", "frf", "static", "config", "seed", "backend", "threads", "out", "checkpoint",
                   "checkpoint-seconds", "resume", "progress-every"},
                  {"json", "progress", "quiet"});
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();

  // Everything is checked before the first evaluation.
  const std::string config_path = args.Get("config", "");
  const FitOptions options = LoadFitOptions(config_path);
  const std::string config_source = config_path.empty() ? "default fit configuration" : config_path;
  const long seed_value = args.GetInt("seed", 1);
  if (seed_value < 0) throw Error("frfit fit", "--seed", "expected an integer >= 0");
  const std::uint64_t seed = static_cast<std::uint64_t>(seed_value);
  EvaluatorOptions evaluator_options;
  const std::string backend_given = args.Get("backend", "auto");
  if (!FromString(backend_given, &evaluator_options.backend))
    throw Error("frfit fit", "--backend", "expected cpu, cuda or auto, got '" + backend_given + "'");
  evaluator_options.threads = args.GetThreads();
  std::string error;
  if (!evaluator_options.IsValid(&error)) throw Error("frfit fit", "--threads", error);
  const long every = args.GetInt("progress-every", 50);
  if (every < 1) throw Error("frfit fit", "--progress-every", "expected an integer >= 1");
  const std::string out_path = args.Get("out", "");
  if (!out_path.empty()) CheckWritableDirectory(out_path, "--out");
  std::string checkpoint_path = args.Get("checkpoint", "");
  if (checkpoint_path.empty() && !out_path.empty()) checkpoint_path = out_path + ".checkpoint.json";
  if (!checkpoint_path.empty()) CheckWritableDirectory(checkpoint_path, "--checkpoint");
  // By wall time, as `frfit fleet` does: a count of evaluations that is seconds on the cpu backend
  // is a fraction of a second on a GPU, where rewriting the state (and its growing history) that
  // often would cost a noticeable share of the fit.
  const double checkpoint_seconds = args.GetDouble("checkpoint-seconds", 60.0);
  if (!(checkpoint_seconds >= 0.0) || std::isinf(checkpoint_seconds))
    throw Error("frfit fit", "--checkpoint-seconds", "expected a finite number >= 0");

  auto model = std::make_shared<const Model>(LoadModel(args.Get("model")));
  const ParameterMap map(*model, options.parameters, config_source);
  const std::vector<std::string> frf_files = args.GetList("frf");
  std::vector<std::string> input_files = model->files;
  input_files.insert(input_files.end(), frf_files.begin(), frf_files.end());
  input_files.push_back(args.Get("static", ""));
  input_files.push_back(config_path);
  if (!checkpoint_path.empty())
    RequireNotAnInput("frfit fit", "--checkpoint", checkpoint_path, input_files);
  input_files.push_back(checkpoint_path);  // --out must not be the checkpoint either
  input_files.push_back(args.Get("resume", ""));
  if (!out_path.empty()) RequireNotAnInput("frfit fit", "--out", out_path, input_files);
  Problem problem = LoadProblem(model, frf_files, options, config_source);
  // Static deflection tests beside the FRFs (docs/static-tests.md).
  if (args.Has("static")) AddStaticTests(LoadStaticTests(args.Get("static")), &problem);

  const PackedProblem packed = PackForPass(problem, map, 0, {});
  BackendChoice choice;
  std::unique_ptr<Evaluator> evaluator =
      CreateFitEvaluator(evaluator_options, packed, problem, map, options, &choice);
  const bool quiet = args.Flag("quiet") || args.Flag("json");
  if (!quiet) {
    if (choice.timed)
      std::fprintf(stderr, "frfit fit: backend auto -> %s (%s)\n", ToString(evaluator->backend()).c_str(),
                   choice.reason.c_str());
    else
      std::fprintf(stderr, "frfit fit: backend %s (%s)\n", ToString(evaluator->backend()).c_str(),
                   evaluator->description().c_str());
  }

  Fingerprint inputs;
  for (const std::string& file : model->files) inputs.MixFile(file);
  for (const std::string& file : frf_files) inputs.MixFile(file);
  if (args.Has("static")) inputs.MixFile(args.Get("static"));  // (nothing mixed without: old checkpoints resume)
  inputs.Mix(FitOptionsToYaml(options));
  inputs.Mix("seed=" + std::to_string(seed));
  const std::string fingerprint = std::to_string(inputs.value());

  std::unique_ptr<FitRun> run;
  if (args.Has("resume")) {
    const std::string resume = args.Get("resume");
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
    run = std::make_unique<FitRun>(map, options, j.at("runs").at(0));
    if (!quiet) std::fprintf(stderr, "frfit fit: resuming from %s at %lld evaluations\n", resume.c_str(),
                             static_cast<long long>(run->evaluations()));
  } else {
    run = std::make_unique<FitRun>(map, options, seed);
  }

  DriveOptions drive;
  // On a terminal: one line that updates in place, with an estimate of the GA phase's remaining
  // time. Elsewhere (a log file, a pipe): silent unless --progress, then plain log lines.
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const bool show_progress = !args.Flag("json") && !args.Flag("quiet") && (args.Flag("progress") || terminal);
  const GaOptions& ga = options.genetic_algorithm;
  const double per_generation = ga.population_size - ga.EliteCountUsed();
  if (show_progress)
    drive.progress = [&, terminal](const ProgressEvent& e) {
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
      std::fprintf(stderr, "%scycle %d %s  best %.6e  evaluations %lld  %.0f/s%s%s", terminal ? "\r\033[K" : "",
                   e.cycle, step, e.best_cost, static_cast<long long>(e.evaluations),
                   e.evaluations_per_second, eta, terminal ? "" : "\n");
    };
  if (!checkpoint_path.empty()) {
    drive.checkpoint_every_seconds = checkpoint_seconds;
    drive.checkpoint_every_evaluations = options.fitter.checkpoint_every_evaluations;
    drive.checkpoint = [&](const std::vector<nlohmann::json>& states) {
      nlohmann::json j = {{"format", "frfit-checkpoint-1"}, {"fingerprint", fingerprint}, {"runs", states}};
      WriteTextFileAtomically(checkpoint_path, j.dump());
    };
  }
  const FitJob job = MakeFitJob(run.get(), map, problem);
  DriveFits({job}, evaluator.get(), drive);
  if (show_progress && terminal) std::fputs("\n", stderr);

  FitResult result = AssembleFitResult(problem, map, *run, options);
  result.backend_given = backend_given;
  result.backend_used = ToString(evaluator->backend());
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!out_path.empty()) WriteFitResult(out_path, result);
  if (!checkpoint_path.empty()) std::remove(checkpoint_path.c_str());
  // Each reason the model check found is a warning, with --json too (stderr stays one line each).
  for (const std::string& reason : result.model_check.reasons) Warn("frfit fit", "model check", reason);
  if (result.identifiability.sigma_basis == SigmaBasis::kNoiseModelScaled) {
    const Identifiability& id = result.identifiability;
    char text[200];
    std::snprintf(text, sizeof text,
                  "noise overestimated: reduced chi2 %.3g is below %.3g, its 0.1 %% quantile; 1 "
                  "sigma scaled by sqrt(reduced chi2) (docs/identifiability.md)",
                  id.reduced_chi2, ReducedChi2Floor(id.residuals - id.parameters));
    Warn("frfit fit", "identifiability", text);
  }

  if (args.Flag("json")) {
    nlohmann::ordered_json j = FitResultToJson(result);
    if (!out_path.empty()) j["out"] = out_path;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("fit of model %s: cost %.6e after %lld evaluations (%d cycle%s, %s), %.2f s on %s\n",
              result.model_name.c_str(), result.cost, static_cast<long long>(result.evaluations),
              result.cycles, result.cycles == 1 ? "" : "s", result.termination.c_str(),
              result.wall_seconds, evaluator->description().c_str());
  std::printf("  %s: %s\n", result.termination.c_str(),
              TerminationMeaning(result.termination).c_str());
  PrintParameterTable(result);
  PrintRefinement(result);
  PrintIdentifiability(result.identifiability);
  PrintModelCheck(result.model_check);
  PrintStaticTests(result.static_tests);
  for (const PostureResult& p : result.postures) PrintModalComparison(p);
  for (const ModalComparisonPoints& c : result.modal_comparison_points)
    PrintModalComparisonPoints(c);
  if (!out_path.empty()) std::printf("\nwrote %s\n", out_path.c_str());
  return 0;
}

}  // namespace frfit::cli
