// The CSV tables of frfit's predictions: a posture map (frfit map --out) and stability lobes
// (frfit lobes --out). Values are copied from the files, never recomputed (docs/export.md).
#include <cmath>

#include "frfit/report/csv_export.h"

namespace frfit {
namespace {

std::vector<std::string> Indices(size_t count) {
  std::vector<std::string> cells;
  for (size_t i = 0; i < count; ++i) cells.push_back(std::to_string(i));
  return cells;
}

}  // namespace

std::vector<CsvTable> PostureMapTables(const PostureMapData& d) {
  const size_t np = d.points.size();
  CsvTable points("map_points.csv",
                  "one row per posture of the map: its index, the swept coordinates (the model "
                  "file's units), the tool tip's least dynamic stiffness per sensor axis with 1σ "
                  "(N/m) and where (Hz), the least over every direction, and the cut's stability "
                  "when the map has one");
  points.AddColumn("posture", Indices(np));
  for (size_t c = 0; c < d.coordinates.size(); ++c) {
    std::vector<double> column;
    for (const std::vector<double>& g : d.grid) column.push_back(g[c]);
    points.AddNumberColumn(d.coordinates[c], column);
  }
  const char* axes = "xyz";
  for (int i = 0; i < 3; ++i) {
    std::vector<double> value, sigma, at;
    for (const MapPoint& p : d.points) {
      value.push_back(p.stiffness.axis_n_per_m[i]);
      sigma.push_back(p.stiffness.axis_sigma_n_per_m[i]);
      at.push_back(p.stiffness.axis_at_hz[i]);
    }
    const std::string axis(1, axes[i]);
    points.AddNumberColumn("stiffness_" + axis + "_n_per_m", value);
    points.AddNumberColumn("stiffness_" + axis + "_sigma_n_per_m", sigma);
    points.AddNumberColumn("stiffness_" + axis + "_at_hz", at);
  }
  std::vector<double> least, least_at, direction[3];
  for (const MapPoint& p : d.points) {
    least.push_back(p.stiffness.least_n_per_m);
    least_at.push_back(p.stiffness.least_at_hz);
    for (int i = 0; i < 3; ++i) direction[i].push_back(p.stiffness.least_direction[i]);
  }
  points.AddNumberColumn("least_stiffness_n_per_m", least);
  points.AddNumberColumn("least_stiffness_at_hz", least_at);
  for (int i = 0; i < 3; ++i)
    points.AddNumberColumn(std::string("least_direction_") + axes[i], direction[i]);
  if (!d.cut.empty()) {
    std::vector<double> depth, speed, any;
    for (const MapPoint& p : d.points) {
      depth.push_back(p.stability.critical_depth_m);
      speed.push_back(p.stability.critical_spindle_speed_rpm);
      any.push_back(p.stability.absolute_critical_depth_m);
    }
    points.AddNumberColumn("critical_depth_m", depth);
    points.AddNumberColumn("critical_spindle_speed_rpm", speed);
    points.AddNumberColumn("absolute_critical_depth_m", any);
  }
  CsvTable modes("map_modes.csv",
                 "one row per mode per posture (up to the map's max_hz): the posture's index in "
                 "map_points.csv, the mode's index by frequency, frequency and damping ratio with "
                 "their 1σ");
  std::vector<std::string> posture, mode;
  std::vector<double> f, f_sigma, zeta, zeta_sigma;
  for (size_t p = 0; p < np; ++p)
    for (size_t k = 0; k < d.points[p].modes.size(); ++k) {
      const MapMode& m = d.points[p].modes[k];
      posture.push_back(std::to_string(p));
      mode.push_back(std::to_string(k + 1));
      f.push_back(m.frequency_hz);
      f_sigma.push_back(m.frequency_sigma_hz);
      zeta.push_back(m.damping_ratio);
      zeta_sigma.push_back(m.damping_ratio_sigma);
    }
  modes.AddColumn("posture", posture);
  modes.AddColumn("mode", mode);
  modes.AddNumberColumn("frequency_hz", f);
  modes.AddNumberColumn("frequency_sigma_hz", f_sigma);
  modes.AddNumberColumn("damping_ratio", zeta);
  modes.AddNumberColumn("damping_ratio_sigma", zeta_sigma);
  std::vector<CsvTable> tables;
  tables.push_back(std::move(points));
  tables.push_back(std::move(modes));
  return tables;
}

std::vector<CsvTable> LobesTables(const LobesFile& d) {
  const StabilityLobes& l = d.lobes;
  CsvTable envelope("lobes.csv",
                    "one row per spindle speed (rpm): the stability limit (depth of cut, m; inf "
                    "where no lobe reaches the speed) and the chatter frequency of the lobe that "
                    "sets it (Hz)" +
                        std::string(d.band.samples > 0
                                        ? ", and the 5 and 95 % quantiles of the limit over the "
                                          "parameter sets drawn from the fit's covariance"
                                        : ""));
  envelope.AddNumberColumn("spindle_speed_rpm", l.spindle_speed_rpm);
  envelope.AddNumberColumn("depth_limit_m", l.depth_limit_m);
  envelope.AddNumberColumn("chatter_frequency_hz", l.chatter_frequency_hz);
  if (d.band.samples > 0) {
    envelope.AddNumberColumn("depth_limit_m_p05", d.band.depth_limit_m_p05);
    envelope.AddNumberColumn("depth_limit_m_p95", d.band.depth_limit_m_p95);
  }
  CsvTable minima("lobe_minima.csv",
                  "one row per lobe reaching the speed range: its number k, its minimum depth "
                  "(m) at which speed (rpm) and chatter frequency (Hz), and whether the range "
                  "cuts it (clipped: 1, the minimum lies outside)");
  std::vector<std::string> k, clipped;
  std::vector<double> depth, speed, chatter;
  for (const LobeMinimum& m : l.lobes) {
    k.push_back(std::to_string(m.k));
    clipped.push_back(m.clipped ? "1" : "0");
    depth.push_back(m.depth_m);
    speed.push_back(m.spindle_speed_rpm);
    chatter.push_back(m.chatter_frequency_hz);
  }
  minima.AddColumn("k", k);
  minima.AddNumberColumn("depth_m", depth);
  minima.AddNumberColumn("spindle_speed_rpm", speed);
  minima.AddNumberColumn("chatter_frequency_hz", chatter);
  minima.AddColumn("clipped", clipped);
  std::vector<CsvTable> tables;
  tables.push_back(std::move(envelope));
  tables.push_back(std::move(minima));
  return tables;
}

}  // namespace frfit
