// Nightly fleet refits (docs/fleet.md): the synthetic fleet generator, accuracy on a small KUKA
// fleet, batching-independence of the results, kill and resume, skipped robots, run directories
// that are never reused, and the drift report.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/results/fit_result.h"
#include "frfit/fleet/fleet_generator.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kKuka = kRoot + "/datasets/kuka_kr90/model.yaml";
const std::string kKukaParams = kRoot + "/datasets/kuka_kr90/params_from34.yaml";
const std::string kCli = FRFIT_CLI_PATH;
const std::string kMakeFleet = (fs::path(FRFIT_CLI_PATH).parent_path() / "frfit-make-fleet").string();

// Fit configurations: the accuracy test uses datasets/kuka_kr90/fit.yaml's settings (smaller ones
// left a robot of some seeds in a local minimum); the others only need a fit with both phases and
// two cycles.
const char* kAccurateConfig = R"(format: frfit-fit-1
cost:
  type: log_complex
  fit_format: inertance
  band_hz: [0.2, 30]
  weights: {mode: peaks, peak_gain: 80, base_gain: 0.5, peak_halfwidth_lines: 2}
parameters: {initial: model}
genetic_algorithm: {population_size: 100, generations: 20}
nelder_mead: {max_iterations: 10000}
fitter: {max_cycles: 6, stall_cycles: 2, fitness_tolerance: 1.0}
)";
const char* kTinyConfig = test::kTinyFitConfig;
const char* kSlowerConfig = R"(format: frfit-fit-1
cost: {band_hz: [0.2, 30], weights: {mode: peaks, peak_gain: 80, base_gain: 0.5}}
genetic_algorithm: {population_size: 20, generations: 5}
nelder_mead: {max_iterations: 1200}
fitter: {max_cycles: 2, stall_cycles: 1}
)";

using test::Quote;
using test::ReadText;

nlohmann::json ReadJson(const std::string& path) { return nlohmann::json::parse(ReadText(path)); }

const nlohmann::json& RobotOf(const nlohmann::json& summary, const std::string& name) {
  for (const auto& r : summary.at("robots"))
    if (r.at("name") == name) return r;
  throw std::runtime_error("no robot " + name);
}

// The largest relative error of a fitted robot's (summary.json) modal frequencies against its
// true modes below 30 Hz (truth.json), each true mode against the nearest fitted one.
double WorstModeError(const nlohmann::json& fitted, const nlohmann::json& truth) {
  double worst = 0.0;
  for (const auto& [posture, data] : truth["postures"].items()) {
    const std::vector<double> modes =
        fitted["modal_frequencies_hz"][posture].get<std::vector<double>>();
    for (const auto& mode : data["modes"]) {
      const double f = mode["frequency_hz"].get<double>();
      if (f >= 30.0) continue;
      double nearest = 1e300;
      for (double g : modes)
        if (std::fabs(g - f) < std::fabs(nearest - f)) nearest = g;
      worst = std::max(worst, std::fabs(nearest - f) / f);
    }
  }
  return worst;
}

class FleetTest : public test::TempDirTest {
 protected:
  // A failed fleet run is diagnosed from the manifests, logs and summaries it left: keep them.
  FleetTest() { keep_dir_on_failure_ = true; }

  // A KUKA fleet scattered around the parameters of ref. [34] with 1 % noise.
  std::string Generate(const std::string& name, int robots, const char* config,
                       std::vector<std::string> postures = {"milling"}, std::uint64_t seed = 11) {
    const std::string config_path = Path(name + "_fit.yaml");
    std::ofstream(config_path) << config;
    FleetGeneratorOptions g;
    g.model = kKuka;
    g.params = kKukaParams;
    g.config = config_path;
    g.robots = robots;
    g.seed = seed;
    g.postures = postures;
    g.q_postures = {{"fleet_reach", "z2=45,z3=-60"}};
    g.out = Path(name);
    GenerateFleet(g);
    return Path(name + "/fleet.yaml");
  }

  // Two nights of a KUKA fleet measured at milling and fleet_reach with `noise` (relative): night
  // 1 fitted cold with datasets/kuka_kr90/fit.yaml into runs/night1, night 2 the same robots
  // measured again (noise drawn afresh, parameters times `drift`) with night 1's results as
  // `previous`. Returns night 2's manifest (fitted by the caller).
  std::string TwoNights(int robots, std::uint64_t seed, double noise,
                        std::vector<FleetPlantedDrift> drift = {}) {
    FleetGeneratorOptions g;
    g.model = kKuka;
    g.params = kKukaParams;
    g.config = kRoot + "/datasets/kuka_kr90/fit.yaml";
    g.robots = robots;
    g.seed = seed;
    g.noise = noise;
    g.postures = {"milling", "fleet_reach"};
    g.q_postures = {{"fleet_reach", "z2=45,z3=-60"}};
    g.out = Path("night1");
    GenerateFleet(g);
    const FleetReport first = Fleet(Path("night1/fleet.yaml"), "night1");
    EXPECT_EQ(first.ok(), robots);
    for (const FleetRobotOutcome& r : first.robots)  // the premise: last night's fits are good
      EXPECT_FALSE(r.cost_flagged())
          << r.name << " fitted night 1 at " << r.cost_over_median << " x the median";
    g.night = 2;
    g.drift = std::move(drift);
    g.previous_run = Path("runs/night1");
    g.out = Path("night2");
    GenerateFleet(g);
    return Path("night2/fleet.yaml");
  }

  // Writes a result read by ReadFitResult (parameters, cost, provenance) and then edited
  // as a previous night's result: the arrays the summary does not hold filled in, no
  // identifiability report.
  static void WriteEditedResult(FitResult result, const std::string& path) {
    const size_t np = result.parameters.size();
    result.parameter_units.assign(np, "");
    result.initial_parameters = result.parameters;
    result.lower.assign(np, 0.0);
    result.upper.assign(np, 0.0);
    result.free.assign(np, 1);
    WriteFitResult(path, result);
  }

  // The checkpoint at `path` as it is now; null while there is none (or it is being replaced).
  static nlohmann::json ReadCheckpoint(const std::string& path) {
    try {
      return ReadJson(path);
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  // Runs `frfit fleet` on `manifest` into runs/<run_id> (resuming it with `resume`), with a
  // checkpoint every `every` evaluations, and kills it (SIGKILL) as soon as its checkpoint
  // satisfies `until`; false if the fleet finished first.
  bool RunAndKill(const std::string& manifest, const std::string& run_id, bool resume, int every,
                  const std::function<bool(const nlohmann::json&)>& until) {
    const std::string runs = Path("runs");
    fs::create_directories(runs);
    const std::string checkpoint = Path("runs/" + run_id + "/checkpoint.json");
    const std::string every_text = std::to_string(every);
    const pid_t pid = ::fork();
    if (pid < 0) {  // never kill(-1, …) below: that would signal every process of the user
      ADD_FAILURE() << "fork failed";
      return false;
    }
    if (pid == 0) {
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      ::execl(kCli.c_str(), kCli.c_str(), "fleet", "--manifest", manifest.c_str(), "--out",
              runs.c_str(), "--run-id", run_id.c_str(), "--backend", "cpu", "--threads", "2",
              "--checkpoint-every", every_text.c_str(), "--quiet",
              resume ? "--resume" : static_cast<char*>(nullptr), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!until(ReadCheckpoint(checkpoint)) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFSIGNALED(status);
  }

  // The robot's outcome in runs/<run_a> and runs/<run_b> is the same: cost, evaluations,
  // parameters and fallback (compared with ==), and its result file's cost history row by row.
  void ExpectSameRobot(const std::string& run_a, const std::string& run_b,
                       const std::string& name) {
    const nlohmann::json summary_a = ReadJson(Path("runs/" + run_a + "/summary.json"));
    const nlohmann::json summary_b = ReadJson(Path("runs/" + run_b + "/summary.json"));
    const nlohmann::json& a = RobotOf(summary_a, name);
    const nlohmann::json& b = RobotOf(summary_b, name);
    EXPECT_EQ(a["cost"].get<double>(), b["cost"].get<double>()) << name;
    EXPECT_EQ(a["evaluations"], b["evaluations"]) << name;
    EXPECT_EQ(a.value("fallback", nlohmann::json()), b.value("fallback", nlohmann::json())) << name;
    for (const auto& [p, value] : a["parameters"].items())
      EXPECT_EQ(value.get<double>(), b["parameters"][p].get<double>()) << name << " " << p;
    // The cost history too: the rows before a kill come back from checkpoint.history.
    const FitResult ra = ReadFitResult(Path("runs/" + run_a + "/" + name + ".h5"));
    const FitResult rb = ReadFitResult(Path("runs/" + run_b + "/" + name + ".h5"));
    ASSERT_EQ(ra.history.size(), rb.history.size()) << name;
    for (size_t k = 0; k < ra.history.size(); ++k) {
      EXPECT_EQ(ra.history[k].cycle, rb.history[k].cycle) << name << " row " << k;
      EXPECT_EQ(ra.history[k].phase, rb.history[k].phase) << name << " row " << k;
      EXPECT_EQ(ra.history[k].step, rb.history[k].step) << name << " row " << k;
      EXPECT_EQ(ra.history[k].evaluations, rb.history[k].evaluations) << name << " row " << k;
      EXPECT_EQ(ra.history[k].best_cost, rb.history[k].best_cost) << name << " row " << k;
    }
  }

  FleetReport Fleet(const std::string& manifest, const std::string& run_id, int threads = 2) {
    FleetRunOptions o;
    o.manifest = manifest;
    o.out = Path("runs");
    o.run_id = run_id;
    o.evaluator.backend = BackendType::kCpu;
    o.evaluator.threads = threads;
    return RunFleet(o);
  }

  // Runs a command line, stdout and stderr to out.txt and err.txt; returns the exit status.
  int Shell(const std::string& command, std::string* err = nullptr) {
    const test::CliResult r = test::RunShell(command, Path("out.txt"), Path("err.txt"));
    if (err) *err = r.err;
    return r.status;
  }
};

// --- generator --------------------------------------------------------------------------------

TEST_F(FleetTest, FleetGeneratorIsDeterministicForASeed) {
  auto make = [&](const std::string& out, int seed) {
    return Shell(Quote(kMakeFleet) + " --model " + Quote(kKuka) + " --params " + Quote(kKukaParams) +
                 " --robots 3 --seed " + std::to_string(seed) +
                 " --postures milling,fleet_reach --q-postures 'fleet_reach:z2=45,z3=-60' --perturb 0.2 --noise 0.01"
                 " --band 0.2:30:0.2 --format inertance --out " + Quote(Path(out)));
  };
  ASSERT_EQ(make("a", 5), 0) << ReadText(Path("err.txt"));
  ASSERT_EQ(make("b", 5), 0);
  ASSERT_EQ(make("c", 6), 0);
  for (const char* file : {"truth.json", "fleet.yaml", "model.yaml"})
    EXPECT_EQ(ReadText(Path(std::string("a/") + file)), ReadText(Path(std::string("b/") + file))) << file;
  EXPECT_NE(ReadText(Path("a/truth.json")), ReadText(Path("c/truth.json")));
  for (const char* robot : {"robot_000", "robot_001", "robot_002"})
    for (const char* posture : {"milling", "fleet_reach"}) {
      const std::string rel = std::string(robot) + "/frf_" + posture + ".h5";
      const FrfSet a = ReadFrfSet(Path("a/" + rel)), b = ReadFrfSet(Path("b/" + rel)), c = ReadFrfSet(Path("c/" + rel));
      EXPECT_EQ(a.posture, posture);
      EXPECT_EQ(a.frequency_hz, b.frequency_hz);
      EXPECT_EQ(a.H, b.H) << rel;
      auto without_path = [](std::vector<std::pair<std::string, std::string>> p) {
        std::erase_if(p, [](const auto& kv) { return kv.first == "model_file"; });  // names DIR
        return p;
      };
      EXPECT_EQ(without_path(a.provenance), without_path(b.provenance));
      EXPECT_NE(a.H, c.H);
    }
  // The provenance names the true parameters; the noise level is recorded.
  const FrfSet set = ReadFrfSet(Path("a/robot_001/frf_milling.h5"));
  const nlohmann::json truth = ReadJson(Path("a/truth.json"));
  std::string params, noise;
  for (const auto& [k, v] : set.provenance) {
    if (k == "parameters") params = v;
    if (k == "noise_relative") noise = v;
  }
  EXPECT_EQ(noise, "0.01");
  EXPECT_NE(params.find("k_z1=" + FormatDouble(truth["robots"][1]["parameters"]["k_z1"].get<double>())),
            std::string::npos);
  // A robot's data do not depend on how many robots the fleet has.
  ASSERT_EQ(Shell(Quote(kMakeFleet) + " --model " + Quote(kKuka) + " --params " + Quote(kKukaParams) +
                  " --robots 1 --seed 5 --postures milling,fleet_reach --q-postures 'fleet_reach:z2=45,z3=-60' --out " +
                  Quote(Path("d"))),
            0);
  EXPECT_EQ(ReadFrfSet(Path("d/robot_000/frf_fleet_reach.h5")).H, ReadFrfSet(Path("a/robot_000/frf_fleet_reach.h5")).H);
  // Unknown postures are refused with the ones the model has.
  std::string err;
  EXPECT_EQ(Shell(Quote(kMakeFleet) + " --model " + Quote(kKuka) + " --robots 1 --postures nope --out " +
                      Quote(Path("e")), &err), 1);
  EXPECT_NE(err.find("no posture 'nope'"), std::string::npos) << err;
}

TEST_F(FleetTest, FleetManifestIsStrict) {
  std::ofstream(Path("m.yaml")) << "format: frfit-fleet-1\nmodel: m.yaml\nrobots:\n  - {name: a, frf: [x.h5], sed: 3}\n";
  try {
    LoadFleetManifest(Path("m.yaml"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("robots[0].sed (line 4): unknown key"), std::string::npos) << e.what();
  }
  std::ofstream(Path("m.yaml")) << "format: frfit-fleet-1\nmodel: m.yaml\nseed: 9\nrobots:\n"
                                   "  - {name: a, frf: x.h5}\n  - {name: b, frf: [y.h5], seed: 4, previous: p/r.h5}\n";
  const FleetManifest m = LoadFleetManifest(Path("m.yaml"));
  ASSERT_EQ(m.robots.size(), 2u);
  EXPECT_EQ(m.robots[0].seed, FleetRobotSeed(9, "a"));
  EXPECT_EQ(m.robots[1].seed, 4u);
  EXPECT_EQ(m.robots[1].previous, Path("p/r.h5"));
  EXPECT_EQ(m.robots[0].model, Path("m.yaml"));
  EXPECT_NE(FleetRobotSeed(9, "a"), FleetRobotSeed(9, "b"));
  // Defaults: least-squares warm starts that fall back, drift beyond 4 sigma.
  EXPECT_EQ(m.warm_start.method, WarmStartMethod::kLevenbergMarquardt);
  EXPECT_EQ(m.warm_start.starts, 4);
  EXPECT_TRUE(m.warm_start.fallback);
  EXPECT_EQ(m.drift.sigma, 4.0);
  EXPECT_EQ(m.drift.parameter_percent, 0.0);
  // A key of the other warm-start method, an unknown method, a sigma of 0: refused, named.
  const std::string robots = "robots:\n  - {name: a, frf: x.h5}\n";
  for (const auto& [section, expected] : std::vector<std::pair<std::string, std::string>>{
           {"warm_start: {generations: 3}",
            "warm_start.generations (line 3): applies only to method: genetic_algorithm"},
           {"warm_start: {method: genetic_algorithm, starts: 3}",
            "warm_start.starts (line 3): applies only to method: levenberg_marquardt"},
           {"warm_start: {method: nelder_mead}",
            "warm_start.method (line 3): expected levenberg_marquardt or genetic_algorithm"},
           {"warm_start: {max_cost_over_previous: 0.5}",
            "warm_start.max_cost_over_previous (line 3): expected a value >= 1"},
           {"drift: {sigma: 0}", "drift.sigma (line 3)"},
           {"drift: {percent: 3}", "drift.percent (line 3): unknown key"}}) {
    std::ofstream(Path("m.yaml")) << "format: frfit-fleet-1\nmodel: m.yaml\n"
                                  << section << "\n"
                                  << robots;
    try {
      LoadFleetManifest(Path("m.yaml"));
      ADD_FAILURE() << "accepted " << section;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  std::ofstream(Path("m.yaml"))
      << "format: frfit-fleet-1\nmodel: m.yaml\n"
         "warm_start: {method: genetic_algorithm, generations: 2, init_spread: 0.1}\n"
         "drift: {sigma: 3, parameter_percent: 2}\n"
      << robots;
  const FleetManifest g = LoadFleetManifest(Path("m.yaml"));
  EXPECT_EQ(g.warm_start.method, WarmStartMethod::kGeneticAlgorithm);
  EXPECT_EQ(g.warm_start.generations, 2);
  EXPECT_EQ(g.warm_start.init_spread, 0.1);
  EXPECT_EQ(g.drift.sigma, 3.0);
  EXPECT_EQ(g.drift.parameter_percent, 2.0);
  EXPECT_EQ(g.drift.frequency_percent, 0.0);
}

// --- accuracy -----------------------------------------------------------------------------------

TEST_F(FleetTest, FleetRecoversEveryRobotsModesWithinOnePercent) {
  const std::string manifest = Generate("fleet", 4, kAccurateConfig, {"milling", "fleet_reach"});
  const auto t0 = std::chrono::steady_clock::now();
  const FleetReport report = Fleet(manifest, "night1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(report.ok(), 4);
  const nlohmann::json truth = ReadJson(Path("fleet/truth.json"));
  const nlohmann::json summary = ReadJson(Path("runs/night1/summary.json"));
  // The time split: evaluator within the fitting loop within the process, all of it spent.
  EXPECT_GT(summary["evaluator_seconds"].get<double>(), 0.0);
  EXPECT_LE(summary["evaluator_seconds"].get<double>(), summary["drive_seconds"].get<double>());
  EXPECT_LE(summary["drive_seconds"].get<double>(), summary["wall_seconds"].get<double>());
  EXPECT_LE(summary["wall_seconds"].get<double>(), seconds);
  for (const auto& robot : truth["robots"]) {
    const nlohmann::json& fitted = RobotOf(summary, robot["name"]);
    EXPECT_EQ(fitted["status"], "ok");
    EXPECT_FALSE(fitted.contains("drift"));
    EXPECT_LT(WorstModeError(fitted, robot), 0.01) << robot["name"];
    EXPECT_TRUE(fs::exists(Path("runs/night1/" + robot["name"].get<std::string>() + ".h5")));
  }
  EXPECT_TRUE(fs::exists(Path("runs/night1/summary.csv")));
  EXPECT_TRUE(fs::exists(Path("runs/night1/drift.json")));
  EXPECT_FALSE(fs::exists(Path("runs/night1/checkpoint.json")));
  std::printf("[ fleet    ] 4 KUKA robots x 2 postures, %lld evaluations in %.1f s: %.0f robots/hour\n",
              static_cast<long long>(report.evaluations), seconds, 4 * 3600.0 / seconds);
}

// --- batching does not change results ---------------------------------------------------------

TEST_F(FleetTest, FleetResultsEqualSeparateSingleRobotRuns) {
  const std::string manifest = Generate("fleet", 3, kTinyConfig);
  Fleet(manifest, "batched", 2);
  const nlohmann::json batched = ReadJson(Path("runs/batched/summary.json"));
  const FleetManifest m = LoadFleetManifest(manifest);
  for (const FleetRobot& robot : m.robots) {
    // The same robot alone in a fleet of one (its seed derives from the base seed and its name).
    const std::string single = Path("fleet/single_" + robot.name + ".yaml");
    std::ofstream(single) << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 11\nrobots:\n"
                             "  - {name: " << robot.name << ", frf: [" << robot.name << "/frf_milling.h5]}\n";
    Fleet(single, "single_" + robot.name, 1);
    const nlohmann::json alone = ReadJson(Path("runs/single_" + robot.name + "/summary.json"));
    const nlohmann::json& a = RobotOf(batched, robot.name);
    const nlohmann::json& b = RobotOf(alone, robot.name);
    EXPECT_EQ(a["seed"], b["seed"]);
    EXPECT_EQ(a["cost"].get<double>(), b["cost"].get<double>()) << robot.name;
    EXPECT_EQ(a["evaluations"], b["evaluations"]);
    for (const auto& [name, value] : a["parameters"].items())
      EXPECT_EQ(value.get<double>(), b["parameters"][name].get<double>()) << robot.name << " " << name;
  }
  // And `frfit fit` with the derived seed gives the same fit as the fleet.
  const FleetRobot& r = m.robots[1];
  ASSERT_EQ(Shell(Quote(kCli) + " fit --model " + Quote(Path("fleet/model.yaml")) + " --frf " + Quote(r.frf[0]) +
                  " --config " + Quote(Path("fleet/fit.yaml")) + " --seed " + std::to_string(r.seed) +
                  " --backend cpu --threads 2 --json"),
            0)
      << ReadText(Path("err.txt"));
  const nlohmann::json fit = nlohmann::json::parse(ReadText(Path("out.txt")));
  const nlohmann::json& a = RobotOf(batched, r.name);
  EXPECT_EQ(fit["cost"].get<double>(), a["cost"].get<double>());
  for (const auto& [name, value] : a["parameters"].items())
    EXPECT_EQ(value.get<double>(), fit["parameters"][name].get<double>()) << name;
}

// --- kill and resume ----------------------------------------------------------------------------

TEST_F(FleetTest, FleetResumesBitIdenticallyAfterKill) {
  const std::string manifest = Generate("fleet", 2, kSlowerConfig);
  const std::string runs = Path("runs");
  fs::create_directories(runs);
  const std::string checkpoint = Path("runs/killed/checkpoint.json");
  const std::string history_log = Path("runs/killed/checkpoint.history");
  // The history bytes the checkpoint covers, 0 while there is none (or it is being replaced).
  auto checkpointed_bytes = [&]() -> long long {
    const nlohmann::json j = ReadCheckpoint(checkpoint);
    return j.is_object() ? j.at("history_bytes").get<long long>() : 0;
  };
  // Runs the fleet (resuming it with `resume`) and kills it once a checkpoint covers more history
  // than `past_bytes`; false if the fleet finished first.
  auto run_and_kill = [&](bool resume, long long past_bytes) {
    return RunAndKill(manifest, "killed", resume, 400, [&](const nlohmann::json& j) {
      return j.is_object() && j.at("history_bytes").get<long long>() > past_bytes;
    });
  };
  ASSERT_TRUE(run_and_kill(false, 0)) << "the fleet finished before it could be killed";
  ASSERT_TRUE(fs::exists(checkpoint));
  ASSERT_FALSE(fs::exists(Path("runs/killed/summary.json")));
  // The checkpoint holds each robot's history as a row count; the rows are in checkpoint.history,
  // which covers at least the bytes the checkpoint records (more if killed between the two writes).
  const nlohmann::json saved = ReadJson(checkpoint);
  ASSERT_TRUE(fs::exists(history_log));
  EXPECT_GE(static_cast<long long>(fs::file_size(history_log)), saved.at("history_bytes").get<long long>());
  long long rows = 0;
  for (const auto& state : saved.at("runs")) {
    EXPECT_FALSE(state.contains("history"));
    rows += state.at("history_rows").get<long long>();
  }
  EXPECT_GT(rows, 0);
  EXPECT_EQ(saved.at("history_bytes").get<long long>(), 8 + 32 * rows);
  // Killed again after the resumed run's own checkpoint: the log a resumed run appends to must
  // hold each row once for the next resume.
  ASSERT_TRUE(run_and_kill(true, checkpointed_bytes())) << "the resumed fleet finished before it could be killed";

  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(manifest) + " --out " + Quote(runs) +
                      " --run-id killed --resume --backend cpu --threads 1 --checkpoint-every 400",
                  &err),
            0)
      << err;
  EXPECT_NE(err.find("resuming run killed"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(checkpoint));
  EXPECT_FALSE(fs::exists(history_log));
  Fleet(manifest, "straight");
  const nlohmann::json resumed = ReadJson(Path("runs/killed/summary.json"));
  EXPECT_GT(resumed["resumed_at_evaluations"].get<long long>(), 0);
  // The run started when its first part did, not when it was resumed.
  EXPECT_EQ(resumed.value("started_utc", ""), saved.value("started_utc", "none"));
  for (const char* name : {"robot_000", "robot_001"}) ExpectSameRobot("killed", "straight", name);
  // A finished run is not resumed again.
  EXPECT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(manifest) + " --out " + Quote(runs) +
                      " --run-id killed --resume", &err),
            1);
  EXPECT_NE(err.find("is complete"), std::string::npos) << err;
}

// --- bad robots are skipped; run directories are never reused -----------------------------------

TEST_F(FleetTest, FleetSkipsBadRobotsAndRefusesToReuseARunId) {
  Generate("fleet", 3, kTinyConfig, {"milling", "fleet_reach"});
  // robot_001's milling file with one NaN line (no drop_bad_lines in the configuration).
  FrfSet bad = ReadFrfSet(Path("fleet/robot_001/frf_milling.h5"));
  bad.at(20, 1, 1) = std::complex<double>(std::nan(""), 0.0);
  WriteFrfSet(Path("fleet/robot_001/frf_nan.h5"), bad);
  std::ofstream(Path("fleet/fleet.yaml"))
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 3\nrobots:\n"
         "  - {name: good, frf: [robot_000/frf_milling.h5]}\n"
         "  - {name: missing, frf: [robot_002/frf_milling.h5, robot_002/frf_absent.h5]}\n"
         "  - {name: nan_line, frf: [robot_001/frf_nan.h5]}\n"
         "  - {name: unknown_posture, model: " << kKuka << ", frf: [robot_002/frf_fleet_reach.h5]}\n"
         "  - {name: also_good, frf: [robot_002/frf_milling.h5, robot_002/frf_fleet_reach.h5]}\n";
  std::vector<std::string> lines;
  FleetRunOptions o;
  o.manifest = Path("fleet/fleet.yaml");
  o.out = Path("runs");
  o.run_id = "n1";
  o.evaluator.threads = 2;
  o.log = [&](const std::string& line) { lines.push_back(line); };
  const FleetReport report = RunFleet(o);
  EXPECT_EQ(report.ok(), 2);
  EXPECT_EQ(report.skipped(), 3);
  const nlohmann::json summary = ReadJson(Path("runs/n1/summary.json"));
  EXPECT_EQ(RobotOf(summary, "good")["status"], "ok");
  EXPECT_EQ(RobotOf(summary, "also_good")["status"], "ok");
  const std::string missing = RobotOf(summary, "missing")["reason"];
  const std::string nan_line = RobotOf(summary, "nan_line")["reason"];
  const std::string unknown = RobotOf(summary, "unknown_posture")["reason"];
  EXPECT_NE(missing.find("frf_absent.h5"), std::string::npos) << missing;
  EXPECT_NE(nan_line.find("not finite"), std::string::npos) << nan_line;
  EXPECT_NE(nan_line.find("drop_bad_lines"), std::string::npos) << nan_line;
  EXPECT_NE(unknown.find("no posture 'fleet_reach'"), std::string::npos) << unknown;
  EXPECT_TRUE(fs::exists(Path("runs/n1/good.h5")));
  EXPECT_FALSE(fs::exists(Path("runs/n1/missing.h5")));
  const std::string csv = ReadText(Path("runs/n1/summary.csv"));
  EXPECT_NE(csv.find("\nnan_line,skipped,"), std::string::npos) << csv;
  int skip_lines = 0;
  for (const std::string& line : lines) skip_lines += line.rfind("frfit fleet: skipping robot", 0) == 0;
  EXPECT_EQ(skip_lines, 3);

  // The same run id again is refused and leaves the earlier night untouched.
  const std::string before = ReadText(Path("runs/n1/summary.json"));
  std::string err;
  EXPECT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(Path("fleet/fleet.yaml")) + " --out " +
                      Quote(Path("runs")) + " --run-id n1 --quiet", &err),
            1);
  EXPECT_NE(err.find("refusing to overwrite"), std::string::npos) << err;
  EXPECT_EQ(ReadText(Path("runs/n1/summary.json")), before);
  EXPECT_THROW(RunFleet(o), Error);

  // A checkpoint period that is not a number >= 0 is refused before any work, naming the option.
  for (const std::string period : {"soon", "-1", "inf"}) {
    err.clear();
    EXPECT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(Path("fleet/fleet.yaml")) +
                        " --out " + Quote(Path("runs")) + " --run-id n2 --quiet --checkpoint-seconds " +
                        period,
                    &err),
              1)
        << period;
    EXPECT_NE(err.find("--checkpoint-seconds"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(Path("runs/n2"))) << period;
  }
}

// A fit configuration with a regularization block: every robot is skipped with one line saying
// why (a warm start would move its nominal; the auto weight's refits are frfit fit's).
TEST_F(FleetTest, FleetRefusesARegularizationBlock) {
  const std::string text = std::string(R"(format: frfit-fit-1
cost: {band_hz: [0.2, 30], weights: {mode: noise}}
genetic_algorithm: {population_size: 16, generations: 0}
regularization: {weight: auto}
)");
  const std::string manifest = Generate("fleet", 1, text.c_str());
  FleetRunOptions o;
  o.manifest = manifest;
  o.out = Path("runs");
  o.run_id = "n1";
  const FleetReport report = RunFleet(o);
  EXPECT_EQ(report.ok(), 0);
  const nlohmann::json summary = ReadJson(Path("runs/n1/summary.json"));
  const std::string reason = RobotOf(summary, "robot_000")["reason"];
  EXPECT_NE(reason.find("regularization: expected no regularization block"), std::string::npos)
      << reason;
}

// A resumed run whose directory holds an input under an output's name (here a robot's FRF file
// named like its result) is refused before any work, and the input is left as it was.
TEST_F(FleetTest, FleetRefusesARunDirectoryWhoseOutputWouldOverwriteAnInput) {
  Generate("fleet", 1, kTinyConfig);
  fs::create_directories(Path("runs/night"));
  fs::copy_file(Path("fleet/robot_000/frf_milling.h5"), Path("runs/night/good.h5"));
  std::ofstream(Path("fleet/fleet.yaml"))
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nrobots:\n"
         "  - {name: good, frf: [../runs/night/good.h5]}\n";
  const std::string before = ReadText(Path("runs/night/good.h5"));
  FleetRunOptions o;
  o.manifest = Path("fleet/fleet.yaml");
  o.out = Path("runs");
  o.run_id = "night";
  o.resume = true;
  try {
    RunFleet(o);
    ADD_FAILURE() << "the run overwrote its own input";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("would overwrite"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ReadText(Path("runs/night/good.h5")), before);
}

// On a terminal the progress is one line that updates in place (carriage return, erase line),
// as `frfit fit` shows it, not a new line every --progress-every rounds.
TEST_F(FleetTest, FleetProgressOnATerminalIsOneUpdatingLine) {
  const std::string manifest = Generate("fleet", 2, kTinyConfig);
  int terminal = -1;
  const std::string runs = Path("runs");
  std::vector<char*> argv;
  std::vector<std::string> args = {kCli,       "fleet", "--manifest", manifest, "--out",     runs,
                                   "--run-id", "tty",   "--backend",  "cpu",    "--threads", "2"};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0) << "no pseudo-terminal here";
  if (pid == 0) {  // stderr is the terminal; stdout (the summary table) goes nowhere
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execv(kCli.c_str(), argv.data());
    ::_exit(127);
  }
  std::string seen;
  char buffer[4096];
  for (ssize_t n; (n = ::read(terminal, buffer, sizeof buffer)) > 0;) seen.append(buffer, n);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(terminal);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << seen;
  int updates = 0;
  for (size_t at = 0; (at = seen.find("round ", at)) != std::string::npos; at += 6, ++updates)
    EXPECT_EQ(seen.compare(at - 4, 4, "\r\033[K"), 0)
        << "an update that does not rewrite the line: " << seen;
  EXPECT_GE(updates, 2) << seen;
  // The backend line and the end of the progress line; nothing else starts a new line.
  EXPECT_EQ(std::count(seen.begin(), seen.end(), '\n'), 2) << seen;
}

// A robot whose data its model cannot explain (here its FRFs ten times too large, as after a
// wrong calibration) fits much worse than its siblings: the index, the table and summary.json
// flag it against the fleet's median cost instead of calling it "ok".
TEST_F(FleetTest, FleetFlagsARobotWhoseCostIsFarAboveTheMedian) {
  // The paper's 3-joint robots: their fits converge in under a second each, so the costs of the
  // good robots are the noise floor and comparable.
  FleetGeneratorOptions g;
  g.model = kRoot + "/datasets/paper_3dof/model.yaml";
  g.params = kRoot + "/datasets/paper_3dof/params_table1.yaml";
  g.config = kRoot + "/datasets/paper_3dof/fit.yaml";
  g.robots = 3;
  g.postures = {"milling"};
  g.out = Path("fleet");
  GenerateFleet(g);
  FrfSet scaled = ReadFrfSet(Path("fleet/robot_002/frf_milling.h5"));
  for (auto& h : scaled.H) h *= 10.0;
  WriteFrfSet(Path("fleet/robot_002/frf_scaled.h5"), scaled);
  std::ofstream(Path("fleet/fleet.yaml"))
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nrobots:\n"
         "  - {name: a, frf: [robot_000/frf_milling.h5]}\n"
         "  - {name: b, frf: [robot_001/frf_milling.h5]}\n"
         "  - {name: miscalibrated, frf: [robot_002/frf_scaled.h5]}\n";
  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(Path("fleet/fleet.yaml")) + " --out " +
                      Quote(Path("runs")) + " --run-id n --backend cpu --threads 2 --quiet",
                  &err),
            0)
      << err;
  const nlohmann::json summary = ReadJson(Path("runs/n/summary.json"));
  const double bad = RobotOf(summary, "miscalibrated")["cost_over_median"].get<double>();
  EXPECT_GT(bad, kFleetHighCostFactor);
  EXPECT_TRUE(RobotOf(summary, "miscalibrated")["cost_flagged"].get<bool>());
  for (const char* good : {"a", "b"}) {
    EXPECT_LT(RobotOf(summary, good)["cost_over_median"].get<double>(), kFleetHighCostFactor)
        << good;
    EXPECT_FALSE(RobotOf(summary, good)["cost_flagged"].get<bool>()) << good;
  }
  const std::string index = ReadText(Path("runs/n/index.html"));
  const size_t row = index.find("<td class=\"robot\">miscalibrated</td>");
  ASSERT_NE(row, std::string::npos) << index;
  EXPECT_NE(index.rfind("<tr class=\"fleet-row status-high_cost\">", row), std::string::npos);
  EXPECT_EQ(index.find("fleet-row status-high_cost"), index.rfind("fleet-row status-high_cost"))
      << index;
  const std::string table = ReadText(Path("out.txt"));
  EXPECT_NE(table.find("HIGH COST"), std::string::npos) << table;
}

// --- drift ----------------------------------------------------------------------------------------

TEST_F(FleetTest, FleetDriftReportFlagsAParameterThatMoved) {
  const std::string manifest = Generate("fleet", 2, kSlowerConfig);
  Fleet(manifest, "night1");
  // Last night's result of robot_000, with k_z2 1.6 times lower than what tonight's data say.
  FitResult previous = ReadFitResult(Path("runs/night1/robot_000.h5"));
  const size_t np = previous.parameters.size();
  size_t kx2 = np;
  for (size_t k = 0; k < np; ++k)
    if (previous.parameter_names[k] == "k_z2") kx2 = k;
  ASSERT_LT(kx2, np);
  previous.parameters[kx2] /= 1.6;
  WriteEditedResult(previous, Path("previous_robot_000.h5"));
  std::ofstream(Path("fleet/night2.yaml"))
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 11\n"
         "drift: {parameter_percent: 10, frequency_percent: 1}\n"
         "robots:\n  - {name: robot_000, frf: [robot_000/frf_milling.h5], previous: "
         "../previous_robot_000.h5}\n"
         "  - {name: robot_001, frf: [robot_001/frf_milling.h5]}\n";
  const FleetReport report = Fleet(Path("fleet/night2.yaml"), "night2");
  ASSERT_EQ(report.ok(), 2);
  const nlohmann::json summary = ReadJson(Path("runs/night2/summary.json"));
  const nlohmann::json& warm = RobotOf(summary, "robot_000");
  EXPECT_TRUE(warm["warm_start"].get<bool>());
  ASSERT_TRUE(warm.contains("drift"));
  const auto flagged = warm["drift"]["flagged_parameters"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(flagged.begin(), flagged.end(), "k_z2"), flagged.end()) << warm["drift"].dump();
  EXPECT_TRUE(warm["drift"]["flagged"].get<bool>());
  for (const auto& p : warm["drift"]["parameters"])
    if (p["name"] == "k_z2") EXPECT_GT(p["change_percent"].get<double>(), 10.0);
  EXPECT_FALSE(RobotOf(summary, "robot_001").contains("drift"));
  EXPECT_FALSE(RobotOf(summary, "robot_001")["warm_start"].get<bool>());
  const nlohmann::json drift = ReadJson(Path("runs/night2/drift.json"));
  ASSERT_EQ(drift["robots"].size(), 1u);
  EXPECT_EQ(drift["robots"][0]["name"], "robot_000");
  EXPECT_NE(ReadText(Path("runs/night2/drift.txt")).find("k_z2"), std::string::npos);
  EXPECT_NE(ReadText(Path("runs/night2/summary.csv")).find("k_z2"), std::string::npos);
  // The index page: a row per robot, the drifted one flagged with k_z2, links to the reports.
  const std::string index = ReadText(Path("runs/night2/index.html"));
  EXPECT_NE(index.find("robot_000.html"), std::string::npos);
  EXPECT_NE(index.find("robot_001.html"), std::string::npos);
  const auto row = index.find("robot_000.html");
  EXPECT_NE(index.find("k_z2", row), std::string::npos);
  EXPECT_TRUE(fs::exists(Path("runs/night2/robot_000.html")));
}

// --- warm nights by least squares, the fallback, drift with its 1-sigma
// ---------------------------

// A night after a good one: every robot starts from its previous result and refines it by
// least squares (its 4 starts, no GA generation, one cycle), ends within 1 % of its true modes,
// and the fleet needs a fraction of the first night's evaluations. Noise alone moves nothing
// beyond the drift rule.
TEST_F(FleetTest, FleetWarmNightRefinesThePreviousResultsByLeastSquares) {
  const FleetReport report = Fleet(TwoNights(6, 12, 0.02), "night2");
  ASSERT_EQ(report.ok(), 6);
  EXPECT_EQ(report.fell_back(), 0);
  const nlohmann::json first = ReadJson(Path("runs/night1/summary.json"));
  const nlohmann::json second = ReadJson(Path("runs/night2/summary.json"));
  const nlohmann::json truth = ReadJson(Path("night2/truth.json"));
  long long cold = 0, warm = 0;
  for (const auto& robot : truth["robots"]) {
    const std::string name = robot["name"];
    const nlohmann::json& a = RobotOf(first, name);
    const nlohmann::json& b = RobotOf(second, name);
    EXPECT_TRUE(b["warm_start"].get<bool>()) << name;
    EXPECT_EQ(b["warm_start_method"], "levenberg_marquardt");
    EXPECT_TRUE(b["fallback"].is_null()) << b["fallback"].dump();
    EXPECT_GT(b["previous_cost"].get<double>(), 0.0);
    EXPECT_LT(WorstModeError(b, robot), 0.01) << name;
    EXPECT_FALSE(b["drift"]["flagged"].get<bool>()) << name << ": " << b["drift"].dump();
    // The robots' data are of the model's own class: the model check finds nothing.
    EXPECT_EQ(b["model_check"]["verdict"], "consistent") << name << ": " << b["model_check"].dump();
    // Unchanged robots take the short path: an initial population of the previous point and one
    // within 1e-9 of it, then least squares from one start only.
    EXPECT_EQ(b["path"], "short") << name;
    const FitResult data = ReadFitResult(Path("runs/night2/" + name + ".h5"));
    ASSERT_FALSE(data.history.empty());
    EXPECT_EQ(PhaseCode(data.history[0].phase), PhaseCode(FitPhase::kGeneticAlgorithm));
    EXPECT_EQ(data.history[0].evaluations, 2);
    for (size_t k = 1; k < data.history.size(); ++k) {
      EXPECT_EQ(PhaseCode(data.history[k].phase), PhaseCode(FitPhase::kLevenbergMarquardt))
          << name << " row " << k;
      EXPECT_EQ(data.history[k].cycle, 1) << name << " row " << k;
    }
    cold += a["evaluations"].get<long long>();
    warm += b["evaluations"].get<long long>();
  }
  EXPECT_LT(3 * warm, cold) << "warm " << warm << ", cold " << cold;
  // The rounds count the least-squares calls too (the GA's initial population is one round).
  EXPECT_GT(second["rounds"].get<long long>(), 10);
  EXPECT_GT(second["evaluator_seconds"].get<double>(), 0.0);
  // The night's time by stage (what --json prints too): every stage named, none negative,
  // together within the wall time, and the fitting loop within the two passes of the fit.
  const nlohmann::json& stages = second["stage_seconds"];
  double sum = 0.0;
  for (const char* stage :
       {"load", "check_inputs", "fit", "fallback", "results", "drift", "reports", "summary"}) {
    ASSERT_TRUE(stages.contains(stage)) << stages.dump();
    EXPECT_GE(stages[stage].get<double>(), 0.0) << stage;
    sum += stages[stage].get<double>();
  }
  EXPECT_EQ(stages.size(), 8u) << stages.dump();
  EXPECT_LE(sum, second["wall_seconds"].get<double>() + 1e-9) << stages.dump();
  EXPECT_LE(second["drive_seconds"].get<double>(),
            stages["fit"].get<double>() + stages["fallback"].get<double>() + 1e-9);
  EXPECT_GT(stages["load"].get<double>(), 0.0);
  EXPECT_GT(stages["results"].get<double>(), 0.0);
  EXPECT_GT(stages["reports"].get<double>(), 0.0);
  // The index says how each robot started and shows the parameters across the fleet.
  const std::string index = ReadText(Path("runs/night2/index.html"));
  EXPECT_NE(index.find("<td class=\"start\">warm</td>"), std::string::npos);
  EXPECT_NE(index.find("Parameters across the fleet"), std::string::npos);
  EXPECT_EQ(second["parameter_spread"].size(), 18u);
}

// The planted drift: six robots measured again with fresh 2 % noise, robot_003's k_z2 5 % higher.
// Only that robot and that parameter are flagged: the change is many of its 1-sigma, while the
// noise moves no determined parameter that far and the poorly determined ones (dampings) move a
// lot in percent but within their 1-sigma.
TEST_F(FleetTest, FleetDriftFlagsThePlantedChangeAndNothingElse) {
  const FleetReport report = Fleet(TwoNights(6, 11, 0.02, {{"robot_003", "k_z2", 1.05}}), "night2");
  ASSERT_EQ(report.ok(), 6);
  std::set<std::string> flagged, robots_flagged, by_percent;
  const FleetDriftParameter* planted = nullptr;
  for (const FleetRobotOutcome& r : report.robots) {
    ASSERT_TRUE(r.has_drift) << r.name;
    if (r.drift_flagged()) robots_flagged.insert(r.name);
    for (const FleetDriftParameter& d : r.drift_parameters) {
      if (d.flagged) flagged.insert(r.name + " " + d.name);
      if (r.name == "robot_003" && d.name == "k_z2") planted = &d;
      if (std::fabs(d.change_percent) > 10.0) by_percent.insert(r.name + " " + d.name);
    }
    for (const FleetDriftFrequency& d : r.drift_frequencies)
      if (std::fabs(d.change_percent) > 1.0) by_percent.insert(r.name + " " + d.posture);
  }
  EXPECT_EQ(flagged, std::set<std::string>{"robot_003 k_z2"});
  EXPECT_EQ(robots_flagged, std::set<std::string>{"robot_003"});  // its modes may move, no other's
  ASSERT_NE(planted, nullptr);
  EXPECT_NEAR(planted->change_percent, 5.0, 1.0);
  EXPECT_GT(planted->z, 2 * report.drift.sigma);
  EXPECT_GT(planted->sigma, 0.0);
  // The rule of before (10 % for a parameter, 1 % for a frequency) would have missed it and
  // flagged noise instead.
  EXPECT_EQ(by_percent.count("robot_003 k_z2"), 0u);
  EXPECT_FALSE(by_percent.empty());
  // drift.json carries the 1-sigma and the z-score; drift.txt and the index name the change.
  const nlohmann::json drift = ReadJson(Path("runs/night2/drift.json"));
  EXPECT_EQ(drift["thresholds"]["sigma"], 4.0);
  for (const auto& robot : drift["robots"])
    for (const auto& p : robot["parameters"])
      if (robot["name"] == "robot_003" && p["name"] == "k_z2") {
        EXPECT_EQ(p["z"].get<double>(), planted->z);
        EXPECT_EQ(p["sigma"].get<double>(), planted->sigma);
      }
  const std::string text = ReadText(Path("runs/night2/drift.txt"));
  EXPECT_NE(text.find("robot_003: k_z2 +"), std::string::npos) << text;
  const std::string index = ReadText(Path("runs/night2/index.html"));
  const size_t row = index.find("<td class=\"robot\">robot_003</td>");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(index.find("<span class=\"drift-flag\">k_z2 +", row), std::string::npos);
}

// The short path (docs/fleet.md, "Short path"): three robots measured again, robot_001's k_z2 5 %
// higher. Its previous result no longer explains its data (χ² far beyond the model check's band),
// so it takes the full search and the summary says why; the unchanged robots take the short path,
// with fewer evaluations, and land within a small fraction of their 1σ of the full search (the same
// night with short_path: false). Run twice, the short night gives the same bits.
TEST_F(FleetTest, FleetShortPathForUnchangedRobotsFullSearchForAChangedOne) {
  const std::string night2 = TwoNights(3, 11, 0.02, {{"robot_001", "k_z2", 1.05}});
  std::string manifest = ReadText(night2);
  const size_t seed_line = manifest.find("\nseed:");
  ASSERT_NE(seed_line, std::string::npos) << manifest;
  manifest.insert(seed_line + 1, "warm_start: {short_path: false}\n");
  const std::string full_manifest = Path("night2/fleet_full.yaml");
  std::ofstream(full_manifest) << manifest;
  const FleetReport short_night = Fleet(night2, "short");
  const FleetReport full_night = Fleet(full_manifest, "full");
  ASSERT_EQ(short_night.ok(), 3);
  ASSERT_EQ(full_night.ok(), 3);
  EXPECT_EQ(short_night.fell_back(), 0);
  const nlohmann::json summary = ReadJson(Path("runs/short/summary.json"));
  const nlohmann::json full = ReadJson(Path("runs/full/summary.json"));
  EXPECT_EQ(summary["robots_short_path"], 2);
  EXPECT_EQ(summary["warm_start"]["sigma_step"], 0.05);
  EXPECT_FALSE(full.contains("robots_short_path"));
  const nlohmann::json& changed = RobotOf(summary, "robot_001");
  EXPECT_EQ(changed["path"], "full");
  EXPECT_NE(changed["path_reason"].get<std::string>().find("does not explain tonight's data"),
            std::string::npos)
      << changed.dump();
  EXPECT_EQ(changed["evaluations"], RobotOf(full, "robot_001")["evaluations"]);  // today's search
  EXPECT_TRUE(changed["drift"]["flagged"].get<bool>());
  for (const char* name : {"robot_000", "robot_002"}) {
    const nlohmann::json& a = RobotOf(summary, name);
    const nlohmann::json& b = RobotOf(full, name);
    EXPECT_EQ(a["path"], "short") << name;
    EXPECT_FALSE(a.contains("path_reason")) << name;
    EXPECT_FALSE(b.contains("path")) << name;
    EXPECT_LT(a["evaluations"].get<long long>(), b["evaluations"].get<long long>()) << name;
    EXPECT_EQ(a["model_check"]["verdict"], b["model_check"]["verdict"]) << name;
    EXPECT_EQ(a["drift"]["flagged"], b["drift"]["flagged"]) << name;
    // Within a small fraction of the full search's 1σ (its identifiability report).
    const FitResult result = ReadFitResult(Path(std::string("runs/full/") + name + ".h5"));
    for (const ParameterIdentifiability& p : result.identifiability.per_parameter) {
      const double moved =
          a["parameters"][p.name].get<double>() - b["parameters"][p.name].get<double>();
      EXPECT_LT(std::fabs(moved), 0.15 * p.std_absolute) << name << " " << p.name;
    }
  }
  // The table names the paths.
  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(night2) + " --out " +
                      Quote(Path("runs")) + " --run-id again --backend cpu --threads 1 --quiet",
                  &err),
            0)
      << err;
  const std::string table = ReadText(Path("out.txt"));
  EXPECT_NE(table.find("warm paths: 2 short"), std::string::npos) << table;
  EXPECT_NE(table.find("FULL SEARCH (the previous result does not explain"), std::string::npos)
      << table;
  // Deterministic: the same inputs give the same bits (another thread count included).
  for (const char* name : {"robot_000", "robot_001", "robot_002"})
    ExpectSameRobot("short", "again", name);
}

// Night 1's own data again, with night 1's results as `previous`: each result is the minimum of
// the cost its night's last pass ended on, so the short path — searching on that cost (noise
// weights at the model at the previous result, no peak emphasis) — finds the Gauss–Newton step
// below sigma_step at its first point in every least-squares run: the search's and each
// reweighting pass's. A search under the peak emphasis walks off to that cost's own minimum and
// the passes walk back: dozens of evaluations instead.
TEST_F(FleetTest, FleetShortPathOnUnchangedDataStopsAtThePreviousResult) {
  TwoNights(3, 11, 0.02);
  std::string manifest = ReadText(Path("night1/fleet.yaml"));
  for (const char* name : {"robot_000", "robot_001", "robot_002"}) {
    const std::string frf = std::string("  - name: ") + name + "\n";
    const size_t at = manifest.find(frf);
    ASSERT_NE(at, std::string::npos) << manifest;
    const size_t line_end = manifest.find('\n', manifest.find("    frf:", at));
    manifest.insert(line_end + 1, std::string("    previous: '../runs/night1/") + name + ".h5'\n");
  }
  const std::string again = Path("night1/fleet_again.yaml");
  std::ofstream(again) << manifest;
  const FleetReport night = Fleet(again, "again");
  ASSERT_EQ(night.ok(), 3);
  EXPECT_EQ(night.fell_back(), 0);
  const nlohmann::json summary = ReadJson(Path("runs/again/summary.json"));
  EXPECT_EQ(summary["robots_short_path"], 3);
  const FitOptions config = LoadFitOptions(kRoot + "/datasets/kuka_kr90/fit.yaml");
  // The initial population (the previous point and one within 1e-9 of it), then one evaluation
  // per least-squares run: the search and the reweighting passes.
  const long long expected = 2 + 1 + RefinementPasses(config.cost);
  for (const char* name : {"robot_000", "robot_001", "robot_002"}) {
    const nlohmann::json& r = RobotOf(summary, name);
    EXPECT_EQ(r["path"], "short") << name;
    EXPECT_EQ(r["evaluations"].get<long long>(), expected) << name;
    EXPECT_FALSE(r["drift"]["flagged"].get<bool>()) << name;
    const FitResult previous = ReadFitResult(Path(std::string("runs/night1/") + name + ".h5"),
                                             FitResultSections::kSummary);
    for (const ParameterIdentifiability& p : previous.identifiability.per_parameter) {
      const double moved = r["parameters"][p.name].get<double>() - p.value;
      EXPECT_LE(std::fabs(moved), 0.05 * p.std_absolute) << name << " " << p.name;
    }
  }
}

// Night 2 of three robots where robot_001's previous result does not describe its data: every
// stiffness 4 times too high or too low, and its cost `cost_factor` times what it was.
class FleetFallbackTest : public FleetTest {
 protected:
  std::string NightWithAnUntrustedPrevious(double cost_factor = 0.1) {
    const std::string night2 = TwoNights(3, 11, 0.02);
    FitResult previous = ReadFitResult(Path("runs/night1/robot_001.h5"));
    const size_t np = previous.parameters.size();
    for (size_t k = 0; k < np; ++k)
      if (previous.parameter_names[k].rfind("k_", 0) == 0)
        previous.parameters[k] *= k % 2 ? 4.0 : 0.25;
    previous.cost *= cost_factor;
    WriteEditedResult(previous, Path("untrusted_robot_001.h5"));
    std::string manifest = ReadText(night2);
    const std::string was = "previous: '../runs/night1/robot_001.h5'";  // relative to night2/
    const size_t at = manifest.find(was);
    EXPECT_NE(at, std::string::npos) << manifest;
    if (at != std::string::npos)
      manifest.replace(at, was.size(), "previous: ../untrusted_robot_001.h5");
    std::ofstream(night2) << manifest;
    return night2;
  }
};

// A previous cost ten times below what the data allow: warm least squares lands above twice that
// cost, so the robot is refitted with its cold configuration in the same run; the result is the
// one a cold fit of its data gives.
TEST_F(FleetFallbackTest, FleetRefitsAnUntrustedWarmResultWithTheColdConfiguration) {
  const std::string night2 = NightWithAnUntrustedPrevious();
  const FleetReport report = Fleet(night2, "night2");
  ASSERT_EQ(report.ok(), 3);
  EXPECT_EQ(report.fell_back(), 1);
  const nlohmann::json summary = ReadJson(Path("runs/night2/summary.json"));
  EXPECT_EQ(summary["robots_fell_back"], 1);
  const nlohmann::json& robot = RobotOf(summary, "robot_001");
  ASSERT_TRUE(robot["fallback"].is_object()) << robot.dump();
  const std::string reason = robot["fallback"]["reason"];
  EXPECT_NE(reason.find("x the previous night's"), std::string::npos) << reason;
  EXPECT_EQ(robot["fallback"]["kept"], "cold");
  for (const char* other : {"robot_000", "robot_002"})
    EXPECT_TRUE(RobotOf(summary, other)["fallback"].is_null());
  const nlohmann::json truth = ReadJson(Path("night2/truth.json"));
  EXPECT_LT(WorstModeError(robot, truth["robots"][1]), 0.01);
  // The cold fit of its data alone, with its seed: the same result; the night counts both fits.
  std::ofstream(Path("night2/alone.yaml"))
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 11\n"
         "robots:\n  - {name: robot_001, frf: [robot_001/frf_milling.h5, "
         "robot_001/frf_fleet_reach.h5]}\n";
  Fleet(Path("night2/alone.yaml"), "alone");
  const nlohmann::json alone_summary = ReadJson(Path("runs/alone/summary.json"));
  const nlohmann::json& alone = RobotOf(alone_summary, "robot_001");
  EXPECT_EQ(robot["cost"].get<double>(), alone["cost"].get<double>());
  for (const auto& [name, value] : alone["parameters"].items())
    EXPECT_EQ(value.get<double>(), robot["parameters"][name].get<double>()) << name;
  EXPECT_EQ(robot["evaluations"].get<long long>(),
            robot["fallback"]["warm_evaluations"].get<long long>() +
                alone["evaluations"].get<long long>());
  // The table, summary.csv and the index say so.
  EXPECT_NE(ReadText(Path("runs/night2/summary.csv")).find("x the previous night's"),
            std::string::npos);
  const std::string index = ReadText(Path("runs/night2/index.html"));
  EXPECT_NE(index.find("warm, refitted cold: "), std::string::npos);
  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + " fleet --manifest " + Quote(night2) + " --out " +
                      Quote(Path("runs")) + " --run-id table --backend cpu --threads 2 --quiet",
                  &err),
            0)
      << err;
  EXPECT_NE(ReadText(Path("out.txt")).find("REFITTED COLD (cost"), std::string::npos)
      << ReadText(Path("out.txt"));
}

// A previous result that fitted its data ten times worse than tonight's fit is no baseline: its
// parameters (here far off) moved a lot, but nothing is flagged, and the note says why.
TEST_F(FleetFallbackTest, FleetDoesNotFlagDriftAgainstAPoorPreviousFit) {
  const FleetReport report = Fleet(NightWithAnUntrustedPrevious(10.0), "night2");
  ASSERT_EQ(report.ok(), 3);
  const FleetRobotOutcome& robot = report.robots[1];
  ASSERT_EQ(robot.name, "robot_001");
  EXPECT_NE(robot.drift_note.find("fitted its data"), std::string::npos) << robot.drift_note;
  EXPECT_FALSE(robot.drift_flagged());
  // What would have been flagged against it (the rewritten result has no 1-sigma: by percent).
  double largest_change = 0.0;
  for (const FleetDriftParameter& d : robot.drift_parameters)
    if (d.name.rfind("k_", 0) == 0)
      largest_change = std::max(largest_change, std::fabs(d.change_percent));
  EXPECT_GT(largest_change, 50.0);
  const nlohmann::json summary = ReadJson(Path("runs/night2/summary.json"));
  EXPECT_EQ(RobotOf(summary, "robot_001")["drift"]["note"], robot.drift_note);
  EXPECT_NE(ReadText(Path("runs/night2/drift.txt")).find("robot_001: drift not assessed"),
            std::string::npos);
}

// Killed in the first pass and again in the second (the fallback's), resumed twice: the same
// results, fallback and histories as a run that was never interrupted.
TEST_F(FleetFallbackTest, FleetResumesBitIdenticallyThroughTheFallbackPass) {
  const std::string night2 = NightWithAnUntrustedPrevious();
  auto in_pass = [](int pass) {
    return [pass](const nlohmann::json& j) { return j.is_object() && j.value("pass", 0) == pass; };
  };
  ASSERT_TRUE(RunAndKill(night2, "killed", false, 20, in_pass(1)))
      << "the first pass ended before a kill";
  ASSERT_TRUE(RunAndKill(night2, "killed", true, 20, in_pass(2)))
      << "the second pass ended before a kill";
  const nlohmann::json saved = ReadJson(Path("runs/killed/checkpoint.json"));
  EXPECT_EQ(saved["fallback_robots"], nlohmann::json::array({"robot_001"}));
  EXPECT_EQ(saved["first_pass_runs"].size(), 3u);
  std::string err;
  ASSERT_EQ(
      Shell(Quote(kCli) + " fleet --manifest " + Quote(night2) + " --out " + Quote(Path("runs")) +
                " --run-id killed --resume --backend cpu --threads 1 --checkpoint-every 20",
            &err),
      0)
      << err;
  EXPECT_NE(err.find("(second pass: 1 robot(s) refitted cold)"), std::string::npos) << err;
  Fleet(night2, "straight");
  EXPECT_GT(ReadJson(Path("runs/killed/summary.json"))["resumed_at_evaluations"].get<long long>(),
            0);
  for (const char* name : {"robot_000", "robot_001", "robot_002"})
    ExpectSameRobot("killed", "straight", name);
  EXPECT_TRUE(
      RobotOf(ReadJson(Path("runs/killed/summary.json")), "robot_001")["fallback"].is_object());
}

// --- a fleet and its runs moved together ---------------------------------------------------------

// Two nights made and fitted with the command-line tools as the README does, in site/; then site/
// is moved elsewhere and night 2 is fitted there. The manifest names each robot's previous result
// relative to itself, so night 2 still finds night 1's results (with the absolute paths it used to
// write, every robot was skipped). Night 2's index names the run, when it started, the units, and
// links night 1's index relatively; each robot's report links back to the index.
// A previous run whose path YAML would read otherwise (" #" starts a comment, ": " a mapping, a
// quote) is written quoted and read back as given.
TEST_F(FleetTest, PreviousPathsWithYamlCharactersReadBackAsGiven) {
  const std::string previous = Path("runs #1: it's");
  std::string err;
  ASSERT_EQ(Shell(Quote(kMakeFleet) + " --model " + Quote(kKuka) + " --params " + Quote(kKukaParams) +
                      " --robots 1 --seed 7 --postures milling --night 2 --previous " +
                      Quote(previous) + " --out " + Quote(Path("fleet")),
                  &err),
            0)
      << err;
  const FleetManifest manifest = LoadFleetManifest(Path("fleet/fleet.yaml"));
  ASSERT_EQ(manifest.robots.size(), 1u);
  EXPECT_EQ(fs::path(manifest.robots[0].previous).lexically_normal(),
            fs::path(previous + "/robot_000.h5").lexically_normal());
}

TEST_F(FleetTest, FleetMovedWithItsRunsFindsThePreviousNightAndLinksIt) {
  std::ofstream(Path("tiny_fit.yaml")) << kTinyConfig;
  const std::string make =
      Quote(kMakeFleet) + " --model " + Quote(kKuka) + " --params " + Quote(kKukaParams) +
      " --robots 2 --seed 7 --postures milling --config " + Quote(Path("tiny_fit.yaml"));
  auto fleet = [&](const std::string& site, const std::string& manifest, const std::string& run) {
    return Shell(Quote(kCli) + " fleet --manifest " + Quote(Path(site + "/" + manifest)) +
                 " --out " + Quote(Path(site + "/runs")) + " --run-id " + run +
                 " --backend cpu --threads 2 --quiet");
  };
  std::string err;
  ASSERT_EQ(Shell(make + " --out " + Quote(Path("site/fleet")), &err), 0) << err;
  ASSERT_EQ(fleet("site", "fleet/fleet.yaml", "night1"), 0) << ReadText(Path("err.txt"));
  ASSERT_EQ(Shell(make + " --night 2 --previous " + Quote(Path("site/runs/night1")) + " --out " +
                      Quote(Path("site/fleet2")),
                  &err),
            0)
      << err;
  const std::string manifest = ReadText(Path("site/fleet2/fleet.yaml"));
  EXPECT_NE(manifest.find("    previous: '../runs/night1/robot_001.h5'\n"), std::string::npos)
      << manifest;
  EXPECT_EQ(manifest.find("previous: /"), std::string::npos) << manifest;

  fs::create_directories(Path("moved"));
  fs::rename(Path("site"), Path("moved/site"));
  ASSERT_EQ(fleet("moved/site", "fleet2/fleet.yaml", "night2"), 0) << ReadText(Path("err.txt"));
  const std::string run_dir = Path("moved/site/runs/night2");
  const nlohmann::json summary = ReadJson(run_dir + "/summary.json");
  EXPECT_EQ(summary["robots_ok"], 2) << summary.dump(2);
  for (const char* name : {"robot_000", "robot_001"}) {
    const nlohmann::json& robot = RobotOf(summary, name);
    EXPECT_TRUE(robot.value("warm_start", false)) << robot.dump();
    EXPECT_EQ(robot.value("previous", ""),
              Path(std::string("moved/site/runs/night1/") + name + ".h5"));
  }

  // The index: the run id, its start (UTC, as summary.json has it), units, night 1's index.
  const std::string index = ReadText(run_dir + "/index.html");
  EXPECT_NE(index.find("run <span class=\"run-id\">night2</span>"), std::string::npos) << index;
  const std::string started = summary.value("started_utc", "");
  ASSERT_TRUE(std::regex_match(started, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << started;
  EXPECT_NE(index.find("started <time datetime=\"" + started + "\">" + started.substr(0, 10) + " " +
                       started.substr(11, 8) + " UTC</time>"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("<th>cost <span class=\"unit-note\">(dimensionless)</span></th>"),
            std::string::npos);
  EXPECT_NE(index.find("<td class=\"parameter\">k_z2</td><td class=\"unit\">N*m/rad</td>"),
            std::string::npos);
  EXPECT_NE(index.find("<td class=\"parameter\">d_z2</td><td class=\"unit\">N*m*s/rad</td>"),
            std::string::npos);
  const std::string link = "<a class=\"previous-night\" href=\"";
  const size_t at = index.find(link);
  ASSERT_NE(at, std::string::npos) << index;
  const size_t from = at + link.size();
  const std::string href = index.substr(from, index.find('"', from) - from);
  EXPECT_EQ(href, "../night1/index.html");
  EXPECT_TRUE(fs::is_regular_file(fs::path(run_dir) / href)) << href;
  EXPECT_NE(index.find(">night1</a>", from), std::string::npos);
  EXPECT_EQ(ReadText(Path("moved/site/runs/night1/index.html")).find("previous-night"),
            std::string::npos);  // night 1 had none

  // Each robot's report, next to the index, links back to it above its title.
  for (const char* name : {"robot_000", "robot_001"}) {
    const std::string report = ReadText(run_dir + "/" + name + ".html");
    const std::string back = "<nav class=\"back-link\"><a href=\"";
    const size_t b = report.find(back);
    ASSERT_NE(b, std::string::npos) << name;
    EXPECT_LT(b, report.find("<h1>"));
    const size_t target_at = b + back.size();
    const std::string target = report.substr(target_at, report.find('"', target_at) - target_at);
    ASSERT_TRUE(fs::exists(fs::path(run_dir) / target)) << target;
    EXPECT_TRUE(fs::equivalent(fs::path(run_dir) / target, fs::path(run_dir) / "index.html"))
        << target;
    EXPECT_EQ(report.find("\">&#8592; fleet index</a></nav>", target_at),
              report.find('"', target_at));
  }
}

// FleetRunOptions' check runs before the manifest is read (it does not exist here, which would be
// the error otherwise) and before any directory is made.
TEST(FleetRunOptionsTest, IsValidNamesTheBadFieldBeforeAnyWork) {
  const fs::path out = fs::temp_directory_path() / "frfit_fleet_options_never_made";
  FleetRunOptions valid;
  valid.manifest = "/nonexistent/fleet.yaml";
  valid.out = out.string();
  std::string error;
  EXPECT_TRUE(valid.IsValid(&error)) << error;
  EXPECT_FALSE(FleetRunOptions{}.IsValid(&error));  // no manifest, no output directory
  struct Case {
    std::function<void(FleetRunOptions&)> mutate;
    const char* field;
  };
  const Case cases[] = {
      {[](FleetRunOptions& o) { o.manifest.clear(); }, "manifest"},
      {[](FleetRunOptions& o) { o.out.clear(); }, "out"},
      {[](FleetRunOptions& o) { o.run_id = "../up"; }, "run_id"},
      {[](FleetRunOptions& o) { o.resume = true; }, "run_id"},
      {[](FleetRunOptions& o) { o.evaluator.threads = -1; }, "evaluator.threads"},
      {[](FleetRunOptions& o) { o.checkpoint_every_evaluations = -1; }, "checkpoint_every_evaluations"},
      {[](FleetRunOptions& o) { o.checkpoint_every_seconds = -1.0; }, "checkpoint_every_seconds"},
      {[](FleetRunOptions& o) { o.checkpoint_every_seconds = INFINITY; }, "checkpoint_every_seconds"},
      {[](FleetRunOptions& o) { o.checkpoint_every_seconds = std::nan(""); }, "checkpoint_every_seconds"},
      {[](FleetRunOptions& o) { o.progress_every_rounds = -1; }, "progress_every_rounds"},
  };
  for (const Case& c : cases) {
    FleetRunOptions o = valid;
    c.mutate(o);
    EXPECT_FALSE(o.IsValid(&error)) << c.field;
    EXPECT_EQ(error.rfind(std::string(c.field) + ": expected", 0), 0u) << error;
    const std::string message = test::ErrorOf([&] { RunFleet(o); });
    EXPECT_EQ(message.rfind(std::string("frfit fleet: ") + c.field + ": expected", 0), 0u) << message;
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace frfit
