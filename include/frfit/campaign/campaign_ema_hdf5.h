// A campaign's EMA result in HDF5 (docs/file-formats.md, "Campaign EMA results"): written by
// `frfit ema CAMPAIGN --out`, read by `frfit export` and whatever compares or draws the modes. The
// per-mode datasets carry the single-set EMA file's names (io/ema_hdf5.h); the shapes are per DOF,
// and the campaign's geometry is kept at the root as a campaign file keeps it.
#pragma once

#include <string>

#include "frfit/campaign/campaign.h"
#include "frfit/campaign/campaign_ema.h"

namespace frfit::campaign {

// Writes atomically a file of kind "campaign_ema_result"; `geometry`'s coordinates and trace lines
// go with it.
void WriteEmaResult(const std::string& path, const EmaResult& result, const Campaign& geometry);
// Reads what WriteEmaResult wrote (the diagram, the modes, their shapes); `geometry` gets the
// coordinates and trace lines when given. Throws Error naming the file and object.
EmaResult ReadEmaResult(const std::string& path, Campaign* geometry = nullptr);

}  // namespace frfit::campaign
