// The campaign's HDF5 layout (docs/file-formats.md, "Campaigns"): one row per record in
// /records, node coordinates in /nodes, trace lines flattened with offsets in /trace_lines.
#include "frfit/campaign/campaign_hdf5.h"

#include <cstdint>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"

namespace frfit::campaign {
namespace {

std::vector<std::int64_t> Column(const Campaign& c, auto value) {
  std::vector<std::int64_t> out;
  for (const Record& r : c.records) out.push_back(value(r));
  return out;
}

void WriteRecords(Hdf5File* f, const Campaign& c) {
  const hsize_t R = c.records.size(), L = c.frequency_hz.size();
  auto ints = [&](const std::string& name, auto value) {
    const auto v = Column(c, value);
    f->WriteInts("/records/" + name, {R}, v.data());
  };
  f->CreateGroup("/records");
  ints("response_node", [](const Record& r) { return r.response.node; });
  ints("response_direction", [](const Record& r) { return r.response.direction; });
  ints("reference_node", [](const Record& r) { return r.reference.node; });
  ints("reference_direction", [](const Record& r) { return r.reference.direction; });
  ints("averages", [](const Record& r) { return r.averages.value_or(0); });
  ints("has_coherence", [](const Record& r) { return r.coherence.empty() ? 0 : 1; });
  std::vector<double> h(R * L * 2), g(R * L, 0.0);
  bool any_coherence = false;
  for (size_t i = 0; i < R; ++i) {
    const Record& r = c.records[i];
    for (size_t k = 0; k < L; ++k) {
      h[(i * L + k) * 2] = r.H[k].real();
      h[(i * L + k) * 2 + 1] = r.H[k].imag();
      if (!r.coherence.empty()) g[i * L + k] = r.coherence[k];
    }
    any_coherence = any_coherence || !r.coherence.empty();
  }
  f->WriteDoubles("/records/H", {R, L, 2}, h.data());
  if (any_coherence) f->WriteDoubles("/records/coherence", {R, L}, g.data());
  std::vector<std::string> units, files, where;
  for (const Record& r : c.records) {
    units.push_back(r.units);
    files.push_back(r.file);
    where.push_back(r.where);
  }
  f->WriteStrings("/records/units", units);
  f->WriteStrings("/records/file", files);
  f->WriteStrings("/records/where", where);
}

void WriteGeometryImpl(Hdf5File* f, const Campaign& c) {
  if (!c.coordinates.empty()) {
    f->CreateGroup("/nodes");
    std::vector<std::int64_t> id;
    std::vector<double> xyz;
    for (const auto& [node, x] : c.coordinates) {
      id.push_back(node);
      xyz.insert(xyz.end(), x.begin(), x.end());
    }
    f->WriteInts("/nodes/id", {id.size()}, id.data());
    f->WriteDoubles("/nodes/xyz", {id.size(), 3}, xyz.data());
  }
  if (!c.trace_lines.empty()) {
    f->CreateGroup("/trace_lines");
    std::vector<std::int64_t> id, offset{0}, nodes;
    std::vector<std::string> names;
    for (const TraceLine& t : c.trace_lines) {
      id.push_back(t.id);
      names.push_back(t.name);
      nodes.insert(nodes.end(), t.nodes.begin(), t.nodes.end());
      offset.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    f->WriteInts("/trace_lines/id", {id.size()}, id.data());
    f->WriteStrings("/trace_lines/name", names);
    f->WriteInts("/trace_lines/offset", {offset.size()}, offset.data());
    // An empty dataset cannot be written; a campaign's traces hold at least one node each.
    if (!nodes.empty()) f->WriteInts("/trace_lines/node", {nodes.size()}, nodes.data());
  }
}

std::vector<std::int64_t> Ints(const Hdf5File& f, const std::string& name, size_t n) {
  std::vector<hsize_t> dims;
  auto v = f.ReadInts(name, 1, &dims);
  if (dims[0] != n)
    throw Error(f.path(), name, "expected " + std::to_string(n) + " values, got " + std::to_string(dims[0]));
  return v;
}

std::vector<std::string> Strings(const Hdf5File& f, const std::string& name, size_t n) {
  auto v = f.ReadStrings(name);
  if (v.size() != n)
    throw Error(f.path(), name, "expected " + std::to_string(n) + " strings, got " + std::to_string(v.size()));
  return v;
}

int Direction(std::int64_t v, const Hdf5File& f, const std::string& name) {
  if (v < -3 || v > 3) throw Error(f.path(), name, "expected 0, ±1, ±2 or ±3, got " + std::to_string(v));
  return static_cast<int>(v);
}

void ReadRecords(const Hdf5File& f, FrfFormat format, Campaign* c) {
  std::vector<hsize_t> dims;
  const size_t L = c->frequency_hz.size();
  const auto h = f.ReadDoubles("/records/H", 3, &dims);
  if (dims[1] != L || dims[2] != 2)
    throw Error(f.path(), "/records/H", "expected shape [records][" + std::to_string(L) + "][2]");
  const size_t R = dims[0];
  const auto rn = Ints(f, "/records/response_node", R), rd = Ints(f, "/records/response_direction", R);
  const auto fn = Ints(f, "/records/reference_node", R), fd = Ints(f, "/records/reference_direction", R);
  const auto av = Ints(f, "/records/averages", R), hc = Ints(f, "/records/has_coherence", R);
  const auto units = Strings(f, "/records/units", R), files = Strings(f, "/records/file", R);
  const auto where = Strings(f, "/records/where", R);
  std::vector<double> g;
  bool any = false;
  for (auto v : hc) any = any || v != 0;
  if (any) {
    g = f.ReadDoubles("/records/coherence", 2, &dims);
    if (dims[0] != R || dims[1] != L)
      throw Error(f.path(), "/records/coherence", "expected shape [" + std::to_string(R) + "][" +
                                                      std::to_string(L) + "]");
  }
  for (size_t i = 0; i < R; ++i) {
    const std::string row = "[" + std::to_string(i) + "]";
    Record r;
    r.response = {rn[i], Direction(rd[i], f, "/records/response_direction" + row)};
    r.reference = {fn[i], Direction(fd[i], f, "/records/reference_direction" + row)};
    r.format = format;
    r.units = units[i];
    r.file = files[i];
    r.where = where[i];
    for (size_t k = 0; k < L; ++k) r.H.emplace_back(h[(i * L + k) * 2], h[(i * L + k) * 2 + 1]);
    if (hc[i] != 0) r.coherence.assign(g.begin() + i * L, g.begin() + (i + 1) * L);
    if (av[i] < 0 || av[i] > 1000000)
      throw Error(f.path(), "/records/averages" + row, "expected 0 (unknown) to 1000000, got " + std::to_string(av[i]));
    if (av[i] > 0) r.averages = static_cast<int>(av[i]);
    c->records.push_back(std::move(r));
  }
}

void ReadGeometryImpl(const Hdf5File& f, Campaign* c) {
  std::vector<hsize_t> dims;
  if (f.Exists("/nodes/id")) {
    const auto id = f.ReadInts("/nodes/id", 1, &dims);
    const auto xyz = f.ReadDoubles("/nodes/xyz", 2, &dims);
    if (dims[0] != id.size() || dims[1] != 3)
      throw Error(f.path(), "/nodes/xyz", "expected shape [" + std::to_string(id.size()) + "][3]");
    for (size_t i = 0; i < id.size(); ++i)
      if (!c->coordinates.emplace(id[i], std::array<double, 3>{xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]}).second)
        throw Error(f.path(), "/nodes/id[" + std::to_string(i) + "]", "expected each node once, got " +
                                                                     std::to_string(id[i]) + " again");
  }
  if (f.Exists("/trace_lines/id")) {
    const auto id = f.ReadInts("/trace_lines/id", 1, &dims);
    const auto names = Strings(f, "/trace_lines/name", id.size());
    const auto offset = Ints(f, "/trace_lines/offset", id.size() + 1);
    std::vector<std::int64_t> nodes;
    if (f.Exists("/trace_lines/node")) nodes = f.ReadInts("/trace_lines/node", 1, &dims);
    for (size_t t = 0; t < id.size(); ++t) {
      if (offset[0] != 0 || offset[t] > offset[t + 1] || offset[t + 1] > static_cast<std::int64_t>(nodes.size()))
        throw Error(f.path(), "/trace_lines/offset", "expected 0, then non-decreasing offsets up to " +
                                                         std::to_string(nodes.size()));
      c->trace_lines.push_back({id[t], names[t], {nodes.begin() + offset[t], nodes.begin() + offset[t + 1]}});
    }
  }
}

}  // namespace

void WriteGeometry(Hdf5File* f, const Campaign& c) { WriteGeometryImpl(f, c); }
void ReadGeometry(const Hdf5File& f, Campaign* c) { ReadGeometryImpl(f, c); }

void WriteHdf5(const std::string& path, const Campaign& c) {
  Validate(c, path);
  Hdf5File f(path, Hdf5File::Mode::kCreate);
  f.SetAttribute("/", "frfit_file", "campaign");
  f.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  f.SetAttribute("/", "format", frfit::ToString(c.records.front().format));
  f.SetAttribute("/", "units", UnitsOf(c.records.front().format));
  f.SetAttribute("/", "exponential_window", c.exponential_window ? "yes" : "no");
  f.WriteDoubles("/frequency_hz", {c.frequency_hz.size()}, c.frequency_hz.data());
  WriteRecords(&f, c);
  WriteGeometry(&f, c);
  if (!c.assumed.empty()) f.WriteStrings("/assumed", c.assumed);
  if (!c.unused.empty()) f.WriteStrings("/unused", c.unused);
  f.Save();
}

Campaign ReadHdf5(const std::string& path) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("campaign", "an frfit campaign");
  Campaign c;
  FrfFormat format;
  const std::string fmt = f.GetAttribute("/", "format");
  if (!FromString(fmt, &format))
    throw Error(path, "/@format", "expected receptance, mobility or inertance, got '" + fmt + "'");
  const std::string window = f.GetAttribute("/", "exponential_window");
  if (window != "yes" && window != "no")
    throw Error(path, "/@exponential_window", "expected yes or no, got '" + window + "'");
  c.exponential_window = window == "yes";
  std::vector<hsize_t> dims;
  c.frequency_hz = f.ReadDoubles("/frequency_hz", 1, &dims);
  ReadRecords(f, format, &c);
  ReadGeometry(f, &c);
  if (f.Exists("/assumed")) c.assumed = f.ReadStrings("/assumed");
  if (f.Exists("/unused")) c.unused = f.ReadStrings("/unused");
  Validate(c, path);
  return c;
}

}  // namespace frfit::campaign
