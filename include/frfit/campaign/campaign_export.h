// A campaign EMA's modes for other tools (`frfit export`, docs/export.md): CSV tables and UFF
// dataset 55 (data at nodes: one complex mode shape per dataset).
#pragma once

#include <string>
#include <vector>

#include "frfit/campaign/campaign.h"
#include "frfit/campaign/campaign_ema.h"
#include "frfit/files/csv_table.h"

namespace frfit::campaign {

// campaign_modes.csv (one row per mode) and campaign_shapes.csv (one row per mode and DOF, with
// the node's coordinates when `geometry` has them).
std::vector<CsvTable> EmaTables(const EmaResult& result, const Campaign& geometry);

// UFF 55, one dataset per mode: complex eigenvalue, first order (analysis type 3), three global
// translations per node (data characteristic 2), complex (data type 5). A DOF measured along −X
// enters as −φ along +X; a direction not measured at a node is written as 0 (UFF has no "unknown").
std::string Uff55Text(const EmaResult& result);

}  // namespace frfit::campaign
