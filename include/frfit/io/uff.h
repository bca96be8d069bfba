// Universal File Format (UFF) datasets 58 (ASCII) and 58b (binary) for measured FRFs
// (docs/uff.md). Reading parses every dataset of a file into records; turning records into an
// FrfSet maps (node, direction) pairs onto the 3×3 sensor-frame matrix, detects the FRF format
// from the units and refuses whatever is not an FRF by name. Writing produces one dataset 58 or
// 58b per present entry of an FrfSet.
#pragma once

#include <array>
#include <complex>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit::uff {

// Records 8..11 of dataset 58: one axis' data characteristics.
struct AxisInfo {
  int specific_data_type = 0;  // 0 unknown, 1 general, 8 displacement, 11 velocity, 12 acc., ...
  int length_exponent = 0;
  int force_exponent = 0;
  int temperature_exponent = 0;
  std::string label;  // axis label (20 characters, trailing blanks removed)
  std::string units;  // axis units label
};

// One dataset 58 / 58b: a function of one response DOF against one reference DOF.
struct Function58 {
  bool binary = false;                 // read from / written as 58b
  std::array<std::string, 5> id_lines;  // records 1..5, trailing blanks and CR removed
  // Record 6.
  int function_type = 0;  // 1 time response, 4 FRF, 6 coherence, 9 PSD, ... (FunctionTypeName)
  long function_id = 0;
  long version = 0;
  long load_case = 0;
  std::string response_name = "NONE";
  long response_node = 0;
  int response_direction = 0;  // 0 scalar, ±1..±3 translation X/Y/Z, ±4..±6 rotation
  std::string reference_name = "NONE";
  long reference_node = 0;
  int reference_direction = 0;
  // Record 7.
  int ordinate_type = 6;  // 2 real single, 4 real double, 5 complex single, 6 complex double
  bool even = true;       // abscissa spacing: even (x_min + k·dx) or uneven (x stored per point)
  double x_min = 0.0, dx = 0.0, z_value = 0.0;
  // Records 8..11: abscissa, ordinate (numerator), ordinate denominator, z axis.
  AxisInfo abscissa, ordinate, denominator, z_axis;
  // Record 12: the data. `x` is filled for even spacing too (x_min + k·dx); real ordinates have
  // a zero imaginary part.
  std::vector<double> x;
  std::vector<std::complex<double>> y;

  bool is_complex() const { return ordinate_type == 5 || ordinate_type == 6; }
  bool is_double() const { return ordinate_type == 4 || ordinate_type == 6; }
};

// Any dataset of a file. Datasets other than 58/58b are recognised by number and skipped (the
// geometry datasets keep their lines).
struct Dataset {
  int number = 0;        // 58, 151, 164, 2411, ...
  bool binary = false;   // "58b"
  int first_line = 0;    // 1-based line of the opening "-1"
  int record = 0;        // 1-based index among the file's 58/58b datasets (0 for others)
  std::optional<Function58> function;  // set for 58/58b
  // The lines between the dataset number and the closing "-1" of geometry datasets (15 and 2411
  // nodes, 82 trace lines), which campaign/campaign_uff.cc interprets; empty for others.
  std::vector<std::string> lines;
};

struct File {
  std::string source;  // file name used in messages
  std::vector<Dataset> datasets;
  std::vector<const Function58*> functions() const;  // the 58/58b records in file order
};

// Parses a whole UFF file held in memory. Every malformation (missing "-1", non-numeric or
// out-of-range field, wrong number of values, a 58b byte count that disagrees with the header
// or the file) throws Error("source", "dataset 58 record N.field", ...). Never reads out of range.
File Parse(std::string_view bytes, const std::string& source);
File Read(const std::string& path);

// "time response", "frequency response function", ... ("function type N" when unknown).
std::string FunctionTypeName(int function_type);
// "header", "units", "nodes", ... for dataset numbers; "" when unknown.
std::string DatasetName(int number);

// Which records form the FRF matrix and how their DOFs map onto the sensor frame.
struct Mapping {
  std::optional<long> sensor_node;      // response node; default: the one node the records use
  std::optional<long> excitation_node;  // reference node; default: sensor_node
  // The model frames those nodes are (FrfSet::response_frame / excitation_frame); "" = the
  // sensor. A roving-point campaign maps each file's nodes to its frames (docs/multi-point.md).
  std::string response_frame, excitation_frame;
  // Node → model frame for many nodes (`nodes:`): a campaign's points, for correlating its modes
  // with a model (campaign/campaign_correlation.h); convert takes the sensor's and the excitation
  // node's frames from it when response_frame / excitation_frame are not given.
  std::map<long, std::string> node_frames;
  // Direction code → (axis 0..2, sign ±1). Default: ±1/±2/±3 → ±x/±y/±z.
  std::map<int, std::pair<int, int>> directions;
  std::vector<int> records;  // 1-based dataset-58 record numbers to use; empty: all
  std::optional<int> averages;  // behind the coherence records (ToFrfOptions::averages)
  std::string source;        // mapping file, for messages
};
Mapping DefaultMapping();
// YAML: sensor_node, excitation_node, response_frame, excitation_frame, nodes {node: frame}, directions {code: "+x"|"-z"|...}, records [..], averages.
Mapping ReadMapping(const std::string& path);

// Units of an FRF ordinate as the file states them.
struct DetectedUnits {
  std::optional<FrfFormat> format;  // empty when the units say nothing usable
  double scale = 1.0;               // factor to SI (g → 9.80665 m/s², mm → 1e-3 m, ...)
  std::string how;                  // "specific data types 12/13", "units label '(1/N)*(m/s²)'"
};
// Parses a unit label such as "m/s^2/N", "(1/N)*(m/s²)", "g/N", "mm/N" into the FRF format it
// denotes and the factor to SI; empty format when it is not motion over force.
DetectedUnits UnitsFromLabel(const std::string& numerator, const std::string& denominator);
// Dimensions of one quantity's units label ("N", "lbf", "m/s^2", "g", "mm/s", "m"): exponents of
// length, time and force and the factor to SI; empty when the label is blank, NONE or not made of
// the atoms UnitsFromLabel knows. Time records (io/uff_time.h) tell their channels by it.
struct UnitDimensions {
  int length = 0, time = 0, force = 0;
  double scale = 1.0;
};
std::optional<UnitDimensions> ParseUnits(const std::string& label);
// Combines the specific data types and the labels of one record (throws when they disagree).
DetectedUnits DetectUnits(const Function58& f, const std::string& source, const std::string& where);

struct ToFrfOptions {
  std::string posture;
  std::optional<FrfFormat> format;  // override: skip detection (labels still give the scale)
  Mapping mapping = DefaultMapping();
  // The number of averages behind coherence records (dataset 58 does not carry it); needed when
  // the file has any (their noise variance is (1 − γ²)/(n γ²)·|H|², docs/noise.md).
  std::optional<int> averages;
};

// Builds the FrfSet from the file's FRF records (function type 4) and their coherence records
// (type 6, paired with an FRF by the same response and reference DOFs, their noise model then
// derived from them); refuses other datasets by name, records that do not share one abscissa,
// duplicate or unmappable DOFs, a coherence without its FRF and unknown units.
FrfSet ToFrfSet(const File& file, const ToFrfOptions& options);

// One Function58 per present entry of `set` (response/reference node `node`, directions 1/2/3).
std::vector<Function58> FromFrfSet(const FrfSet& set, long node = 1, bool binary = false);
// Serialises datasets 58 (ASCII, spec formats) or 58b (binary, double, little endian).
std::string Format(const std::vector<Function58>& functions);
// FromFrfSet + Format, written atomically.
void WriteFrfSet(const std::string& path, const FrfSet& set, bool binary, long node = 1);

}  // namespace frfit::uff
