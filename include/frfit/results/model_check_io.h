// Model checks in result files (group /model_check, docs/file-formats.md), in `--json` output
// (the `model_check` object, docs/noise.md) and as the `warning:` lines a fit prints.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "frfit/results/model_check.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

void WriteModelCheck(Hdf5File* file, const std::string& group, const ModelCheck& check);
// Throws Error naming the file and dataset when the group is incomplete.
ModelCheck ReadModelCheck(const Hdf5File& file, const std::string& group);

nlohmann::ordered_json ModelCheckToJson(const ModelCheck& check);

}  // namespace frfit
