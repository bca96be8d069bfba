// A campaign in HDF5 (docs/file-formats.md, "Campaigns"): written atomically, read back equal.
#pragma once

#include <string>

#include "frfit/campaign/campaign.h"
#include "frfit/files/hdf5_file.h"

namespace frfit::campaign {

void WriteHdf5(const std::string& path, const Campaign& campaign);
// Throws Error(path, object, ...) for a file that is not a campaign or breaks its layout.
Campaign ReadHdf5(const std::string& path);

// The geometry alone (/nodes, /trace_lines at the file's root), as a campaign file holds it: for
// other files of a campaign (its EMA result) that the drawings read.
void WriteGeometry(Hdf5File* file, const Campaign& campaign);
void ReadGeometry(const Hdf5File& file, Campaign* campaign);

}  // namespace frfit::campaign
