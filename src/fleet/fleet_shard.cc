#include "frfit/fleet/fleet_shard.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "frfit/common/error.h"
#include "frfit/fleet/fleet_outcome_json.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/optim/state_json.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

std::string ShardFileName(int rank, int size, const char* extension) {
  return "checkpoint.rank" + std::to_string(rank) + "-of-" + std::to_string(size) + "." + extension;
}

std::string ShardFileName(const FleetPeers* peers, const char* extension) {
  if (!peers) return std::string("checkpoint.") + extension;
  return ShardFileName(peers->rank(), peers->size(), extension);
}

}  // namespace

bool IsRankZero(const FleetPeers* peers) { return !peers || peers->rank() == 0; }

bool OwnsRobot(const FleetPeers* peers, size_t robot) {
  return !peers || robot % static_cast<size_t>(peers->size()) == static_cast<size_t>(peers->rank());
}

size_t OwnedRobotCount(const FleetPeers* peers, size_t robots) {
  if (!peers) return robots;
  const size_t size = static_cast<size_t>(peers->size()), rank = static_cast<size_t>(peers->rank());
  return robots / size + (rank < robots % size ? 1 : 0);
}

std::string CheckpointFileName(const FleetPeers* peers) { return ShardFileName(peers, "json"); }
std::string HistoryFileName(const FleetPeers* peers) { return ShardFileName(peers, "history"); }

void CheckCheckpointRankCount(const std::string& run_dir, const FleetPeers* peers) {
  const int processes = peers ? peers->size() : 1;
  static const std::regex kSharded(R"(checkpoint\.rank\d+-of-(\d+)\.(json|history))");
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(run_dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch m;
    int written_by = 0;
    if (name == "checkpoint.json" || name == "checkpoint.history")
      written_by = 1;
    else if (std::regex_match(name, m, kSharded))
      written_by = std::stoi(m[1].str());
    if (written_by == 0 || written_by == processes) continue;
    throw Error("frfit fleet", "--resume",
                "run directory " + run_dir + " holds " + name + ", a checkpoint of " +
                    (written_by == 1 ? std::string("a single process")
                                     : std::to_string(written_by) + " MPI ranks") +
                    ", and this run has " + std::to_string(processes) + "; resume it with " +
                    (written_by == 1 ? std::string("one process (no mpirun)")
                                     : "mpirun -np " + std::to_string(written_by)));
  }
}

void AgreeWithPeers(FleetPeers* peers) {
  if (peers && peers->FirstFailedRank(false) < peers->size()) throw FleetPeerFailed();
}

void BeginShardFits(FleetPeers* peers) {
  AgreeWithPeers(peers);
  if (peers) peers->fitting = true;
}

std::vector<double> AllRanksValues(FleetPeers* peers, const std::vector<double>& mine) {
  if (!peers) return mine;
  // In the checkpoints' bit-exact encoding: JSON has no inf or NaN, and no digit may be lost.
  const std::vector<std::string> shards = peers->Gather(DoublesToJson(mine).dump());
  nlohmann::json all = nlohmann::json::array();
  if (IsRankZero(peers))
    for (const std::string& shard : shards)
      for (const nlohmann::json& v : nlohmann::json::parse(shard)) all.push_back(v);
  return DoublesFromJson(nlohmann::json::parse(peers->Broadcast(all.dump())),
                         "the fleet's first-pass costs");
}

bool GatherShardOutcomes(FleetPeers* peers, FleetReport* report) {
  if (!peers) return true;
  nlohmann::json mine = {{"backend", report->backend},
                         {"evaluations", report->evaluations},
                         {"resumed_at_evaluations", report->resumed_at_evaluations},
                         {"rounds", report->rounds},
                         {"drive_seconds", report->drive_seconds},
                         {"evaluator_seconds", report->evaluator_seconds}};
  mine["robots"] = nlohmann::json::array();
  for (size_t i = 0; i < report->robots.size(); ++i)
    if (OwnsRobot(peers, i))
      mine["robots"].push_back(
          {{"index", i}, {"outcome", FleetRobotOutcomeToJson(report->robots[i])}});
  const std::vector<std::string> shards = peers->Gather(mine.dump());
  peers->fitting = false;
  if (!IsRankZero(peers)) return false;

  report->ranks = peers->size();
  for (int rank = 1; rank < peers->size(); ++rank) {
    const std::string what = "rank " + std::to_string(rank) + "'s outcomes";
    nlohmann::json shard;
    try {
      shard = nlohmann::json::parse(shards.at(rank));
      if (report->backend.empty()) report->backend = shard.at("backend").get<std::string>();
      report->evaluations += shard.at("evaluations").get<std::int64_t>();
      const std::int64_t resumed = shard.at("resumed_at_evaluations").get<std::int64_t>();
      if (resumed >= 0)
        report->resumed_at_evaluations =
            std::max<std::int64_t>(report->resumed_at_evaluations, 0) + resumed;
      // The ranks fit side by side: the run takes as long, and as many rounds, as its slowest rank.
      report->rounds = std::max(report->rounds, shard.at("rounds").get<std::int64_t>());
      report->drive_seconds =
          std::max(report->drive_seconds, shard.at("drive_seconds").get<double>());
      report->evaluator_seconds =
          std::max(report->evaluator_seconds, shard.at("evaluator_seconds").get<double>());
      for (const nlohmann::json& robot : shard.at("robots")) {
        const size_t index = robot.at("index").get<size_t>();
        if (index >= report->robots.size() || static_cast<int>(index % peers->size()) != rank)
          throw Error("frfit fleet", what,
                      "robot index " + std::to_string(index) + " is not rank " +
                          std::to_string(rank) + "'s");
        report->robots[index] = FleetRobotOutcomeFromJson(robot.at("outcome"));
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error("frfit fleet", what, std::string("expected the JSON a rank sends: ") + e.what());
    }
  }
  return true;
}

void RemoveShardCheckpoints(const FleetPeers* peers, const std::string& run_dir) {
  if (!peers) return;
  std::error_code ignored;
  for (int rank = 0; rank < peers->size(); ++rank)
    for (const char* extension : {"json", "history"})
      fs::remove(fs::path(run_dir) / ShardFileName(rank, peers->size(), extension), ignored);
}

int RunAsFleetRank(FleetPeers* peers, const std::function<int()>& body) {
  if (!peers) return body();
  int status = 0;
  try {
    status = body();
  } catch (const FleetPeerFailed&) {
    peers->FirstFailedRank(false);  // the failing rank's line is out (below) before this returns
    return 1;
  } catch (const std::exception& e) {
    if (peers->fitting) {
      std::fprintf(stderr, "error: %s\n", e.what());
      std::fflush(stderr);
      peers->Abort(1);
    }
    // One line for an error every rank meets (a bad manifest): the lowest failing rank's, written
    // before any rank returns — mpirun ends every process as soon as one exits non-zero, which
    // could cut the line before it is out.
    if (peers->FirstFailedRank(true) == peers->rank()) {
      std::fprintf(stderr, "error: %s\n", e.what());
      std::fflush(stderr);
    }
    peers->FirstFailedRank(false);
    return 1;
  }
  return peers->FirstFailedRank(status != 0) < peers->size() ? 1 : 0;
}

}  // namespace frfit
