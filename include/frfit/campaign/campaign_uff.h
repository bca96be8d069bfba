// A campaign from UFF files and back (docs/campaign.md): datasets 58/58b of function type 4
// (FRF) and 6 (coherence), 15 and 2411 (node coordinates), 82 (trace lines). Every dataset is
// either used, refused by name, or listed in Campaign::unused.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frfit/campaign/campaign.h"
#include "frfit/io/uff.h"

namespace frfit::campaign {

struct UffOptions {
  std::optional<int> averages;       // behind every coherence record (UFF 58 does not carry it)
  bool exponential_window = false;   // the FRFs were measured with one (UFF 58 cannot say)
  bool require_coordinates = false;  // every record's nodes need coordinates

  // "averages: expected …" when averages is given and < 1; the flags have no invalid value.
  bool IsValid(std::string* error) const;
};

// Builds one campaign from parsed files (in order); throws Error(file, "dataset 58 record N", ...)
// naming the record that cannot join it, and Error("campaign: averages: expected …") for invalid
// options before any file is read.
Campaign FromUff(const std::vector<uff::File>& files, const UffOptions& options);
Campaign ReadUff(const std::vector<std::string>& paths, const UffOptions& options);

// Datasets 58 (or 58b): every FRF, then every coherence, in record order; the FRFs in SI units of
// their format.
std::vector<uff::Function58> ToUff(const Campaign& campaign, bool binary);
void WriteUff(const std::string& path, const Campaign& campaign, bool binary);

}  // namespace frfit::campaign
