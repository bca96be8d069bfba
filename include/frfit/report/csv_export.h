// `frfit export`: frfit's HDF5 outputs as CSV tables for spreadsheets and other tools
// (docs/export.md lists every file and column). An FRF set, a fit result, an EMA result, a posture
// map and stability lobes each give their own tables; this builds them in memory, the command writes them. Values are copied,
// never recomputed, except the covariance, which the result file stores as correlation and 1σ.
#pragma once

#include <string>
#include <vector>

#include "frfit/frf/frf_set.h"
#include "frfit/files/csv_table.h"
#include "frfit/io/lobes_hdf5.h"
#include "frfit/io/map_hdf5.h"
#include "frfit/modal/ema.h"
#include "frfit/results/fit_result.h"

namespace frfit {

// The kinds of file frfit writes that can be exported, told apart by the root attribute
// frfit_file ("frf_set", "fit_result", "ema_result", "posture_map", "stability_lobes").
enum class ExportKind { kFrfSet, kFitResult, kEmaResult, kPostureMap, kLobes };
std::string ToString(ExportKind kind);  // the attribute's value

// The kind of `path`; Error naming the file when it is not HDF5 or not one of the three kinds.
ExportKind DetectExportKind(const std::string& path);

// frf.csv, and frf_noise.csv / frf_coherence.csv when the set carries them.
std::vector<CsvTable> FrfSetTables(const FrfSet& set);
// parameters.csv, modes.csv, mac.csv, correlation.csv, covariance.csv, singular_values.csv,
// weak_directions.csv and frf_<posture>.csv per posture (each when the file has its data).
std::vector<CsvTable> FitResultTables(const FitResult& result);
// modes.csv, poles.csv and frf.csv (measured and synthesized FRFs of the lines used).
std::vector<CsvTable> EmaResultTables(const EmaResult& result);

// map_points.csv (one row per posture: the swept coordinates, stiffness with 1σ, and the cut's
// stability when the map has one) and map_modes.csv (one row per mode per posture).
std::vector<CsvTable> PostureMapTables(const PostureMapData& map);
// lobes.csv (one row per spindle speed: the envelope, its chatter frequency, the band) and
// lobe_minima.csv (one row per lobe).
std::vector<CsvTable> LobesTables(const LobesFile& lobes);

// Reads `path` as `kind` and returns its tables; every problem is an Error naming the file.
std::vector<CsvTable> ExportTables(const std::string& path, ExportKind kind);

// "H_xz": the column prefix of entry H_ij (response axis i, excitation axis j) in every table.
std::string EntryColumn(int entry);

}  // namespace frfit
