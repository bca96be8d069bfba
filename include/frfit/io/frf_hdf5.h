// FRF sets in HDF5 (layout: docs/file-formats.md):
//   /frequency_hz     float64 [L]
//   /H                float64 [L][3][3][2]   (trailing dimension: real, imaginary part)
//   /present          int64   [3][3]         (1 where the entry was measured)
//   /@frfit_file = "frf_set", /@format, /@units, /@posture
//   /provenance/@<key> = <value>             (model, parameters, source file, ...)
#pragma once

#include <string>

#include "frfit/frf/frf_set.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

// The FRF matrix of `set` as a [line][3][3][2] dataset (real, imaginary part) of an open file;
// result files store measured and fitted FRFs the same way.
void WriteFrfMatrix(Hdf5File* file, const std::string& dataset, const FrfSet& set);

// Writes atomically (temporary name, then rename).
void WriteFrfSet(const std::string& path, const FrfSet& set);
// Reads and validates; every problem is an Error naming the file and the dataset.
FrfSet ReadFrfSet(const std::string& path);

}  // namespace frfit
