// EMA results in HDF5 (layout: docs/file-formats.md, "EMA results"): a file of its own written by
// `frfit ema --out`, which `frfit report` turns into a page, and the same group inside a fit result
// (/postures/<name>/ema) when the fit's modal reference was estimated from the measured FRFs.
//   <group>/@method, @references, @source, @posture, @format, @units, @band_hz, @max_order, …
//   <group>/criteria/@frequency_tolerance, … (the stabilisation criteria used)
//   <group>/poles/{order, frequency_hz, damping_ratio, stability}   [P]  the diagram
//   <group>/modes/{frequency_hz, damping_ratio, stable_poles, lowest_order} [M],
//               sensor_shape [M][3][2], residues [M][3][3][2]
//   <group>/frequency_hz [L], measured_H, synthesized_H [L][3][3][2], present [3][3] (with FRFs)
#pragma once

#include <string>
#include <vector>

#include "frfit/files/hdf5_file.h"
#include "frfit/modal/ema.h"

namespace frfit {

// Writes `result` into `group` (created) of an open file; with_frfs adds the measured and
// synthesized FRFs of the lines used.
void WriteEmaGroup(Hdf5File* file, const std::string& group, const EmaResult& result,
                   bool with_frfs);
// Reads what WriteEmaGroup wrote; FRFs when the group has them. Throws Error naming the file and
// the object on a missing or inconsistent dataset.
EmaResult ReadEmaGroup(const Hdf5File& file, const std::string& group);

// The stabilisation criteria used, as attributes of <group>/criteria (created): the single-set
// and the campaign EMA groups hold them alike. The reader throws Error naming the attribute.
void WriteEmaCriteria(Hdf5File* file, const std::string& group, const StabilisationCriteria& criteria);
StabilisationCriteria ReadEmaCriteria(const Hdf5File& file, const std::string& group);

// The diagram's columns that are not modes (EmaResult::dropped) in <group>/dropped, one row each,
// the reason by its name: written by frfit ema since 2026-11 (a campaign's EMA too). The reader
// returns none where the group has no such rows (older files, a fit result's EMA) and throws
// Error naming the file and the object on inconsistent rows or an unknown reason.
void WriteEmaDropped(Hdf5File* file, const std::string& group, const std::vector<EmaDropped>& dropped);
std::vector<EmaDropped> ReadEmaDropped(const Hdf5File& file, const std::string& group);

// A file of kind "ema_result" holding one group "/ema" with FRFs; written atomically.
void WriteEmaResult(const std::string& path, const EmaResult& result);
EmaResult ReadEmaResult(const std::string& path);

}  // namespace frfit
