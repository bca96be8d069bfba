// A measurement campaign (docs/campaign.md): many FRFs between response and reference DOFs at
// named nodes, on one frequency axis, with optional coherence, averages, node coordinates and
// trace lines. It is read from UFF files (58/58b FRFs and coherences, 15/2411 nodes, 82 trace
// lines) and kept in an HDF5 file; the modal analysis, the drawings and the model correlation of
// a campaign start from it.
#pragma once

#include <array>
#include <complex>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frfit/frf/frf_format.h"

namespace frfit::campaign {

// A DOF as UFF names it: node id and direction ±1/±2/±3 = ±X/±Y/±Z of the global system, or 0
// for a scalar DOF (a sensor without a direction, as some front ends write).
struct Dof {
  long node = 0;
  int direction = 0;
  bool operator==(const Dof&) const = default;
};
std::string ToString(const Dof& dof);  // "12+X", "3-Z", "7" (scalar)

// One FRF of the campaign, in SI units of its format.
struct Record {
  Dof response, reference;
  FrfFormat format = FrfFormat::kReceptance;
  std::string units;   // the file's units label, "numerator / denominator"
  std::string file;    // where it was read: the UFF file and
  std::string where;   // the record in it, "dataset 58 record N" (the coherence's, if any, after)
  std::vector<std::complex<double>> H;  // one value per line of Campaign::frequency_hz
  std::vector<double> coherence;        // empty: no coherence record; else one per line
  std::optional<int> averages;          // behind the coherence; empty when unknown
};

struct TraceLine {
  long id = 0;
  std::string name;
  std::vector<long> nodes;  // drawn in order; 0 lifts the pen (UFF 82)
};

struct Campaign {
  std::vector<double> frequency_hz;  // shared by every record
  std::vector<Record> records;
  std::map<long, std::array<double, 3>> coordinates;  // node → x, y, z (global, file units)
  std::vector<TraceLine> trace_lines;
  bool exponential_window = false;   // stated by the user; UFF 58 cannot record it
  std::vector<std::string> assumed;  // what the reading assumed, one sentence each
  std::vector<std::string> unused;   // datasets read but not used, "FILE: dataset 151 (header)"

  // The response and reference DOFs, each once, in the order they first appear.
  std::vector<Dof> ResponseDofs() const;
  std::vector<Dof> ReferenceDofs() const;
  // Nodes any record or trace line names, sorted.
  std::vector<long> Nodes() const;
};

// Checks the invariants every reader and writer relies on; throws Error(source, "record N", ...)
// naming the first record that breaks one (by_origin: Error(record.file, record.where, ...), as a
// reader of those files says it): the axis shared and increasing, one format, each DOF
// pair once, directions 0 or ±1..±3, coherence in [0, 1] of the axis' length, trace lines on
// nodes with coordinates, and — with require_coordinates — coordinates for every record's nodes.
void Validate(const Campaign& campaign, const std::string& source, bool require_coordinates = false,
              bool by_origin = false);

}  // namespace frfit::campaign
