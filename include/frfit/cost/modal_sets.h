// Measured modes as data of a fitting problem (`frfit fit --modes EMA.h5`, docs/fit-config.md,
// "Modal data"): each `frfit ema` result becomes one ModalSet — its posture linearised on the
// model, the point its shapes were seen at, and each mode's frequency, damping and shape with
// their 1σ. A set may also see its shapes at several points (modes measured over a structure,
// papers/002's 22 points on a mechanism): one shape per mode over all of them, with one scale.
// The cost they add is computed on the host (fit/modal_cost.h), not by the evaluators.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/modal/ema.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"

namespace frfit {

// How measured modes are scored (the fit configuration's `modes:` block).
struct ModalCostOptions {
  // 1σ of each real and imaginary part of a measured shape scaled to unit length: the shape
  // residuals' noise (EMA files carry no shape variance; docs/decisions.md, "Modal cost").
  double shape_std = 0.02;
  // Whether the damping ratios are fitted too (weighted by the EMA file's damping σ). Off by
  // default: an EMA damping's σ is wide and joint damping barely moves the frequencies.
  bool damping = false;
  bool IsValid(std::string* error) const;
};

struct MeasuredMode {
  double frequency_hz = 0.0;
  double frequency_sigma_hz = 0.0;  // the file's, or 1 % of the frequency where it has none
  double damping_ratio = 0.0;
  double damping_sigma = 0.0;       // the file's, or 0.25 × the ratio where it has none
  // At the set's entries (the columns of its basis: three per point, in that point's axes),
  // scaled to unit length over the known entries; NaN on entries not measured.
  Eigen::VectorXcd shape;
};

struct ModalSet {
  std::string source;          // the EMA file
  Posture posture;             // the model linearised at the set's posture
  // Where the shapes were seen, in stacking order: one frame for an `frfit ema` result ("": the
  // sensor), several for modes measured over a structure.
  std::vector<std::string> response_frames;
  // n×3P: the model's shape at the P points, three entries each, is basisᵀ·Mode::shape.
  Eigen::MatrixXd basis;
  std::vector<MeasuredMode> modes;
};

// The modal data of a problem: empty when the fit has none.
struct ModalData {
  ModalCostOptions options;
  std::vector<ModalSet> sets;
  bool empty() const { return sets.empty(); }
};

// One measured mode as a set scores it: the frequency (positive and finite, else an Error naming
// `source` and `field`.frequency_hz), its 1σ (1 % of it where not positive and finite), the
// damping ratio and its 1σ (0.25 × the ratio likewise), and `shape` (NaN: not measured) scaled to
// unit length over its known entries (none non-zero: an Error naming `shape_field`).
MeasuredMode MakeMeasuredMode(double frequency_hz, double frequency_sigma_hz,
                              double damping_ratio, double damping_sigma,
                              const Eigen::VectorXcd& shape, const std::string& source,
                              const std::string& field, const std::string& shape_field);

// One ModalSet from an EMA result read from `source`: its posture and response frame must exist
// on `model` and it must hold at least one mode; otherwise an Error naming `source`.
ModalSet MakeModalSet(const Model& model, const EmaResult& ema, const std::string& source);

// The n×3P basis of `frames` ("" = the sensor) at `posture` (the model linearised), their
// PointsAt response bases side by side; an unknown frame is an Error naming `source`.
Eigen::MatrixXd StackedPointBasis(const Model& model, const Posture& posture,
                                  const std::vector<std::string>& frames,
                                  const std::string& source);

}  // namespace frfit
