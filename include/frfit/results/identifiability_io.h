// Identifiability reports in result files (group /identifiability, docs/file-formats.md) and in
// `--json` output (the `identifiability` object, docs/identifiability.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "frfit/results/identifiability.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

void WriteIdentifiability(Hdf5File* file, const std::string& group, const Identifiability& id);
// Throws Error naming the file and dataset when the group is incomplete.
Identifiability ReadIdentifiability(const Hdf5File& file, const std::string& group);

// Non-finite numbers (an infinite condition number, σ² without degrees of freedom) become null.
nlohmann::ordered_json IdentifiabilityToJson(const Identifiability& id);

}  // namespace frfit
