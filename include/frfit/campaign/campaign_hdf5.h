// A campaign in HDF5 (docs/file-formats.md, "Campaigns"): written atomically, read back equal.
#pragma once

#include <string>

#include "frfit/campaign/campaign.h"

namespace frfit::campaign {

void WriteHdf5(const std::string& path, const Campaign& campaign);
// Throws Error(path, object, ...) for a file that is not a campaign or breaks its layout.
Campaign ReadHdf5(const std::string& path);

}  // namespace frfit::campaign
