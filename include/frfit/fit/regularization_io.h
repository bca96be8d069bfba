// A regularised fit's weight and curve (fit/regularization.h) in result files (group
// /regularization, docs/file-formats.md) and in `--json` output (the `regularization` object).
#pragma once

#include <nlohmann/json.hpp>

#include "frfit/fit/regularization.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

// The curve's columns, in this order (/regularization/curve).
inline constexpr const char* kWeightCurveColumns =
    "weight, residual_norm, regularization_norm, gcv, evidence";
inline constexpr size_t kWeightCurveColumnCount = 5;

void WriteRegularization(Hdf5File* file, const RegularizationSummary& summary);
// enabled false when the file has no /regularization; Error naming the dataset when incomplete.
RegularizationSummary ReadRegularization(const Hdf5File& file);
nlohmann::ordered_json RegularizationToJson(const RegularizationSummary& summary);

}  // namespace frfit
