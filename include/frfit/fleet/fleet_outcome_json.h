// A robot's fleet outcome (FleetRobotOutcome) as JSON and back, every field exact: how a rank of
// an MPI fleet run hands its robots to rank 0 (fleet/fleet_shard.h). Not the summary.json layout
// (FleetReportToJson), which is for people and scripts and leaves fields out.
#pragma once

#include <nlohmann/json.hpp>

#include "frfit/fleet/fleet_run.h"

namespace frfit {

// Doubles travel as their bit patterns (optim/state_json.h), NaN and ±inf included.
nlohmann::json FleetRobotOutcomeToJson(const FleetRobotOutcome& outcome);

// Throws Error naming the field when `j` is not such an object.
FleetRobotOutcome FleetRobotOutcomeFromJson(const nlohmann::json& j);

}  // namespace frfit
