// Sharding a fleet over MPI ranks without MPI (fleet/fleet_shard.h, fleet/fleet_outcome_json.h):
// which rank owns which robot, the per-rank checkpoint names and the refusal of another rank
// count's checkpoints, and the exact JSON round trip by which a rank hands its robots to rank 0.
// The MPI runs themselves are in tests/mpi (registered only where MPI was found).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/fleet/fleet_mpi.h"
#include "frfit/fleet/fleet_outcome_json.h"
#include "frfit/fleet/fleet_run.h"
#include "round_trip_checks.h"

namespace frfit {
namespace {

// Rank `rank` of `size`; the collective calls are not what these tests look at.
class PeersAt final : public FleetPeers {
 public:
  PeersAt(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return rank_; }
  int local_size() const override { return size_; }
  int FirstFailedRank(bool) override { return Unexpected(size_); }
  std::string Broadcast(const std::string&) override { return Unexpected(std::string()); }
  std::vector<std::string> Gather(const std::string&) override {
    return Unexpected(std::vector<std::string>());
  }
  [[noreturn]] void Abort(int) override { throw std::logic_error("Abort called"); }

 private:
  template <class T>
  T Unexpected(T value) {
    ADD_FAILURE() << "a collective call in a test of the local rules";
    return value;
  }
  int rank_, size_;
};

TEST(FleetShard, EveryRobotHasExactlyOneRankAndSharesDifferByAtMostOne) {
  EXPECT_TRUE(OwnsRobot(nullptr, 7));  // a single process owns every robot
  EXPECT_EQ(OwnedRobotCount(nullptr, 7), 7u);
  for (int size = 1; size <= 5; ++size) {
    for (size_t robots = 0; robots <= 13; ++robots) {
      std::vector<size_t> counted(size, 0);
      for (size_t i = 0; i < robots; ++i) {
        int owners = 0;
        for (int rank = 0; rank < size; ++rank) {
          const PeersAt peers(rank, size);
          if (OwnsRobot(&peers, i)) {
            ++owners;
            ++counted[rank];
            EXPECT_EQ(static_cast<size_t>(rank), i % size) << "robot " << i << " of " << robots;
          }
        }
        EXPECT_EQ(owners, 1) << "robot " << i << ", " << size << " ranks";
      }
      for (int rank = 0; rank < size; ++rank) {
        const PeersAt peers(rank, size);
        EXPECT_EQ(OwnedRobotCount(&peers, robots), counted[rank])
            << rank << " of " << size << ", " << robots;
        EXPECT_LE(counted[0] - counted[rank], 1u);
      }
    }
  }
}

TEST(FleetShard, CheckpointsAreNamedPerRankAndAnotherRankCountsAreRefused) {
  const PeersAt rank1of3(1, 3);
  EXPECT_EQ(CheckpointFileName(nullptr), "checkpoint.json");
  EXPECT_EQ(HistoryFileName(nullptr), "checkpoint.history");
  EXPECT_EQ(CheckpointFileName(&rank1of3), "checkpoint.rank1-of-3.json");
  EXPECT_EQ(HistoryFileName(&rank1of3), "checkpoint.rank1-of-3.history");

  const auto dir =
      std::filesystem::temp_directory_path() / ("frfit_shard_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto expect_refused = [&](const FleetPeers* peers, const std::string& hint) {
    try {
      CheckCheckpointRankCount(dir.string(), peers);
      ADD_FAILURE() << "accepted; expected a refusal naming " << hint;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(hint), std::string::npos) << e.what();
    }
  };
  // Nothing checkpointed yet (every rank died before its first checkpoint): any rank count.
  std::ofstream((dir / "robot_000.h5").string()) << "x";
  std::ofstream((dir / "checkpoint.rank0-of-3.json.tmp.123").string()) << "x";  // a killed write
  EXPECT_NO_THROW(CheckCheckpointRankCount(dir.string(), nullptr));
  EXPECT_NO_THROW(CheckCheckpointRankCount(dir.string(), &rank1of3));

  std::ofstream((dir / "checkpoint.rank2-of-3.history").string()) << "x";
  EXPECT_NO_THROW(CheckCheckpointRankCount(dir.string(), &rank1of3));
  const PeersAt rank0of2(0, 2);
  expect_refused(&rank0of2, "mpirun -np 3");
  expect_refused(nullptr, "mpirun -np 3");

  std::filesystem::remove(dir / "checkpoint.rank2-of-3.history");
  std::ofstream((dir / "checkpoint.json").string()) << "{}";
  EXPECT_NO_THROW(CheckCheckpointRankCount(dir.string(), nullptr));
  expect_refused(&rank1of3, "one process (no mpirun)");
  std::filesystem::remove_all(dir);
}

// --- the outcome's JSON ------------------------------------------------------------------------

using round_trip::ExpectSameBits;
using round_trip::FieldCount;

TEST(FleetOutcomeJson, RoundTripKeepsEveryFieldBitForBit) {
  // A field added to these structs must be handed from rank to rank too: extend
  // fleet_outcome_json.cc and the values and comparisons below, then these counts.
  EXPECT_EQ(FieldCount<FleetRobotOutcome>(), 28u);
  EXPECT_EQ(FieldCount<FleetDriftParameter>(), 7u);
  EXPECT_EQ(FieldCount<FleetDriftFrequency>(), 8u);
  EXPECT_EQ(FieldCount<FleetFallback>(), 4u);

  const double quiet_nan_with_payload = std::bit_cast<double>(std::uint64_t{0x7ff8000000000123});
  FleetRobotOutcome a;
  a.name = "cell3_kr90";
  a.status = "ok";
  a.reason = "a \"quoted\" reason,\nwith a line break";
  a.seed = std::numeric_limits<std::uint64_t>::max();
  a.warm_start = true;
  a.previous = "/runs/2026-11-22T031500Z/cell3_kr90.h5";
  a.result_file = "/runs/2026-11-23T031500Z/cell3_kr90.h5";
  a.cost = 0.1 + 0.2;  // not a short decimal
  a.evaluations = (std::int64_t{1} << 40) + 3;
  a.cycles = 7;
  a.termination = "converged";
  a.model_check = "misfit";
  a.model_check_reasons = {"unexplained mode at 26.73 Hz in Hxx (posture milling)", "a, \"b\""};
  a.parameter_names = {"k_z1", "d_z1", "k_x1"};
  a.parameter_units = {"N*m/rad", "N*m*s/rad", "N/m"};
  a.parameters = {2.0e6, -0.0, std::numeric_limits<double>::denorm_min()};
  a.modal_frequencies_hz = {{"milling", {10.17, 11.24, 22.6}}, {"reach", {}}};
  a.has_drift = true;
  a.drift_parameters = {{"k_z1", 1.9e6, 2.0e6, 100.0 / 19.0, 2.1e4, 100.0e3 / 2.1e4, true},
                        {"d_z1", 0.0, -0.0, quiet_nan_with_payload, 0.1 + 0.7, -0.0, false}};
  a.drift_frequencies = {{"milling", 1, 10.1, 10.17, 0.69, 0.03 + 0.01, 1.0 / 3.0, false},
                         {"reach", 3, 22.0, std::numeric_limits<double>::quiet_NaN(),
                          -std::numeric_limits<double>::infinity(), quiet_nan_with_payload,
                          std::numeric_limits<double>::infinity(), true}};
  a.cost_over_median = std::numeric_limits<double>::infinity();
  a.warm_start_method = "levenberg_marquardt";
  a.previous_cost = 1.0 / 7.0;
  a.warm_path = "full";
  a.warm_path_reason = "the previous result does not explain tonight's data";
  a.fell_back = true;
  a.fallback = {"cost 40 times the previous night's; 2 parameters at a bound", 0.3 + 0.6,
                (std::int64_t{1} << 33) + 1, true};
  a.drift_note = "the previous result is no baseline";

  // Through text, as the ranks send it.
  const FleetRobotOutcome b =
      FleetRobotOutcomeFromJson(nlohmann::json::parse(FleetRobotOutcomeToJson(a).dump()));
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.warm_start, b.warm_start);
  EXPECT_EQ(a.previous, b.previous);
  EXPECT_EQ(a.result_file, b.result_file);
  ExpectSameBits(a.cost, b.cost, "cost");
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.termination, b.termination);
  EXPECT_EQ(a.model_check, b.model_check);
  EXPECT_EQ(a.model_check_reasons, b.model_check_reasons);
  EXPECT_EQ(a.parameter_names, b.parameter_names);
  EXPECT_EQ(a.parameter_units, b.parameter_units);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t k = 0; k < a.parameters.size(); ++k)
    ExpectSameBits(a.parameters[k], b.parameters[k], "parameters");
  ASSERT_EQ(a.modal_frequencies_hz.size(), b.modal_frequencies_hz.size());
  for (size_t p = 0; p < a.modal_frequencies_hz.size(); ++p) {
    EXPECT_EQ(a.modal_frequencies_hz[p].first, b.modal_frequencies_hz[p].first);
    ASSERT_EQ(a.modal_frequencies_hz[p].second.size(), b.modal_frequencies_hz[p].second.size());
    for (size_t k = 0; k < a.modal_frequencies_hz[p].second.size(); ++k)
      ExpectSameBits(a.modal_frequencies_hz[p].second[k], b.modal_frequencies_hz[p].second[k],
                     "modal frequency");
  }
  EXPECT_EQ(a.has_drift, b.has_drift);
  ASSERT_EQ(a.drift_parameters.size(), b.drift_parameters.size());
  for (size_t k = 0; k < a.drift_parameters.size(); ++k) {
    const FleetDriftParameter &x = a.drift_parameters[k], &y = b.drift_parameters[k];
    EXPECT_EQ(x.name, y.name);
    ExpectSameBits(x.previous, y.previous, "drift previous");
    ExpectSameBits(x.current, y.current, "drift current");
    ExpectSameBits(x.change_percent, y.change_percent, "drift change_percent");
    ExpectSameBits(x.sigma, y.sigma, "drift sigma");
    ExpectSameBits(x.z, y.z, "drift z");
    EXPECT_EQ(x.flagged, y.flagged);
  }
  ASSERT_EQ(a.drift_frequencies.size(), b.drift_frequencies.size());
  for (size_t k = 0; k < a.drift_frequencies.size(); ++k) {
    const FleetDriftFrequency &x = a.drift_frequencies[k], &y = b.drift_frequencies[k];
    EXPECT_EQ(x.posture, y.posture);
    EXPECT_EQ(x.mode, y.mode);
    ExpectSameBits(x.previous_hz, y.previous_hz, "drift previous_hz");
    ExpectSameBits(x.current_hz, y.current_hz, "drift current_hz");
    ExpectSameBits(x.change_percent, y.change_percent, "drift change_percent");
    ExpectSameBits(x.sigma_hz, y.sigma_hz, "drift sigma_hz");
    ExpectSameBits(x.z, y.z, "drift z");
    EXPECT_EQ(x.flagged, y.flagged);
  }
  ExpectSameBits(a.cost_over_median, b.cost_over_median, "cost_over_median");
  EXPECT_EQ(a.warm_start_method, b.warm_start_method);
  ExpectSameBits(a.previous_cost, b.previous_cost, "previous_cost");
  EXPECT_EQ(a.warm_path, b.warm_path);
  EXPECT_EQ(a.warm_path_reason, b.warm_path_reason);
  EXPECT_EQ(a.fell_back, b.fell_back);
  EXPECT_EQ(a.fallback.reason, b.fallback.reason);
  ExpectSameBits(a.fallback.warm_cost, b.fallback.warm_cost, "fallback warm_cost");
  EXPECT_EQ(a.fallback.warm_evaluations, b.fallback.warm_evaluations);
  EXPECT_EQ(a.fallback.kept_warm, b.fallback.kept_warm);
  EXPECT_EQ(a.drift_note, b.drift_note);
}

TEST(FleetOutcomeJson, DamagedJsonIsAnErrorNamingTheField) {
  FleetRobotOutcome a;
  a.name = "r";
  a.drift_parameters = {{"k_z1", 1.0, 2.0, 100.0, 0.5, 2.0, true}};
  const nlohmann::json good = FleetRobotOutcomeToJson(a);
  auto expect_error = [](const nlohmann::json& j, const std::string& field) {
    try {
      FleetRobotOutcomeFromJson(j);
      ADD_FAILURE() << "accepted; expected an error naming " << field;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  nlohmann::json j = good;
  j.erase("cost");
  expect_error(j, "cost");
  j = good;
  j["seed"] = "12x";
  expect_error(j, "seed");
  j = good;
  j["drift_parameters"][0]["current"] = 2.0;  // a number where the bit pattern belongs
  expect_error(j, "drift_parameters");
}

// How a process learns that it is one of several (a build without MPI then refuses to run: see
// FleetMpi.RefusedWithoutMpi in tests/CMakeLists.txt).
TEST(FleetMpiLaunch, LaunchIsReadFromTheLaunchersEnvironment) {
  ::unsetenv("PMI_SIZE");
  ::unsetenv("PMI_RANK");
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  MpiLaunch launch = MpiLaunchFromEnvironment();
  EXPECT_EQ(launch.size, 3);
  EXPECT_EQ(launch.rank, 2);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  ::setenv("PMI_SIZE", "4", 1);
  ::setenv("PMI_RANK", "1", 1);
  launch = MpiLaunchFromEnvironment();
  EXPECT_EQ(launch.size, 4);
  EXPECT_EQ(launch.rank, 1);
  ::setenv("PMI_SIZE", "four", 1);
  EXPECT_THROW(MpiLaunchFromEnvironment(), Error);
  ::unsetenv("PMI_SIZE");
  ::unsetenv("PMI_RANK");
  launch = MpiLaunchFromEnvironment();
  EXPECT_EQ(launch.size, 1);
  EXPECT_EQ(launch.rank, 0);
  EXPECT_EQ(ConnectMpiPeers(), nullptr);  // alone: no MPI, whatever the build
}

}  // namespace
}  // namespace frfit
