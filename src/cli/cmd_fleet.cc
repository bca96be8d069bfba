// frfit fleet: the nightly refit of every robot of a manifest in one batched drive (docs/fleet.md),
// or of one rank's share of them when started by mpirun.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/fleet/fleet_mpi.h"
#include "frfit/fleet/fleet_run.h"

namespace frfit::cli {
namespace {

// One process's part of the command: everything with `peers` null, or one rank's robots.
int RunFleetRank(int argc, char** argv, FleetPeers* peers) {
  const Args args("fleet", argc, argv,
                  {"manifest", "out", "run-id", "backend", "threads", "checkpoint-every",
                   "checkpoint-seconds", "progress-every"},
                  {"resume", "json", "progress", "quiet"});
  FleetRunOptions options;
  options.manifest = args.Get("manifest");
  options.out = args.Get("out");
  options.run_id = args.Get("run-id", "");
  options.resume = args.Flag("resume");
  if (options.resume && options.run_id.empty())
    throw Error("frfit fleet", "--resume", "needs --run-id naming the run to continue");
  options.backend_given = args.Get("backend", "auto");
  if (!FromString(options.backend_given, &options.evaluator.backend))
    throw Error("frfit fleet", "--backend", "expected cpu, cuda or auto, got '" + options.backend_given + "'");
  options.evaluator.threads = args.GetThreads();
  if (peers) {
    // The ranks of one machine share its cores, and each takes its own GPU there.
    if (options.evaluator.threads == 0)
      options.evaluator.threads =
          std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / peers->local_size());
    options.evaluator.cuda_device = peers->local_rank();
  }
  // Defaults and range checks live in FleetRunOptions (IsValid, checked below).
  options.checkpoint_every_evaluations =
      args.GetInt("checkpoint-every", options.checkpoint_every_evaluations);
  options.checkpoint_every_seconds =
      args.GetDouble("checkpoint-seconds", options.checkpoint_every_seconds);
  const bool json = args.Flag("json");
  const bool quiet = args.Flag("quiet");
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const bool progress = !json && !quiet && (args.Flag("progress") || terminal);
  const long every = args.GetInt("progress-every", 10);
  if (every < 1) throw Error("frfit fleet", "--progress-every", "expected an integer >= 1");
  if (progress) options.progress_every_rounds = static_cast<int>(every);
  options.peers = peers;
  if (std::string error; !options.IsValid(&error)) {
    const std::pair<const char*, const char*> kOptions[] = {
        {"manifest", "--manifest"},
        {"out", "--out"},
        {"run_id", "--run-id"},
        {"evaluator.threads", "--threads"},
        {"checkpoint_every_evaluations", "--checkpoint-every"},
        {"checkpoint_every_seconds", "--checkpoint-seconds"},
        {"progress_every_rounds", "--progress-every"}};
    ThrowAsOption("frfit fleet", error, kOptions);
  }
  if (peers && options.run_id.empty()) {
    AgreeWithPeers(peers);  // an error above on any rank ends every rank here
    options.run_id = peers->Broadcast(FleetDefaultRunId());  // rank 0's clock names the run
  }
  const std::string rank_prefix = peers ? "[rank " + std::to_string(peers->rank()) + " of " +
                                              std::to_string(peers->size()) + "] "
                                        : "";
  // On a terminal: one line that updates in place (every round, at most a few times a second),
  // as `frfit fit` shows; other lines end it first. Elsewhere: a line every --progress-every
  // rounds.
  using Clock = std::chrono::steady_clock;
  bool line_open = false;
  std::string unshown;  // the latest update the rate limit held back, shown at the end
  auto last_shown = Clock::time_point();
  auto end_line = [&] {
    if (!unshown.empty()) std::fprintf(stderr, "\r\033[K%s", unshown.c_str());
    if (line_open) std::fputc('\n', stderr);
    line_open = false;
    unshown.clear();
  };
  if (progress && terminal) {
    options.progress_every_rounds = 1;
    options.progress = [&](const std::string& line) {
      const auto now = Clock::now();
      if (line_open && now - last_shown < std::chrono::milliseconds(200)) {
        unshown = line;
        return;
      }
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
      line_open = true;
      unshown.clear();
      last_shown = now;
    };
  }
  // Skipped robots and resume notes always reach stderr; progress lines only when asked for.
  options.log = [&](const std::string& line) {
    if (!quiet || line.rfind("frfit fleet: skipping", 0) == 0) {
      end_line();
      std::fprintf(stderr, "%s%s\n", rank_prefix.c_str(), line.c_str());
    }
  };

  FleetReport report;
  try {
    report = RunFleet(options);
  } catch (...) {
    end_line();  // the error line starts on a line of its own
    throw;
  }
  end_line();
  if (!IsRankZero(peers)) return 0;  // rank 0 wrote the outputs and reports the run

  if (json) {
    std::printf("%s\n", FleetReportToJson(report).dump().c_str());
  } else {
    int warm = 0;
    for (const FleetRobotOutcome& r : report.robots) warm += r.status == "ok" && r.warm_start;
    std::printf(
        "fleet run %s: %d robot(s) fitted (%d warm, %d of them refitted cold), %d skipped, %lld "
        "evaluations in %.1f s on %s (%.1f s in the evaluator)\n",
        report.run_id.c_str(), report.ok(), warm, report.fell_back(), report.skipped(),
        static_cast<long long>(report.evaluations), report.wall_seconds,
        report.backend.empty() ? "-" : report.backend.c_str(), report.evaluator_seconds);
    int full = 0;
    for (const FleetRobotOutcome& r : report.robots) full += r.warm_path == "full";
    if (full + report.short_path() > 0)
      std::printf("warm paths: %d short (one start from the previous result), %d full search\n",
                  report.short_path(), full);
    std::printf("\n  %-16s %-8s %-5s %13s %11s  %s\n", "robot", "status", "start", "cost",
                "evaluations", "drift / reason");
    for (const FleetRobotOutcome& r : report.robots) {
      if (r.status != "ok") {
        std::printf("  %-16s %-8s %-5s %13s %11s  %s\n", r.name.c_str(), r.status.c_str(), "", "",
                    "", r.reason.c_str());
        continue;
      }
      std::string drift = !r.has_drift            ? "-"
                          : !r.drift_note.empty() ? "not assessed (previous fit poor)"
                          : r.drift_flagged()     ? "DRIFT:"
                                                  : "none";
      for (const FleetDriftParameter& d : r.drift_parameters)
        if (d.flagged) drift += " " + d.name;
      int moved_modes = 0;
      for (const FleetDriftFrequency& d : r.drift_frequencies) moved_modes += d.flagged;
      if (moved_modes) drift += " +" + std::to_string(moved_modes) + " mode(s)";
      if (r.cost_flagged()) {
        char ratio[64];
        std::snprintf(ratio, sizeof ratio, "HIGH COST (%.3g x the median)  ", r.cost_over_median);
        drift = ratio + drift;
      }
      if (r.warm_path == "full") drift += "  FULL SEARCH (" + r.warm_path_reason + ")";
      if (r.fell_back) drift += "  REFITTED COLD (" + r.fallback.reason + ")";
      // How it started: cold, warm (a GA warm start), or the warm path it took.
      const std::string start = !r.warm_start ? "cold" : r.warm_path.empty() ? "warm" : r.warm_path;
      std::printf("  %-16s %-8s %-5s %13.6e %11lld  %s\n", r.name.c_str(), r.status.c_str(),
                  start.c_str(), r.cost, static_cast<long long>(r.evaluations),
                  drift.c_str());
    }
    std::printf("\nwrote %s/{summary.csv,summary.json,drift.json,drift.txt,<robot>.h5}\n", report.run_dir.c_str());
  }
  if (report.ok() == 0) throw Error("frfit fleet", "", "every robot was skipped (see " + report.run_dir + "/summary.json)");
  return 0;
}

}  // namespace

int RunFleet(int argc, char** argv) {
  // Null unless started as one of several processes.
  std::unique_ptr<FleetPeers> peers = ConnectMpiPeers();
  return RunAsFleetRank(peers.get(), [&] { return RunFleetRank(argc, argv, peers.get()); });
}

}  // namespace frfit::cli
