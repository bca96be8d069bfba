// The identified model predicted over a grid of postures (frfit map): at each posture the modes
// below a frequency with their 1σ, and the tool tip's least dynamic stiffness per sensor axis and
// over all directions, with its 1σ. The fit's covariance is carried to each posture linearised
// (fit/mode_uncertainty.h), so one pass over the grid gives values and σ together.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "frfit/results/identifiability.h"
#include "frfit/model/model.h"
#include "frfit/predict/cut_config.h"

namespace frfit {

// One coordinate swept by the grid: values start, start + step, ... up to stop (inclusive within
// 1e-9·step), in the model file's units (degrees for angles), set on top of the base posture.
struct GridAxis {
  std::string coordinate;
  int index = -1;              // into Model coordinates
  std::vector<double> values;  // model file units
};

// Parses "z2=30:120:1,z3=-160:-40:2"; Error naming `what` on an unknown coordinate, a range that
// is empty or not finite, a step <= 0, a coordinate given twice, or more than `max_points` points.
std::vector<GridAxis> ParseGrid(const std::string& text, const Model& model, const std::string& what,
                                long max_points = 10000000);

// Every point of the grid, the first axis varying slowest: coordinates (rad / m) of each.
std::vector<std::vector<double>> GridPostures(const Model& model, const std::vector<double>& base_q,
                                              const std::vector<GridAxis>& axes);

// The swept coordinates' values (file units, as --grid gave them) of point `index` of
// GridPostures: exact, where converting its q back from radians would not be.
std::vector<double> GridValues(const std::vector<GridAxis>& axes, size_t index);

struct MapMode {
  double frequency_hz = 0.0, damping_ratio = 0.0;
  double frequency_sigma_hz = 0.0, damping_ratio_sigma = 0.0;  // NaN without a covariance
  std::vector<std::string> dominant_dofs;  // DOFs moving at least half as much as the largest
};

// The tool tip's least dynamic stiffness over the band (0, max_hz]: min over ω of 1/|H_ii(ω)| per
// sensor axis i (receptance), and min over ω of 1/σ_max(H(ω)) over every direction, with the
// direction (a unit vector in sensor axes) that gives way most there.
struct ToolTipStiffness {
  std::array<double, 3> axis_n_per_m{};      // per sensor axis x, y, z
  std::array<double, 3> axis_at_hz{};        // where the minimum is
  std::array<double, 3> axis_sigma_n_per_m{};  // 1σ from the fit's covariance; NaN without one
  double least_n_per_m = 0.0;
  double least_at_hz = 0.0;
  std::array<double, 3> least_direction{};  // unit vector, sensor axes, largest component > 0
};

// With a cut (frfit map --cut): the milling stability of that cut at the posture, as frfit lobes
// computes it (docs/lobes.md). NaN without a cut; +inf where no lobe reaches the speed range.
struct MapStability {
  double critical_depth_m = std::numeric_limits<double>::quiet_NaN();  // min over the range
  double critical_spindle_speed_rpm = std::numeric_limits<double>::quiet_NaN();
  double absolute_critical_depth_m = std::numeric_limits<double>::quiet_NaN();  // at any speed
};

struct MapPoint {
  std::vector<double> q;  // every coordinate, rad / m
  std::vector<MapMode> modes;
  ToolTipStiffness stiffness;
  MapStability stability;
};

struct MapOptions {
  double max_hz = 100.0;
  int threads = 1;
  const CutConfig* cut = nullptr;  // the stability of this cut at every posture, when set
  // Called with (postures done, postures) from the calling thread as the map proceeds, when set.
  std::function<void(std::size_t, std::size_t)> progress;

  // Names the offending field: max_hz finite and > 0, threads >= 1 (a caller resolves "all
  // hardware threads" itself), and the cut's stability options ("cut.teeth", …) when a cut is set.
  bool IsValid(std::string* error) const;
};

// The map over `postures` (GridPostures). `id` with an empty per_parameter: no σ (NaN). Invalid
// options throw Error("posture map: <field>: expected …") before any posture is computed.
std::vector<MapPoint> ComputePostureMap(const Model& model, const std::vector<double>& parameters,
                                        const Identifiability& id,
                                        const std::vector<std::vector<double>>& postures,
                                        const MapOptions& options);

}  // namespace frfit
