// Table 6 of the paper: the fitted model's modes against reference modes, mode by mode, seen at
// each FRF set's response point and, for a posture measured at several points, at all of them at
// once.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/host_posture.h"
#include "frfit/frf/frf_set.h"
#include "frfit/modal/ema.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model.h"

namespace frfit {

struct ModalComparisonRow {
  double reference_frequency_hz = 0.0;
  double reference_damping_ratio = 0.0;  // NaN when the reference has no damping estimate
  double fitted_frequency_hz = 0.0;
  double fitted_damping_ratio = 0.0;
  double frequency_error_percent = 0.0;  // 100·(fitted − reference)/reference
  double damping_error_percent = 0.0;    // same, relative; NaN without a reference damping
  double mac = 0.0;  // sensor-frame MAC over the axes the reference has; NaN without shapes
  int fitted_index = -1;  // the paired mode's place among the fitted modes given; -1: unpaired
  // 1σ of the fitted mode's frequency (Hz) and damping ratio, propagated from the fit's
  // covariance (fit/mode_uncertainty.h); NaN when unpaired or not known.
  double fitted_frequency_sigma_hz = std::numeric_limits<double>::quiet_NaN();
  double fitted_damping_sigma = std::numeric_limits<double>::quiet_NaN();
};

// The result file's /postures/<name>/modal_comparison table: one row per reference mode with
// these columns (results before 2026-11 have the first 7).
inline constexpr int kModalComparisonColumns = 9;
inline constexpr const char* kModalComparisonColumnNames =
    "reference_frequency_hz, reference_damping_ratio, fitted_frequency_hz, fitted_damping_ratio, "
    "frequency_error_percent, damping_error_percent, mac, fitted_frequency_sigma_hz, "
    "fitted_damping_sigma";

struct ModalComparison {
  std::string reference;  // where the reference modes came from
  // One per reference mode, paired one to one with the fitted modes (mode_pairing.h); a reference
  // mode without a partner has NaN fitted values.
  std::vector<ModalComparisonRow> rows;
  // Fitted modes up to the highest reference frequency (or the band) that no reference mode took.
  std::vector<double> unpaired_fitted_frequency_hz;
  std::shared_ptr<const EmaResult> ema;  // the estimation, when the reference came from EMA
  // The MAC of every reference mode with every fitted mode up to 1.2 × the highest reference
  // frequency (and every paired one): a fit that swapped two modes shows off the diagonal, which
  // the paired MACs alone cannot. [reference][fitted]; NaN where a mode has no shape.
  std::vector<double> mac_fitted_frequency_hz;
  Eigen::MatrixXd mac;
};

// Reference modes of a measured set: when its provenance names the parameters it was synthesised
// from for this model, the model's modes with those parameters ("From [34]" in Table 6);
// otherwise the modes `frfit ema` estimates from the measured FRFs themselves (their estimation
// in *ema when given; no modes, and the reason in the description, when the data cannot give
// any). Only modes up to max_hz.
std::vector<Mode> ReferenceModes(const Model& model, const Posture& posture, const FrfSet& measured,
                                 double max_hz, std::string* description,
                                 std::shared_ptr<const EmaResult>* ema = nullptr);
// The same on a set's host posture (fit/host_posture.h): a reduced set's model modes are its
// reduced posture's.
std::vector<Mode> ReferenceModes(const Model& model, const HostPosture& host,
                                 const FrfSet& measured, double max_hz, std::string* description,
                                 std::shared_ptr<const EmaResult>* ema = nullptr);

// Pairs the reference modes one to one with the fitted modes (least total frequency difference
// plus 1 − MAC, pairs within 25 % in frequency): two reference modes never share a fitted mode.
// Fitted modes up to max_hz left without a partner are listed as unpaired.
ModalComparison CompareModes(const std::vector<Mode>& reference, const std::vector<Mode>& fitted,
                             const std::string& description,
                             double max_hz = std::numeric_limits<double>::infinity());
// The same with the MAC of given shapes, one per mode (NaN where an entry is unknown), in place of
// the modes' sensor_shape: pairing, rows and the MAC table alike.
ModalComparison CompareModes(const std::vector<Mode>& reference,
                             const std::vector<Eigen::VectorXcd>& reference_shapes,
                             const std::vector<Mode>& fitted,
                             const std::vector<Eigen::VectorXcd>& fitted_shapes,
                             const std::string& description,
                             double max_hz = std::numeric_limits<double>::infinity());

// Whether a set's provenance names the parameters it was synthesised from for this model; then
// *values holds them in Model::parameters order.
bool SynthesisParameters(const Model& model, const FrfSet& set, std::vector<double>* values);

// The modes of one posture seen at every point where its FRF sets measured the response: the three
// components of each point, in that frame's axes, stacked point after point ([point][axis]). One
// point's three components cannot tell every pair of modes apart (two KUKA modes have MAC 0.92 at
// the tool tip); the shape over several points can. The result file's
// /modal_comparison_points/<posture> (docs/multi-point.md).
struct ModalComparisonPoints {
  std::string posture;
  std::vector<std::string> points;  // response frames in stacking order (the sensor's by its name)
  ModalComparison modal;            // its MAC over all 3·points components
};

// The result file's /modal_comparison_points/<posture>@points: the frames joined by ", " (a frame
// name holding ", " would not read back; the command line's lists of frames take none either).
std::string PointsAttribute(const std::vector<std::string>& points);
std::vector<std::string> PointsFromAttribute(const std::string& text);

// One per posture whose FRF sets measured the response at two or more points, in the order the
// postures first appear. Fitted modes: the model's at `parameters`. Reference modes: the model's
// at the parameters the sets were synthesised from, when they all name the same; otherwise each
// set's EMA estimate (per_set[s]->ema, per_set[s] being problem.postures[s]'s comparison), paired
// across the sets by frequency and stacked from their residues (docs/decisions.md); none, with the
// reason in modal.reference, when neither is possible.
std::vector<ModalComparisonPoints> CompareModesAtPoints(
    const Problem& problem, const std::vector<double>& parameters,
    const std::vector<const ModalComparison*>& per_set);

}  // namespace frfit
