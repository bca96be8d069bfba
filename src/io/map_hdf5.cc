#include "frfit/io/map_hdf5.h"

#include <algorithm>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/model_yaml.h"

namespace frfit {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// [points][width] of `value(point, k)`, NaN where a point has fewer than `width` entries.
template <class Value>
std::vector<double> Padded(const std::vector<MapPoint>& points, size_t width, Value value) {
  std::vector<double> out(points.size() * width, kNaN);
  for (size_t p = 0; p < points.size(); ++p)
    for (size_t k = 0; k < width; ++k) value(points[p], k, &out[p * width + k]);
  return out;
}

void WriteModes(Hdf5File* f, const std::vector<MapPoint>& points) {
  size_t width = 0;
  std::vector<std::int64_t> count;
  for (const MapPoint& p : points) {
    width = std::max(width, p.modes.size());
    count.push_back(static_cast<std::int64_t>(p.modes.size()));
  }
  const hsize_t np = points.size(), nm = width;
  f->CreateGroup("/modes");
  f->WriteInts("/modes/count", {np}, count.data());
  auto field = [&](const char* name, double MapMode::*member) {
    const std::vector<double> v = Padded(points, width, [&](const MapPoint& p, size_t k, double* out) {
      if (k < p.modes.size()) *out = p.modes[k].*member;
    });
    f->WriteDoubles(std::string("/modes/") + name, {np, nm}, v.data());
  };
  field("frequency_hz", &MapMode::frequency_hz);
  field("damping_ratio", &MapMode::damping_ratio);
  field("frequency_sigma_hz", &MapMode::frequency_sigma_hz);
  field("damping_ratio_sigma", &MapMode::damping_ratio_sigma);
}

void WriteStiffness(Hdf5File* f, const std::vector<MapPoint>& points) {
  const hsize_t np = points.size();
  f->CreateGroup("/stiffness");
  auto triple = [&](const char* name, std::array<double, 3> ToolTipStiffness::*member) {
    const std::vector<double> v = Padded(points, 3, [&](const MapPoint& p, size_t k, double* out) {
      *out = (p.stiffness.*member)[k];
    });
    f->WriteDoubles(std::string("/stiffness/") + name, {np, 3}, v.data());
  };
  triple("axis_n_per_m", &ToolTipStiffness::axis_n_per_m);
  triple("axis_at_hz", &ToolTipStiffness::axis_at_hz);
  triple("axis_sigma_n_per_m", &ToolTipStiffness::axis_sigma_n_per_m);
  triple("least_direction", &ToolTipStiffness::least_direction);
  auto single = [&](const char* name, double ToolTipStiffness::*member) {
    const std::vector<double> v = Padded(points, 1, [&](const MapPoint& p, size_t, double* out) {
      *out = p.stiffness.*member;
    });
    f->WriteDoubles(std::string("/stiffness/") + name, {np}, v.data());
  };
  single("least_n_per_m", &ToolTipStiffness::least_n_per_m);
  single("least_at_hz", &ToolTipStiffness::least_at_hz);
}

void WriteStability(Hdf5File* f, const std::vector<MapPoint>& points, const std::string& cut) {
  const hsize_t np = points.size();
  f->CreateGroup("/stability");
  f->SetAttribute("/stability", "cut", cut);
  auto single = [&](const char* name, double MapStability::*member) {
    const std::vector<double> v = Padded(points, 1, [&](const MapPoint& p, size_t, double* out) {
      *out = p.stability.*member;
    });
    f->WriteDoubles(std::string("/stability/") + name, {np}, v.data());
  };
  single("critical_depth_m", &MapStability::critical_depth_m);
  single("critical_spindle_speed_rpm", &MapStability::critical_spindle_speed_rpm);
  single("absolute_critical_depth_m", &MapStability::absolute_critical_depth_m);
}

}  // namespace

void WritePostureMap(const std::string& path, const Model& model, const PostureMapFile& map) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);
  f.SetAttribute("/", "frfit_file", "posture_map");
  f.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  f.SetAttribute("/", "model", map.model_name);
  f.SetAttribute("/", "model_file", map.model_file);
  f.SetAttribute("/", "parameters_source", map.parameters_source);
  f.SetAttribute("/", "base_posture", map.base_posture);
  f.SetAttribute("/", "max_hz", FormatDouble(map.max_hz));
  // The swept coordinates in the model file's units (what --grid gave), then every coordinate of
  // every point in SI (rad / m), as Linearize takes them.
  std::vector<std::string> swept;
  for (const GridAxis& a : map.axes) swept.push_back(a.coordinate);
  f.WriteStrings("/grid_coordinates", swept);
  std::vector<std::string> units;
  for (const GridAxis& a : map.axes)  // an angle's file unit is the degree: 1 rad ≠ 1 there
    units.push_back(CoordinateToFileUnits(model, a.index, 1.0) != 1.0 ? "deg" : "m");
  f.WriteStrings("/grid_units", units);
  if (!map.measured_postures.empty()) {
    f.WriteStrings("/measured_postures", map.measured_postures);
    std::vector<double> measured;
    for (const auto& row : map.measured_grid) measured.insert(measured.end(), row.begin(), row.end());
    f.WriteDoubles("/measured_grid", {map.measured_postures.size(), map.axes.size()}, measured.data());
  }
  const hsize_t np = map.points.size(), na = map.axes.size();
  std::vector<double> grid(np * na);
  for (size_t p = 0; p < np; ++p) {
    const std::vector<double> values = GridValues(map.axes, p);
    std::copy(values.begin(), values.end(), grid.begin() + p * na);
  }
  f.WriteDoubles("/grid", {np, na}, grid.data());
  std::vector<std::string> names;
  for (const Dof& dof : model.dofs) names.push_back(dof.name);
  names.insert(names.end(), model.rigid_coordinates.begin(), model.rigid_coordinates.end());
  f.WriteStrings("/coordinate_names", names);
  const hsize_t nc = names.size();
  std::vector<double> q(np * nc);
  for (size_t p = 0; p < np; ++p) std::copy(map.points[p].q.begin(), map.points[p].q.end(), q.begin() + p * nc);
  f.WriteDoubles("/q", {np, nc}, q.data());
  WriteModes(&f, map.points);
  WriteStiffness(&f, map.points);
  if (!map.cut.empty()) WriteStability(&f, map.points, map.cut);
  f.Save();
}

namespace {

// A [P][width] dataset, refused unless its first dimension is P.
std::vector<double> Rows(const Hdf5File& f, const std::string& name, size_t points, size_t* width) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, 2, &dims);
  if (dims[0] != points)
    throw Error(f.path(), name, "expected " + std::to_string(points) + " rows, got " + std::to_string(dims[0]));
  *width = dims[1];
  return v;
}

std::vector<double> Column(const Hdf5File& f, const std::string& name, size_t points) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (dims[0] != points)
    throw Error(f.path(), name, "expected " + std::to_string(points) + " values, got " + std::to_string(dims[0]));
  return v;
}

}  // namespace

PostureMapData ReadPostureMap(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("posture_map", "a posture map (frfit map --out)");
  PostureMapData d;
  d.model_name = f.GetAttribute("/", "model");
  d.parameters_source = f.GetAttribute("/", "parameters_source");
  d.base_posture = f.GetAttribute("/", "base_posture");
  d.max_hz = f.GetAttribute("/", "max_hz");
  d.coordinates = f.ReadStrings("/grid_coordinates");
  std::vector<hsize_t> dims;
  const std::vector<double> grid = f.ReadDoubles("/grid", 2, &dims);
  const size_t np = dims[0];
  if (dims[1] != d.coordinates.size() || d.coordinates.empty())
    throw Error(path, "/grid", "expected one column per grid coordinate");
  for (size_t p = 0; p < np; ++p) d.grid.emplace_back(grid.begin() + p * dims[1], grid.begin() + (p + 1) * dims[1]);
  // Units and the fitted postures: written since 2026-11.
  d.units = f.Exists("/grid_units") ? f.ReadStrings("/grid_units")
                                    : std::vector<std::string>(d.coordinates.size());
  if (d.units.size() != d.coordinates.size())
    throw Error(path, "/grid_units", "expected one unit per grid coordinate");
  if (f.Exists("/measured_postures")) {
    d.measured_postures = f.ReadStrings("/measured_postures");
    const size_t na = d.coordinates.size();
    std::vector<hsize_t> mdims;
    const std::vector<double> measured = f.ReadDoubles("/measured_grid", 2, &mdims);
    if (mdims[0] != d.measured_postures.size() || mdims[1] != na)
      throw Error(path, "/measured_grid", "expected one row per measured posture, one column per grid coordinate");
    for (size_t m = 0; m < mdims[0]; ++m)
      d.measured_grid.emplace_back(measured.begin() + m * na, measured.begin() + (m + 1) * na);
  }
  size_t width = 0, three = 0;
  const std::vector<double> f_hz = Rows(f, "/modes/frequency_hz", np, &width);
  const std::vector<double> z = Rows(f, "/modes/damping_ratio", np, &width);
  const std::vector<double> f_sigma = Rows(f, "/modes/frequency_sigma_hz", np, &width);
  const std::vector<double> z_sigma = Rows(f, "/modes/damping_ratio_sigma", np, &width);
  const std::vector<std::int64_t> count = f.ReadInts("/modes/count", 1, &dims);
  const std::vector<double> axis = Rows(f, "/stiffness/axis_n_per_m", np, &three);
  const std::vector<double> axis_sigma = Rows(f, "/stiffness/axis_sigma_n_per_m", np, &three);
  const std::vector<double> axis_at = Rows(f, "/stiffness/axis_at_hz", np, &three);
  const std::vector<double> direction = Rows(f, "/stiffness/least_direction", np, &three);
  if (three != 3) throw Error(path, "/stiffness", "expected 3 columns (x, y, z)");
  const std::vector<double> least = Column(f, "/stiffness/least_n_per_m", np);
  const std::vector<double> least_at = Column(f, "/stiffness/least_at_hz", np);
  if (count.size() != np) throw Error(path, "/modes/count", "expected one count per posture");
  d.points.resize(np);
  for (size_t p = 0; p < np; ++p) {
    if (count[p] < 0 || static_cast<size_t>(count[p]) > width)
      throw Error(path, "/modes/count", "expected 0 to " + std::to_string(width) + " modes");
    for (size_t k = 0; k < static_cast<size_t>(count[p]); ++k)
      d.points[p].modes.push_back({f_hz[p * width + k], z[p * width + k], f_sigma[p * width + k],
                                   z_sigma[p * width + k], {}});
    ToolTipStiffness& s = d.points[p].stiffness;
    for (int i = 0; i < 3; ++i) {
      s.axis_n_per_m[i] = axis[3 * p + i];
      s.axis_sigma_n_per_m[i] = axis_sigma[3 * p + i];
      s.axis_at_hz[i] = axis_at[3 * p + i];
      s.least_direction[i] = direction[3 * p + i];
    }
    s.least_n_per_m = least[p];
    s.least_at_hz = least_at[p];
  }
  if (f.Exists("/stability")) {
    d.cut = f.GetAttribute("/stability", "cut");
    const std::vector<double> depth = Column(f, "/stability/critical_depth_m", np);
    const std::vector<double> speed = Column(f, "/stability/critical_spindle_speed_rpm", np);
    const std::vector<double> any = Column(f, "/stability/absolute_critical_depth_m", np);
    for (size_t p = 0; p < np; ++p) d.points[p].stability = {depth[p], speed[p], any[p]};
  }
  return d;
}

}  // namespace frfit
