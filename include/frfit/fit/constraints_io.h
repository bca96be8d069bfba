// The constraints of a fit's result (fit/constraints.h) in its HDF5 file (/constraints, only when
// the fit had any: docs/file-formats.md) and its --json object.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "frfit/fit/constraints.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

void WriteConstraints(Hdf5File* f, const std::vector<ConstraintStatus>& constraints);
std::vector<ConstraintStatus> ReadConstraints(const Hdf5File& f);
nlohmann::ordered_json ConstraintsToJson(const std::vector<ConstraintStatus>& constraints);

}  // namespace frfit
