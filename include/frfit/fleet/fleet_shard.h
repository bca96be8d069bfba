// A fleet run shared by several processes (`mpirun -np N frfit fleet`, docs/fleet.md "MPI"):
// which robots a process fits, where it checkpoints, how the processes agree on errors, and how
// rank 0 receives every rank's robot outcomes to write the fleet's outputs. The transport sits
// behind FleetPeers (fleet/fleet_mpi.h implements it with MPI), so nothing here needs MPI.
// A single process has no peers (nullptr): every function then does what a plain run does.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace frfit {

struct FleetReport;
struct FleetRobotOutcome;

// The processes of one sharded fleet run, as seen from one of them. Every call except the
// accessors is collective: every rank makes the same calls in the same order.
class FleetPeers {
 public:
  virtual ~FleetPeers() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks on this machine (picks its GPU)
  virtual int local_size() const = 0;  // ranks on this machine (share its cores)
  // The lowest rank that passes failed = true, or size() when none does.
  virtual int FirstFailedRank(bool failed) = 0;
  // Rank 0's text, on every rank.
  virtual std::string Broadcast(const std::string& text) = 0;
  // On rank 0: every rank's text, in rank order. Elsewhere: empty.
  virtual std::vector<std::string> Gather(const std::string& text) = 0;
  // Ends every rank now with `code`.
  [[noreturn]] virtual void Abort(int code) = 0;

  // True from BeginShardFits until the outcomes are gathered: while the others fit, none would
  // reach an agreement soon, so an error then ends every rank at once (Abort).
  bool fitting = false;
};

// Thrown on the ranks that did not fail when another one did (and printed why): they end with
// exit status 1 and nothing more to say.
class FleetPeerFailed : public std::exception {
 public:
  const char* what() const noexcept override { return "another rank of the fleet run failed"; }
};

// True for a single process and for rank 0 of several.
bool IsRankZero(const FleetPeers* peers);

// Robot i of the manifest (every robot counts, skipped ones too) belongs to rank i % size: a
// rule that needs no information from the other ranks and keeps each rank's share within one
// robot of the others'.
bool OwnsRobot(const FleetPeers* peers, size_t robot);
// How many of a manifest's `robots` this process owns.
size_t OwnedRobotCount(const FleetPeers* peers, size_t robots);

// The checkpoint files of this process: checkpoint.json / checkpoint.history alone, or
// checkpoint.rank<r>-of-<N>.json / .history as rank r of N.
std::string CheckpointFileName(const FleetPeers* peers);
std::string HistoryFileName(const FleetPeers* peers);

// For --resume: throws Error when run_dir holds checkpoints written by another number of
// processes than this run has (their shards would not match).
void CheckCheckpointRankCount(const std::string& run_dir, const FleetPeers* peers);

// Every rank waits here for the others; throws FleetPeerFailed when one of them failed before.
void AgreeWithPeers(FleetPeers* peers);

// The last agreement before the fits; from here until GatherShardOutcomes an error aborts.
void BeginShardFits(FleetPeers* peers);

// Every rank's `mine`, in rank order, on every rank (`mine` alone for a single process): what a
// decision about the whole fleet needs, taken between BeginShardFits and GatherShardOutcomes.
// Every rank must call it the same number of times; values travel bit for bit (inf and NaN too).
std::vector<double> AllRanksValues(FleetPeers* peers, const std::vector<double>& mine);

// Hands this rank's robots (and its totals) to rank 0. Returns true on rank 0, whose report then
// holds every robot and the totals of every rank; false elsewhere (rank 0 writes the outputs).
bool GatherShardOutcomes(FleetPeers* peers, FleetReport* report);

// On rank 0 of a finished run: removes the other ranks' checkpoint files.
void RemoveShardCheckpoints(const FleetPeers* peers, const std::string& run_dir);

// Runs `body` (one rank's whole fleet command) so that every rank ends with the same outcome and
// none hangs: an error before or after the fits is agreed on (the lowest failing rank rethrows
// it for the command line to print, the others return 1); an error during the fits is printed
// and ends every rank by Abort. Returns 1 on every rank when any rank's body returned non-zero.
int RunAsFleetRank(FleetPeers* peers, const std::function<int()>& body);

}  // namespace frfit
