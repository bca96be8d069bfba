// ReportData: everything the HTML fit report shows, read back from a fit result file (layout:
// docs/file-formats.md, written by WriteFitResult). Plain arrays, no model needed: a report can be
// made on a machine that has only the result file.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frfit/results/fit_result.h"
#include "frfit/fit/constraints.h"
#include "frfit/results/identifiability.h"
#include "frfit/results/model_check.h"

namespace frfit {

struct EmaResult;  // modal/ema.h

struct ReportHistoryRow {
  int cycle = 0;
  // 0 genetic algorithm, 1 Nelder-Mead, 2 Levenberg-Marquardt (/history@phase_codes)
  int phase = 0;
  int step = 0;
  std::int64_t evaluations = 0;
  double best_cost = 0.0;
};

// One row of /postures/<name>/modal_comparison (Table 6 of the paper). NaN where unknown.
struct ReportModalRow {
  double reference_frequency_hz = 0.0, reference_damping_ratio = 0.0;
  double fitted_frequency_hz = 0.0, fitted_damping_ratio = 0.0;
  double frequency_error_percent = 0.0, damping_error_percent = 0.0;
  double mac = 0.0;
  double fitted_frequency_sigma_hz = 0.0, fitted_damping_sigma = 0.0;  // 1σ, NaN if unknown
};

// A modal comparison as the result file keeps it (fit/modal_comparison.h): a set's, or a posture's
// over all its points.
struct ReportModalComparison {
  std::string modal_reference;  // where the reference modes came from
  std::vector<ReportModalRow> modes;
  std::vector<double> unpaired_fitted_hz;  // fitted modes in the band no reference mode took
  // /mac: every reference mode (row) against every fitted mode in mac_fitted_hz; empty in results
  // written before it was stored.
  std::vector<double> mac_fitted_hz;
  std::vector<double> mac;  // [reference][fitted]
};

// One FRF set: /postures/<name>; its modal comparison at its response point.
struct ReportPosture : ReportModalComparison {
  std::string name;     // the group's: the posture, or posture:response:excitation (SetName)
  // The set's posture and measurement points ("" = the sensor).
  std::string posture, response_frame, excitation_frame;
  std::string frf_file, format, units;                   // group attributes
  std::vector<double> frequency_hz;                      // [line]
  std::vector<std::complex<double>> measured, fitted;    // [line * 9 + 3 * i + j]
  std::vector<double> weights;                           // [line * 9 + 3 * i + j]
  std::vector<double> noise_variance;  // [line * 9 + 3 * i + j]; empty without a noise model
  std::string noise_source;
  std::array<bool, 9> present{};
  double cost = 0.0;
  std::vector<double> dropped_hz;
  std::shared_ptr<const EmaResult> ema;  // /postures/<name>/ema: the reference's diagram, if any
  int num_lines() const { return static_cast<int>(frequency_hz.size()); }
};

// /modal_comparison_points/<posture>: a posture's modes with shapes stacked over every response
// point its sets measured (the MAC that tells apart modes one point confuses).
struct ReportModalComparisonPoints : ReportModalComparison {
  std::string posture;
  std::vector<std::string> points;  // in stacking order
};

struct ReportData {
  std::string result_file;  // the path it was read from
  std::string model, model_file, seed, backend_given, backend_used, termination, settings_yaml,
      frfit_version;
  std::vector<std::string> parameter_names, parameter_units;
  std::vector<double> values, initial, min, max;
  std::vector<int> free;  // 1 where fitted, 0 where held fixed
  double cost = 0.0, initial_population_best_cost = 0.0;
  double evaluations = 0.0, ga_evaluations = 0.0, nm_evaluations = 0.0, lm_evaluations = 0.0;
  double wall_seconds = 0.0, ga_seconds = 0.0, nm_seconds = 0.0, lm_seconds = 0.0, cycles = 0.0;
  std::string refinement;  // "levenberg_marquardt" or "nelder_mead" (older files: nelder_mead)
  std::vector<ReportHistoryRow> history;
  std::vector<ReportPosture> postures;  // in name order (HDF5 keeps no creation order here)
  std::vector<ReportModalComparisonPoints> modal_comparison_points;  // in posture name order
  bool has_identifiability = false;     // older result files have no /identifiability
  Identifiability identifiability;
  bool has_model_check = false;  // results written before the model check have none
  ModelCheck model_check;
  std::vector<StaticTestResult> static_tests;  // frfit fit --static; empty without
  std::vector<ConstraintStatus> constraints;    // the fit's constraints; empty without
};

// Reads a fit result file completely. Throws Error naming `path` (and the object) when the file is
// missing, not HDF5, not a fit result, or has arrays of inconsistent shapes.
ReportData ReadReportData(const std::string& path);

}  // namespace frfit
