// FrfSet: a 3×3 FRF matrix per frequency line at one posture, measured or synthesised, in the
// sensor frame. It holds data only; reading and writing files lives under io/.
#pragma once

#include <array>
#include <complex>
#include <string>
#include <vector>

#include "frfit/frf/frf_format.h"

namespace frfit {

// Index of entry H_ij (i response axis, j excitation axis; x=0, y=1, z=2) in a row-major 3×3.
constexpr int EntryIndex(int i, int j) { return 3 * i + j; }
std::string EntryName(int entry);  // "xx", "xy", ... "zz"

struct FrfSet {
  std::string posture;                    // the model's posture name the data belong to
  FrfFormat format = FrfFormat::kInertance;
  std::vector<double> frequency_hz;       // strictly increasing, one per line
  // H[line * 9 + EntryIndex(i, j)], in the units of `format`. Entries not present hold 0.
  std::vector<std::complex<double>> H;
  std::array<bool, 9> present{};          // which of the nine entries were measured
  // Where the data came from (free text pairs: "model", "parameters", "source_file", ...).
  std::vector<std::pair<std::string, std::string>> provenance;

  int num_lines() const { return static_cast<int>(frequency_hz.size()); }
  std::complex<double>& at(int line, int i, int j) { return H[line * 9 + EntryIndex(i, j)]; }
  const std::complex<double>& at(int line, int i, int j) const {
    return H[line * 9 + EntryIndex(i, j)];
  }
};

// Checks sizes, finiteness and ordering; throws Error naming `source` and the offending field.
void Validate(const FrfSet& set, const std::string& source);

// Returns the same data in another format (multiplies by (iω)^Δorder line by line).
// Converting to a lower order at a 0 Hz line is an error.
FrfSet ConvertFormat(const FrfSet& set, FrfFormat to);

}  // namespace frfit
